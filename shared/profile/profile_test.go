package profile

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
)

// TestEveryProfileSetsEveryField walks every field of every profile by reflection: a Support field must not be
// Invalid, a string must be set (and a pattern must compile), a slice must be non-nil. Adding a field to Profile
// without declaring it for every kind fails here.
func TestEveryProfileSetsEveryField(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			p, ok := Of(kind)
			if !ok {
				t.Fatalf("no profile for %s", kind)
			}
			v := reflect.ValueOf(p)
			for i := range v.NumField() {
				f, name := v.Field(i), v.Type().Field(i).Name
				switch {
				case f.Type() == reflect.TypeOf(Support(0)):
					if s := Support(f.Uint()); s != Supported && s != Unsupported {
						t.Errorf("%s.%s = %v, want Supported or Unsupported", kind, name, s)
					}
				case f.Kind() == reflect.String:
					if f.String() == "" {
						t.Errorf("%s.%s is empty", kind, name)
					}
					if len(name) > 7 && name[len(name)-7:] == "Pattern" {
						if _, err := regexp.Compile(f.String()); err != nil {
							t.Errorf("%s.%s: %v", kind, name, err)
						}
					}
				case f.Kind() == reflect.Slice:
					if f.IsNil() {
						t.Errorf("%s.%s is nil; declare it (empty means none)", kind, name)
					}
				default:
					t.Errorf("%s.%s has type %s, which this completeness check does not know", kind, name, f.Type())
				}
			}
			if err := p.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestOnlyBatonHasARuntime(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds() {
		p, _ := Of(kind)
		if got, want := p.Runtime.OK(), kind == Baton; got != want {
			t.Errorf("%s.Runtime = %v, want supported only for baton (docs/decisions.md §2)", kind, p.Runtime)
		}
	}
	if p, ok := Of(""); !ok || p.Kind != Baton {
		t.Errorf(`Of("") = %q, %v; want the baton profile`, p.Kind, ok)
	}
	if _, ok := Of("gemini"); ok {
		t.Error(`Of("gemini") found a profile`)
	}
}

func TestRequiresNamesTheCapabilitiesTheConfigurationUses(t *testing.T) {
	t.Parallel()
	fn := `{"type":"function","name":"f","description":"","parameters":{"type":"object"},"defer_loading":false}`
	deferred := `{"type":"function","name":"g","description":"","parameters":{},"defer_loading":true}`
	mcp := func(label string, required bool, cred string) string {
		c := "null"
		if cred != "" {
			c = `"` + cred + `"`
		}
		b, _ := json.Marshal(required)
		return `{"type":"mcp","server_label":"` + label + `","transport":{"type":"http","server_url":"http://x/mcp"},"required":` + string(b) + `,"credential_id":` + c + `}`
	}
	tools := func(ts ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(ts))
		for i, s := range ts {
			out[i] = json.RawMessage(s)
		}
		return out
	}
	tests := []struct {
		name string
		cfg  agent.Config
		want []string
	}{
		{"a plain text agent needs only the always set", agent.Config{}, []string{"durable_turns", "environment_none", "streaming"}},
		{"functions need function_tools", agent.Config{Tools: tools(fn)},
			[]string{"durable_turns", "environment_none", "function_tools", "streaming"}},
		{"a deferred function and tool_search need tool_search once", agent.Config{Tools: tools(deferred, `{"type":"tool_search"}`)},
			[]string{"durable_turns", "environment_none", "function_tools", "streaming", "tool_search"}},
		{"json_schema needs structured_output and message_items",
			agent.Config{Text: json.RawMessage(`{"format":{"type":"json_schema","schema":{"type":"object"}},"verbosity":"medium"}`)},
			[]string{"durable_turns", "environment_none", "message_items", "streaming", "structured_output"}},
		{"a required MCP server with a credential needs the three MCP capabilities", agent.Config{Tools: tools(mcp("a", true, "cred_1"))},
			[]string{"durable_turns", "environment_none", "mcp_http_bearer_auth", "mcp_http_required", "mcp_http_tools", "streaming"}},
		{"a bearer token frozen in the snapshot needs bearer auth",
			agent.Config{Tools: tools(mcp("a", false, "")), MCPBearerTokens: map[string]string{"a": "tok"}},
			[]string{"durable_turns", "environment_none", "mcp_http_bearer_auth", "mcp_http_tools", "streaming"}},
		{"an explicit PTC disable needs its control", agent.Config{Tools: tools(`{"type":"programmatic_tool_calling","enabled":false}`)},
			[]string{"durable_turns", "environment_none", "programmatic_tool_calling_disable", "streaming"}},
		{"disabled web search needs the control only where the profile declares it (codex)",
			agent.Config{Tools: tools(`{"type":"web_search","mode":"disabled"}`), XBaton: &agent.Extension{Harness: Codex}},
			[]string{"durable_turns", "environment_none", "streaming", "web_search_control"}},
		{"disabled web search on baton needs nothing more", agent.Config{Tools: tools(`{"type":"web_search","mode":"disabled"}`)},
			[]string{"durable_turns", "environment_none", "streaming"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Requires(tc.cfg)); diff != "" {
				t.Errorf("Requires (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMissingKeepsTheNeededOrder(t *testing.T) {
	t.Parallel()
	got := Missing([]string{"a", "b", "c"}, []string{"c", "a"})
	if diff := cmp.Diff([]string{"b"}, got); diff != "" {
		t.Error(diff)
	}
	if got := Missing([]string{"a"}, []string{"a"}); got != nil {
		t.Errorf("Missing = %v, want nil", got)
	}
}
