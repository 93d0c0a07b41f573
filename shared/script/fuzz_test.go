package script_test

import (
	"encoding/json"
	"testing"

	"github.com/baton-run/baton/shared/script"
)

// FuzzParse: any x_baton.script either fails to parse or parses to a Script whose JSON encoding parses again, and
// every rule can be matched and rendered against empty data without panicking.
func FuzzParse(f *testing.F) {
	f.Add(`{"rules":[{"when":{"user_matches":"(?P<c>\\w+)"},"calls":[{"name":"f","arguments":{"a":"{{.Match.c}}"}}]}]}`)
	f.Add(`{"rules":[{"when":{"after_tool":"*"},"reply":"{{tool_output 1}}"}],"default_reply":"{{json .UserText}}"}`)
	f.Add(`{"chunk_size":-1}`)
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := script.Parse(json.RawMessage(raw))
		if err != nil {
			return
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal a parsed script: %v", err)
		}
		if _, err := script.Parse(again); err != nil {
			t.Fatalf("a parsed script does not parse again: %v\n%s", err, again)
		}
		data := &script.Data{Match: map[string]string{}}
		for i := range s.Rules {
			r := &s.Rules[i]
			r.Matches(data, false, nil)
			for _, c := range r.Calls {
				_, _ = script.RenderArguments(c.Arguments, data)
			}
			if r.Reply != nil {
				_, _ = script.Render(*r.Reply, data)
			}
		}
	})
}
