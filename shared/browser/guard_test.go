package browser

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestGuardProxyRefusesLinkLocalAndPassesTheRest drives the guard as Chromium does — absolute-form requests for
// http, CONNECT tunnels for https — with a plain HTTP client.
func TestGuardProxyRefusesLinkLocalAndPassesTheRest(t *testing.T) {
	t.Parallel()
	g, err := startGuardProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.close(); err != nil {
			t.Errorf("close the guard: %v", err)
		}
	})
	proxyURL, err := url.Parse(g.url())
	if err != nil {
		t.Fatal(err)
	}
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello over %s", r.Proto) })
	plain := httptest.NewServer(hello)
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewTLSServer(hello)
	t.Cleanup(tlsSrv.Close)

	tr := tlsSrv.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	client := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)

	cases := []struct {
		name, url  string
		status     int
		body       string
		guardNoted bool
	}{
		{"plain http to an allowed host passes", plain.URL + "/", http.StatusOK, "hello over HTTP/1.1", false},
		{"https is tunnelled", tlsSrv.URL + "/", http.StatusOK, "hello over HTTP/1.1", false},
		{"instance metadata is refused", "http://169.254.169.254/latest/meta-data/", http.StatusForbidden, refusedReason, true},
		{"the IPv6 metadata address is refused", "http://[fd00:ec2::254]/latest/meta-data/", http.StatusForbidden, refusedReason, true},
	}
	for _, c := range cases {
		resp, err := client.Get(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) || (resp.Header.Get(GuardHeader) != "") != c.guardNoted {
			t.Errorf("%s: %d %q (guard header %q), want %d containing %q", c.name, resp.StatusCode, body,
				resp.Header.Get(GuardHeader), c.status, c.body)
		}
	}
	// A tunnel to a link-local address is refused before it opens.
	if _, err := client.Get("https://169.254.170.2/v2/credentials"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("an https request to the task credentials endpoint: %v, want a refused tunnel", err)
	}
}
