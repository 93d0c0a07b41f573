package main

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Lambda functions of template.yaml that serve the client's requests on AWS (docs/bench.md "Cost").
const (
	apiFunction    = "ApiFunction"
	streamFunction = "StreamFunction"
)

// routeFunction returns the function API Gateway invokes for a request, as template.yaml routes it: session
// create (POST /v1/agents/sessions), the session event stream (GET /v1/agents/sessions/{id}/events) and
// InvokeHarness (POST /harnesses/invoke) go to the response-streaming StreamFunction, everything else to
// ApiFunction.
func routeFunction(method, path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case method == http.MethodPost && path == "/v1/agents/sessions",
		method == http.MethodGet && len(parts) == 5 && parts[0] == "v1" && parts[1] == "agents" && parts[2] == "sessions" && parts[4] == "events",
		method == http.MethodPost && path == "/harnesses/invoke":
		return streamFunction
	}
	return apiFunction
}

// invocationStats is what a clientMeter saw of one function.
type invocationStats struct {
	Requests     int64
	BilledMillis int64 // each request's time from sending to the end of its body, rounded up to a millisecond
}

// clientMeter is an http.RoundTripper that counts the client's requests by the Lambda function that would serve
// them on AWS (routeFunction) and how long each lasted: from sending the request to the close of its response
// body, which for a stream is the whole time it was open. On loopback that is the handler's run time, the unit
// Lambda bills, plus a little transport time.
type clientMeter struct {
	next http.RoundTripper
	mu   sync.Mutex
	m    map[string]invocationStats
}

func newClientMeter() *clientMeter {
	return &clientMeter{next: http.DefaultTransport, m: map[string]invocationStats{}}
}

func (c *clientMeter) RoundTrip(r *http.Request) (*http.Response, error) {
	fn := routeFunction(r.Method, r.URL.Path)
	start := time.Now()
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		c.add(fn, time.Since(start))
		return nil, err
	}
	resp.Body = &meteredBody{ReadCloser: resp.Body, done: func() { c.add(fn, time.Since(start)) }}
	return resp, nil
}

func (c *clientMeter) add(fn string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m[fn]
	s.Requests++
	s.BilledMillis += (d.Nanoseconds() + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	c.m[fn] = s
}

// Snapshot returns a copy of the counters by function.
func (c *clientMeter) Snapshot() map[string]invocationStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]invocationStats, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

// meteredBody calls done once, when the body is closed.
type meteredBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *meteredBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}
