package stack

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// TaskSuccessProxy starts a proxy in front of the Step Functions endpoint target for fault injection: every
// request passes through, except that each SendTaskSuccess is first shown to intercept with its JSON body
// ({"taskToken","output"}). When intercept answers with a status other than 0, the proxy answers the request
// itself with that status and body (an AWS JSON error such as {"__type":"InvalidToken",…}) and Step Functions
// never sees it. It returns the proxy's URL, for AWS_ENDPOINT_URL_SFN or setup.Endpoints.SFN; the proxy stops
// when the test ends.
func TaskSuccessProxy(t testing.TB, target string, intercept func(body []byte) (status int, answer string)) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".SendTaskSuccess") {
			body, _ := io.ReadAll(r.Body)
			if status, answer := intercept(body); status != 0 {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(status)
				_, _ = io.WriteString(w, answer)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
