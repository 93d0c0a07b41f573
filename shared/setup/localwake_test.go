package setup

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLocalWakeReportsEachCommitToTheEndpoint(t *testing.T) {
	t.Parallel()
	if localWake("") != nil {
		t.Error(`localWake("") is not nil: a deployment without the setting must report nothing`)
	}
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/_baton/wake" {
			t.Errorf("%s %s, want POST /_baton/wake", r.Method, r.URL.Path)
		}
		got <- r.URL.Query().Get("session_id")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	notify := localWake(srv.URL + "/_baton/wake")
	notify("sess_a&b")
	notify("sess_c")
	for _, want := range []string{"sess_a&b", "sess_c"} {
		select {
		case id := <-got:
			if id != want {
				t.Errorf("reported %q, want %q", id, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no report of %s", want)
		}
	}
}
