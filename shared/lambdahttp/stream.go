package lambdahttp

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/sigv4auth"
)

// Streaming converts h into a handler for API Gateway REST API response-streaming integrations. The handler runs
// in its own goroutine writing into a pipe; the response (status and headers from the first WriteHeader or
// Write) is returned as soon as they are known and the body streams as h writes and flushes it.
func Streaming(h http.Handler) func(context.Context, events.APIGatewayProxyRequest) (*events.APIGatewayProxyStreamingResponse, error) {
	return func(ctx context.Context, req events.APIGatewayProxyRequest) (*events.APIGatewayProxyStreamingResponse, error) {
		httpReq, err := toHTTPRequest(ctx, req)
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		w := &streamWriter{header: http.Header{}, pipe: pw, ready: make(chan struct{})}
		go func() {
			defer pw.Close()
			defer w.writeHeaderOnce(http.StatusOK)
			h.ServeHTTP(w, httpReq)
		}()
		<-w.ready
		resp := &events.APIGatewayProxyStreamingResponse{StatusCode: w.status, Body: pr, MultiValueHeaders: map[string][]string{}}
		for k, v := range w.header {
			resp.MultiValueHeaders[k] = v
		}
		return resp, nil
	}
}

func toHTTPRequest(ctx context.Context, req events.APIGatewayProxyRequest) (*http.Request, error) {
	var body io.Reader = strings.NewReader(req.Body)
	if req.IsBase64Encoded {
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	u := url.URL{Path: req.Path}
	q := url.Values{}
	for k, vs := range req.MultiValueQueryStringParameters {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	if len(q) == 0 {
		for k, v := range req.QueryStringParameters {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	r, err := http.NewRequestWithContext(ctx, req.HTTPMethod, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range req.MultiValueHeaders {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if len(req.MultiValueHeaders) == 0 {
		for k, v := range req.Headers {
			r.Header.Add(k, v)
		}
	}
	r.RemoteAddr = req.RequestContext.Identity.SourceIP
	if h := r.Header.Get("Host"); h != "" {
		r.Host = h
	}
	r = r.WithContext(httpapi.WithGatewayRequestID(r.Context(), req.RequestContext.RequestID))
	if req.RequestContext.Path != "" {
		// The path the client signed keeps the REST API stage prefix (SigV4 verification, docs/agentcore.md §2).
		r = r.WithContext(sigv4auth.WithSignedPath(r.Context(), req.RequestContext.Path))
	}
	return r, nil
}

// streamWriter is the http.ResponseWriter (and http.Flusher) of a streamed response.
type streamWriter struct {
	header http.Header
	status int
	pipe   *io.PipeWriter
	ready  chan struct{}
}

func (w *streamWriter) Header() http.Header { return w.header }

func (w *streamWriter) WriteHeader(code int) { w.writeHeaderOnce(code) }

func (w *streamWriter) writeHeaderOnce(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	close(w.ready)
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.writeHeaderOnce(http.StatusOK)
	return w.pipe.Write(p)
}

// Flush is a no-op: every Write already reaches the pipe, which Lambda streams.
func (w *streamWriter) Flush() {}
