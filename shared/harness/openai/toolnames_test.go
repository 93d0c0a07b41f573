package openai_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/harness/openai"
)

// openAIFunctionName is OpenAI's rule for function names (Responses and Chat Completions): a–z, A–Z, 0–9,
// underscores and dashes, at most 64 characters.
var openAIFunctionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// mcpNamesRequest offers two MCP tools whose original names break the rule and replays an earlier call of one.
func mcpNamesRequest() (harness.Request, []string) {
	awkward := harness.MCPToolName("my.server", "a.b/c d")
	long := harness.MCPToolName("srv", "a_very_long_tool_name_"+strings.Repeat("x", 48))
	req := harness.Request{Model: "gpt-test", TurnID: "turn_1",
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "go"},
			{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "call_1", Name: awkward, Arguments: json.RawMessage(`{}`)}}},
			{Role: harness.RoleTool, Results: []harness.Result{{CallID: "call_1", Name: awkward, Output: "ok"}}},
		},
		Tools: []harness.Tool{{Name: awkward, Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: long, Parameters: json.RawMessage(`{"type":"object"}`)}}}
	return req, []string{awkward, long}
}

// wireNames collects every string under a "name" key of a decoded request body.
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

func TestMCPToolNamesOnTheOpenAIWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		protocol string
		events   func(name string) []sse
	}{
		{openai.ProtocolResponses, func(name string) []sse {
			return []sse{created, fcAdded(0, "fc_1", "call_9", name), argsDone(0, "fc_1", `{}`), completed}
		}},
		{openai.ProtocolChat, func(name string) []sse {
			return []sse{roleChunk, toolCallStart(0, "call_9", name), toolArgs(0, `{}`), finish("tool_calls"), usageChunk, done}
		}},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			t.Parallel()
			req, mapped := mcpNamesRequest()
			f := newFake(t)
			f.events = tc.events(mapped[1])
			parts, err := modeltest.Collect(t, f.model(t, tc.protocol), req)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			wireNames(f.body, &names)
			if len(names) < 3 {
				t.Fatalf("found only %q on the wire", names)
			}
			for _, n := range names {
				if !openAIFunctionName.MatchString(n) {
					t.Errorf("name %q on the wire breaks OpenAI's rule", n)
				}
			}
			if diff := cmp.Diff(mapped[1], parts[0].Call.Name); diff != "" {
				t.Errorf("the call comes back under the mapped name (-want +got):\n%s", diff)
			}
		})
	}
}
