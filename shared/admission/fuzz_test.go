package admission

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
)

// FuzzParseTools checks tool-declaration parsing on arbitrary input: it never panics, rejects only with a 400
// *engine.Error, and the saved form is valid JSON that parses again to itself (normalisation is idempotent).
func FuzzParseTools(f *testing.F) {
	for _, s := range []string{
		`[` + weather + `]`,
		`[{"type":"tool_search"},{"type":"function","name":"f","description":"d","parameters":{},"defer_loading":true}]`,
		`[{"type":"web_search","mode":"disabled","location":{"city":"Paris"}},{"type":"programmatic_tool_calling","enabled":false}]`,
		`[{"type":"mcp","server_label":"t","transport":{"type":"stdio","command":"x","cwd":"/"},"allowed_tools":[]}]`,
		`[{"type":"function","name":"f","description":"d","parameters":{"type":"array"}}]`,
		`null`, `[]`, `[1]`, `{}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, inline bool) {
		if !json.Valid(data) {
			return
		}
		out, err := parseTools("tools", data, inline)
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("parseTools error %v is not a 400 *engine.Error", err)
			}
			return
		}
		if out == nil {
			return
		}
		again, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("saved form does not encode: %v", err)
		}
		out2, err := parseTools("tools", again, inline)
		if err != nil {
			t.Fatalf("saved form %s is rejected: %v", again, err)
		}
		if diff := cmp.Diff(asStrings(out), asStrings(out2)); diff != "" {
			t.Fatalf("normalisation is not idempotent (-first +second):\n%s", diff)
		}
	})
}

func asStrings(rs []json.RawMessage) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
