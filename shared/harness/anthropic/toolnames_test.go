package anthropic_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
)

// anthropicToolName is the Messages API's rule for tool names: ^[a-zA-Z0-9_-]{1,64}$.
var anthropicToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func wireNames(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "name" {
				*out = append(*out, s)
			}
			wireNames(e, out)
		}
	case []any:
		for _, e := range x {
			wireNames(e, out)
		}
	}
}

func TestMCPToolNamesOnTheAnthropicWire(t *testing.T) {
	t.Parallel()
	awkward := harness.MCPToolName("my.server", "a.b/c d")
	long := harness.MCPToolName("srv", "a_very_long_tool_name_"+strings.Repeat("x", 48))
	req := harness.Request{Model: "claude-test", TurnID: "turn_1",
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "go"},
			{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "call_1", Name: awkward, Arguments: json.RawMessage(`{}`)}}},
			{Role: harness.RoleTool, Results: []harness.Result{{CallID: "call_1", Name: awkward, Output: "ok"}}},
		},
		Tools: []harness.Tool{{Name: awkward, Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: long, Parameters: json.RawMessage(`{"type":"object"}`)}}}
	f := newFake(t)
	f.events = []sse{messageStart, toolStart(0, "toolu_9", long), jsonDelta(0, `{}`), blockStop(0), messageDelta("tool_use"), messageStop}
	parts, err := modeltest.Collect(t, f.model(t), req)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	wireNames(f.body, &names)
	if len(names) < 3 {
		t.Fatalf("found only %q on the wire", names)
	}
	for _, n := range names {
		if !anthropicToolName.MatchString(n) {
			t.Errorf("name %q on the wire breaks Anthropic's rule", n)
		}
	}
	if len(parts) == 0 || parts[0].Call == nil || parts[0].Call.Name != long {
		t.Errorf("the call comes back as %+v, want the mapped name %q", parts, long)
	}
}
