package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/engine"
)

func TestClientRequestIDKeepsOnlyPlausibleIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, header, want string }{
		{"absent", "", ""},
		{"a UUID is kept", "0b8f3c4e-1d2a-4f5b-9c6d-7e8f9a0b1c2d", "0b8f3c4e-1d2a-4f5b-9c6d-7e8f9a0b1c2d"},
		{"dots, colons and underscores are kept", "trace_1.span:2", "trace_1.span:2"},
		{"128 characters are kept", strings.Repeat("a", 128), strings.Repeat("a", 128)},
		{"129 characters are dropped", strings.Repeat("a", 129), ""},
		{"a quote is dropped", `id"x`, ""},
		{"a space is dropped", "id x", ""},
		{"a newline is dropped", "id\nlevel=ERROR", ""},
		{"non-ASCII is dropped", "idé", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/healthz", nil)
			if tc.header != "" {
				r.Header["X-Request-Id"] = []string{tc.header}
			}
			if got := clientRequestID(r); got != tc.want {
				t.Errorf("clientRequestID(%q) = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
}

// TestAccessLogOfARefusedInvokeNamesItsRuntimeSession: an InvokeHarness refused at the SigV4 gate is logged with
// route "unmatched", its 401 status and the runtimeSessionId the caller sent; nothing else is read from the
// request.
func TestAccessLogOfARefusedInvokeNamesItsRuntimeSession(t *testing.T) {
	t.Parallel()
	var access bytes.Buffer
	h := New(engine.New(engine.Options{Store: newFakeStore()}), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		AccessLog: slog.New(slog.NewJSONHandler(&access, nil))})
	r := httptest.NewRequest(http.MethodPost, "/harnesses/invoke?harnessArn=x", strings.NewReader("{}"))
	r.Header.Set(runtimeSessionHeader, "session-0123456789abcdef0123456789abcdef")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var line map[string]any
	if err := json.Unmarshal(access.Bytes(), &line); err != nil {
		t.Fatalf("access log %q: %v", access.String(), err)
	}
	want := map[string]any{"msg": "request", "method": "POST", "route": "unmatched", "status": float64(w.Code),
		"runtime_session_id": "session-0123456789abcdef0123456789abcdef", "request_id": w.Header().Get("X-Amzn-RequestId")}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, line[k], v, line)
		}
	}
	if w.Code != http.StatusUnauthorized {
		t.Errorf("unsigned InvokeHarness: %d, want 401", w.Code)
	}
}
