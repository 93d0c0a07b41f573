package script_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/script"
)

func TestParseRejectsInvalidScripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  string
		wantErr string
	}{
		{name: "absent script is the empty script", script: ``},
		{name: "null script is the empty script", script: `null`},
		{name: "full script parses", script: `{"rules":[{"when":{"user_contains":"a","user_matches":"(b)","after_tool":"*"},"reply":"x"}],"default_reply":"d","chunk_size":3,"omit_usage":true}`},
		{name: "unknown member", script: `{"rule":[]}`, wantErr: `script: json: unknown field "rule"`},
		{name: "unknown member in when", script: `{"rules":[{"when":{"user":"x"},"reply":"r"}]}`, wantErr: `script: json: unknown field "user"`},
		{name: "negative chunk size", script: `{"chunk_size":-1}`, wantErr: "chunk_size: must not be negative"},
		{name: "rule without action", script: `{"rules":[{"when":{"user_contains":"x"}}]}`, wantErr: "rules[0].calls: a rule needs calls, reply or error"},
		{name: "calls with reply", script: `{"rules":[{"calls":[{"name":"f"}],"reply":"r"}]}`, wantErr: "rules[0].calls: a rule with calls has no reply or error"},
		{name: "commentary without calls", script: `{"rules":[{"commentary":"c","reply":"r"}]}`, wantErr: "rules[0].commentary: only a rule with calls has commentary"},
		{name: "call without name", script: `{"rules":[{"reply":"r"},{"calls":[{"arguments":{}}]}]}`, wantErr: "rules[1].calls[0].name: required"},
		{name: "arguments not an object", script: `{"rules":[{"calls":[{"name":"f","arguments":[1]}]}]}`, wantErr: "rules[0].calls[0].arguments: must be a JSON object"},
		{name: "bad template in arguments", script: `{"rules":[{"calls":[{"name":"f","arguments":{"a":{"b":"{{"}}}]}]}`, wantErr: "rules[0].calls[0].arguments: a.b: template: script:1: unclosed action"},
		{name: "bad template in reply", script: `{"rules":[{"reply":"{{nope}}"}]}`, wantErr: `rules[0].reply: template: script:1: function "nope" not defined`},
		{name: "bad default reply", script: `{"default_reply":"{{"}`, wantErr: "default_reply: template: script:1: unclosed action"},
		{name: "bad regular expression", script: `{"rules":[{"when":{"user_matches":"("},"reply":"r"}]}`, wantErr: "rules[0].when.user_matches: error parsing regexp: missing closing ): `(`"},
		{name: "trailing data", script: `{} {}`, wantErr: "script: trailing data after the object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := script.Parse(json.RawMessage(tc.script))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("Parse error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// TestARangeOverANumberIsRefused: `{{range N}}` counts to N, so a script could hold a runtime's model step for
// minutes (with an empty body, the output bound never trips); Parse refuses it, also inside if/with/range.
func TestARangeOverANumberIsRefused(t *testing.T) {
	t.Parallel()
	for _, tpl := range []string{`{{range 300000}}ab{{end}}`, `{{range 1000000000}}{{end}}`, `{{if true}}{{range 9}}{{end}}{{end}}`} {
		raw, _ := json.Marshal(map[string]any{"default_reply": tpl})
		if _, err := script.Parse(raw); err == nil || !strings.Contains(err.Error(), "range over a number") {
			t.Errorf("Parse(%s) = %v, want the range refused", tpl, err)
		}
	}
	raw, _ := json.Marshal(map[string]any{"default_reply": `{{range .Tools}}[{{.Output}}]{{end}}`})
	if _, err := script.Parse(raw); err != nil {
		t.Errorf("a range over the data was refused: %v", err)
	}
}
