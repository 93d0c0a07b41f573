package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRouteFunctionFollowsTheTemplateRouting(t *testing.T) {
	t.Parallel()
	// template.yaml's BatonApi: session create, the session event stream and InvokeHarness go to StreamFunction;
	// every other path (and any other method on those paths) to ApiFunction.
	for _, tc := range []struct {
		method, path, want string
	}{
		{http.MethodPost, "/v1/agents/sessions", streamFunction},
		{http.MethodGet, "/v1/agents/sessions/sess_1/events", streamFunction},
		{http.MethodPost, "/harnesses/invoke", streamFunction},
		{http.MethodPost, "/v1/agents/sessions/sess_1/events", apiFunction},
		{http.MethodGet, "/v1/agents/sessions", apiFunction},
		{http.MethodGet, "/v1/agents/sessions/sess_1", apiFunction},
		{http.MethodPost, "/v1/agents", apiFunction},
		{http.MethodGet, "/admin/v1/runtimes", apiFunction},
		{http.MethodPost, "/harnesses", apiFunction},
	} {
		if got := routeFunction(tc.method, tc.path); got != tc.want {
			t.Errorf("%s %s → %s, want %s", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestClientMeterCountsEachRequestWhenItsBodyCloses(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	m := newClientMeter()
	client := &http.Client{Transport: m}
	resp, err := client.Get(srv.URL + "/v1/agents/sessions/sess_1/events")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Snapshot()) != 0 {
		t.Errorf("counted before the body was closed: %+v", m.Snapshot())
	}
	resp.Body.Close()
	resp.Body.Close() // a second Close counts nothing
	open, err := client.Post(srv.URL+"/v1/agents/sessions/sess_1/events", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Body.Close()
	got := map[string]int64{}
	for fn, s := range m.Snapshot() {
		got[fn] = s.Requests
		if s.BilledMillis < s.Requests {
			t.Errorf("%s: %d billed ms for %d requests, want at least 1 ms each", fn, s.BilledMillis, s.Requests)
		}
	}
	// The POST's body was not closed: it is not counted yet.
	if d := cmp.Diff(map[string]int64{streamFunction: 1}, got); d != "" {
		t.Errorf("requests by function (-want +got):\n%s", d)
	}
}
