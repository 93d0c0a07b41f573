package session

import (
	"encoding/json"
	"testing"
)

func TestToolResultIdentity(t *testing.T) {
	t.Parallel()
	base := ToolResult{TurnID: "turn_1", CallID: "call_1", Success: true, Output: json.RawMessage(`"{\"temp_c\":21}"`)}
	cases := []struct {
		name  string
		other ToolResult
		same  bool
	}{
		{"an identical result is the same", base, true},
		{"insignificant whitespace does not matter", ToolResult{TurnID: "turn_1", CallID: "call_1", Success: true, Output: json.RawMessage(` "{\"temp_c\":21}" `)}, true},
		{"a parts output differs from a string output", func() ToolResult {
			a := base
			a.Output = json.RawMessage(`[{"type":"input_text","text":"x"}]`)
			return a
		}(), false},
		{"a different output differs", ToolResult{TurnID: "turn_1", CallID: "call_1", Success: true, Output: json.RawMessage(`"other"`)}, false},
		{"success differs", ToolResult{TurnID: "turn_1", CallID: "call_1", Success: false, Output: base.Output}, false},
		{"an explicit null error differs from an absent one", ToolResult{TurnID: "turn_1", CallID: "call_1", Success: true, Output: base.Output, Error: json.RawMessage(`null`)}, false},
		{"another turn differs", ToolResult{TurnID: "turn_2", CallID: "call_1", Success: true, Output: base.Output}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := base.Identity() == c.other.Identity(); got != c.same {
				t.Errorf("same identity = %v, want %v\n%s\n%s", got, c.same, base.Identity(), c.other.Identity())
			}
		})
	}
}

func TestIdentityIgnoresObjectKeyOrderAndKeepsNumberText(t *testing.T) {
	t.Parallel()
	a := ToolResult{CallID: "c", Success: true, Output: json.RawMessage(`[{"type":"input_text","text":"x"}]`)}
	b := ToolResult{CallID: "c", Success: true, Output: json.RawMessage(`[{"text":"x","type":"input_text"}]`)}
	if a.Identity() != b.Identity() {
		t.Errorf("key order changed the identity:\n%s\n%s", a.Identity(), b.Identity())
	}
	big1 := ToolResult{CallID: "c", Success: true, Output: json.RawMessage(`12345678901234567890`)}
	big2 := ToolResult{CallID: "c", Success: true, Output: json.RawMessage(`12345678901234567891`)}
	if big1.Identity() == big2.Identity() {
		t.Error("numbers beyond binary64 precision compared equal")
	}
}
