package stack

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// SFNProxy starts a proxy in front of the Step Functions endpoint target for fault injection: each request is first
// shown to intercept with its operation (X-Amz-Target without the "AWSStepFunctions." prefix, e.g.
// "SendTaskSuccess"), its JSON body and its context (done when the client gives up). When intercept answers with a
// status other than 0, the proxy answers the request itself with that status and body (an AWS JSON error such as
// {"__type":"InvalidToken",…}) and Step Functions never sees it; otherwise the request passes through. It returns
// the proxy's URL, for AWS_ENDPOINT_URL_SFN or setup.Endpoints.SFN; the proxy stops when the test ends.
func SFNProxy(t testing.TB, target string, intercept func(ctx context.Context, op string, body []byte) (status int, answer string)) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a client that ends (a runtime killed mid-poll) is not a failure
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
		body, _ := io.ReadAll(r.Body)
		if status, answer := intercept(r.Context(), op, body); status != 0 {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, answer)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TaskSuccessProxy is SFNProxy intercepting SendTaskSuccess only: intercept sees each SendTaskSuccess body
// ({"taskToken","output"}) and answers as SFNProxy's does.
func TaskSuccessProxy(t testing.TB, target string, intercept func(body []byte) (status int, answer string)) string {
	t.Helper()
	return SFNProxy(t, target, func(_ context.Context, op string, body []byte) (int, string) {
		if op != "SendTaskSuccess" {
			return 0, ""
		}
		return intercept(body)
	})
}
