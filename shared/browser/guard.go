package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"github.com/baton-run/baton/shared/netguard"
)

// guardProxy is the HTTP proxy every local Chromium sends its traffic through (docs/tools.md "Browser", "Network"):
// it dials with netguard's dialer, so a page cannot reach the link-local addresses that hand out the runtime's
// credentials (EC2 instance metadata, the ECS task credentials endpoint), whether by IP or by a name resolving to
// one. Loopback and private addresses stay reachable (netguard's policy), so local servers remain usable.
// A refused or unreachable plain-HTTP destination gets a 403 or 502 response carrying GuardHeader; a refused tunnel
// (https, wss) a 403 that Chromium reports as a failed load.
type guardProxy struct {
	ln   net.Listener
	srv  *http.Server
	fwd  *httputil.ReverseProxy
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	wg      sync.WaitGroup
	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
}

// GuardHeader marks a response the network guard made itself (the destination was refused or unreachable); its
// value is the reason, which the tool reports as a failed navigation.
const GuardHeader = "X-Baton-Browser-Guard"

// refusedReason is the reason of a refused link-local destination.
const refusedReason = "the browser may not reach link-local addresses (instance metadata and credentials endpoints)"

// tunnelTimeout bounds dialling the destination of a CONNECT.
const tunnelTimeout = 30 * time.Second

// startGuardProxy listens on a loopback port and serves the proxy until close.
func startGuardProxy() (*guardProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the browser's network guard: %w", err)
	}
	t := netguard.Transport()
	g := &guardProxy{ln: ln, dial: t.DialContext, tunnels: map[net.Conn]struct{}{}}
	g.fwd = &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.Out.Host = pr.In.Host },
		Transport: t,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			reason, status := "the site could not be reached: "+err.Error(), http.StatusBadGateway
			if errors.Is(err, netguard.ErrForbiddenAddress) {
				reason, status = refusedReason, http.StatusForbidden
			}
			w.Header().Set(GuardHeader, reason)
			http.Error(w, reason, status)
		},
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: tunnelTimeout}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		_ = g.srv.Serve(ln)
	}()
	return g, nil
}

// url is the proxy's address for Chromium's --proxy-server.
func (g *guardProxy) url() string {
	return "http://" + g.ln.Addr().String()
}

// close stops the proxy and the tunnels it holds.
func (g *guardProxy) close() error {
	err := g.srv.Close()
	g.mu.Lock()
	for c := range g.tunnels {
		c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
	return err
}

// track records the connections of an open tunnel so close can end it; untrack forgets them.
func (g *guardProxy) track(conns ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range conns {
		g.tunnels[c] = struct{}{}
	}
}

func (g *guardProxy) untrack(conns ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range conns {
		delete(g.tunnels, c)
	}
}

func (g *guardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() {
			http.Error(w, "Baton's browser proxy serves proxy requests only", http.StatusBadRequest)
			return
		}
		g.fwd.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), tunnelTimeout)
	upstream, err := g.dial(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "tunnels are not supported", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		client.Close()
		upstream.Close()
		return
	}
	// Bytes the client sent after the CONNECT request and that the server already read go first.
	if n := buf.Reader.Buffered(); n > 0 {
		pending, _ := buf.Reader.Peek(n)
		if _, err := upstream.Write(pending); err != nil {
			client.Close()
			upstream.Close()
			return
		}
	}
	g.track(client, upstream)
	var once sync.Once
	closeBoth := func() {
		once.Do(func() { client.Close(); upstream.Close(); g.untrack(client, upstream) })
	}
	g.wg.Add(2)
	go func() { defer g.wg.Done(); defer closeBoth(); _, _ = io.Copy(upstream, client) }()
	go func() { defer g.wg.Done(); defer closeBoth(); _, _ = io.Copy(client, upstream) }()
}
