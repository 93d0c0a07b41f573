package bedrock_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
)

// converseToolName is Bedrock Converse's rule for toolSpec and toolUse names: [a-zA-Z0-9_-]+, 1–64 characters.
var converseToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

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

func TestMCPToolNamesOnTheBedrockWire(t *testing.T) {
	t.Parallel()
	awkward := harness.MCPToolName("my.server", "a.b/c d")
	long := harness.MCPToolName("srv", "a_very_long_tool_name_"+strings.Repeat("x", 48))
	req := harness.Request{Model: "anthropic.claude-test-v1:0", TurnID: "turn_1",
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "go"},
			{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "call_1", Name: awkward, Arguments: json.RawMessage(`{}`)}}},
			{Role: harness.RoleTool, Results: []harness.Result{{CallID: "call_1", Name: awkward, Output: "ok"}}},
		},
		Tools: []harness.Tool{{Name: awkward, Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: long, Parameters: json.RawMessage(`{"type":"object"}`)}}}
	f := newFake(t)
	f.frames = []frame{ev("messageStart", start), toolStart(0, "tooluse_9", long), toolDelta(0, `{}`), blockStop(0), stop("tool_use"), ev("metadata", metadata)}
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
		if !converseToolName.MatchString(n) {
			t.Errorf("name %q on the wire breaks Converse's rule", n)
		}
	}
	if len(parts) == 0 || parts[0].Call == nil || parts[0].Call.Name != long {
		t.Errorf("the call comes back as %+v, want the mapped name %q", parts, long)
	}
}
