package stack

import (
	"bytes"
	"io"
	"net/http"
)

// SDKHTTPClient is the HTTP client for SDK clients that run without retries (aws.NopRetryer): each request goes to the
// transport with a copy of its body held in memory (bufferedBodies).
func SDKHTTPClient() *http.Client {
	return &http.Client{Transport: bufferedBodies{next: http.DefaultTransport.(*http.Transport).Clone()}}
}

// bufferedBodies hands the transport an in-memory copy of each request body, so that the SDK closing its own body
// cannot break a response. net/http flushes the headers of a body it does not know to be in memory first, the body
// then goes straight to the socket, and only afterwards does its write loop read the body once more (io.Copy to
// io.Discard) to check for bytes beyond Content-Length. The server may have answered by then, and smithy-go closes the
// request body as soon as the response headers arrive; its closed body answers that read (WriteTo) with io.EOF as an
// error, and the write loop closes the connection under the response being decoded: "deserialization failed, failed
// to decode response body, read tcp …: use of closed network connection" on a 200. The SDK's default retryer retries
// that error; clients without retries must not share the body. A *bytes.Reader body is written with the headers in
// one flush after the check.
type bufferedBodies struct{ next http.RoundTripper }

// RoundTrip reads and closes r's body and sends a clone of r with the bytes instead.
func (b bufferedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return b.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if cerr := r.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	c := r.Clone(r.Context())
	c.Body, c.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return b.next.RoundTrip(c)
}
