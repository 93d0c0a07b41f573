package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
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
