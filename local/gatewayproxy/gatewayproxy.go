package gatewayproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/baton-run/baton/shared/sigv4auth"
)

// SigningName is the SigV4 signing name a request must be signed for.
const SigningName = "bedrock-agentcore"

// MaxBodyBytes bounds a request body the proxy reads to verify its signature (4 MiB); a larger body gets 413.
const MaxBodyBytes = 4 << 20

// Proxy verifies and forwards. It is safe for concurrent use.
type Proxy struct {
	verifier *sigv4auth.Verifier
	proxy    *httputil.ReverseProxy
	log      *slog.Logger
}

// New returns a Proxy that forwards every accepted request, whatever its path, to target (the MCP endpoint, e.g.
// "http://127.0.0.1:3100/mcp"), accepting signatures by the access key pairs of keys (access key id → secret
// access key). log nil means slog.Default(). Errors: target is not an absolute http(s) URL, or keys is empty.
func New(target string, keys map[string]string, log *slog.Logger) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gatewayproxy: target %q is not an absolute http(s) URL", target)
	}
	if len(keys) == 0 {
		return nil, errors.New("gatewayproxy: no access keys")
	}
	if log == nil {
		log = slog.Default()
	}
	secrets := make(map[string]string, len(keys))
	for k, v := range keys {
		secrets[k] = v
	}
	lookup := func(_ context.Context, id string) (string, string, error) {
		s, ok := secrets[id]
		if !ok {
			return "", "", sigv4auth.ErrUnknownKey
		}
		return "", s, nil
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.URL.RawPath = u.Scheme, u.Host, u.Path, u.RawPath
			pr.Out.Host = u.Host
			for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"} {
				pr.Out.Header.Del(h)
			}
		},
		FlushInterval: -1, // server-sent events pass through as they come
	}
	return &Proxy{verifier: &sigv4auth.Verifier{Service: SigningName, Lookup: lookup}, proxy: rp, log: log}, nil
}

// ServeHTTP verifies r's signature over its body and forwards it. Rejections: 413 for a body over MaxBodyBytes,
// 403 `{"message": …}` for a request that is unsigned, malformed, signed for another service, by an unknown key,
// with a wrong signature or outside the 15-minute clock skew.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		deny(w, http.StatusBadRequest, "ValidationException", "cannot read the request body")
		return
	}
	if len(body) > MaxBodyBytes {
		deny(w, http.StatusRequestEntityTooLarge, "ValidationException", fmt.Sprintf("the request body exceeds %d bytes", MaxBodyBytes))
		return
	}
	if _, err := p.verifier.Verify(r, body); err != nil {
		p.log.Info("gateway proxy: request refused", "method", r.Method, "path", r.URL.Path, "error", err)
		deny(w, http.StatusForbidden, "AccessDeniedException", err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	p.proxy.ServeHTTP(w, r)
}

// deny writes an AWS-style error: X-Amzn-ErrorType and `{"message"}`.
func deny(w http.ResponseWriter, status int, errorType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", errorType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// Listen serves a Proxy for target and keys on addr (host:port; port 0 picks a free port) until stop is called,
// and returns its MCP URL ("http://<addr>/mcp"). stop shuts the server down (at most 3 s for requests in flight).
// Errors: New's, or the address cannot be listened on.
func Listen(addr, target string, keys map[string]string, log *slog.Logger) (mcpURL string, stop func(), err error) {
	p, err := New(target, keys, log)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("gatewayproxy: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error("gateway proxy stopped", "error", err)
		}
	}()
	return "http://" + ln.Addr().String() + "/mcp", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
	}, nil
}
