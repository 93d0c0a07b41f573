package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-run/baton/tests/stack"
)

// TestThirtyParallelCallsParkAndResumeOnce: a response with more calls than fit in one DynamoDB transaction is
// stored in chunks (calls first, then items and events, requires_action last); every call is a required action in
// call order, one batch answers them all, the turn resumes once and the answer sees every output.
func TestThirtyParallelCallsParkAndResumeOnce(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	const n = 30
	sessionID, actions := callsTurn(t, st, "lookup", n, "{{len .Tools}} outputs")
	if len(actions) != n {
		t.Fatalf("%d required actions, want %d", len(actions), n)
	}
	var events []any
	for i, a := range actions {
		if want := fmt.Sprintf(`{"n":%d}`, i+1); string(a.Arguments) != want {
			t.Errorf("required action %d has arguments %s, want %s (call order)", i, a.Arguments, want)
		}
		events = append(events, map[string]any{"type": "agent.session.input.tool_result", "turn_id": a.TurnID, "call_id": a.CallID,
			"success": true, "output": fmt.Sprintf("v%d", i+1)})
	}
	deadline := time.Now().Add(testTimeout)
	if r := st.Do(t, "POST", "/v1/agents/sessions/"+sessionID+"/events", map[string]any{"events": events}, nil); r.Status != 202 {
		t.Fatalf("post %d results: %d %s", n, r.Status, r.Body)
	}
	turnID := actions[0].TurnID
	var turn struct{ Status string }
	var r stack.Response
	for {
		r = st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/turns/"+turnID, nil, nil)
		_ = json.Unmarshal(r.Body, &turn)
		if turn.Status == "completed" {
			break
		}
		if time.Now().After(deadline) || turn.Status == "failed" {
			t.Fatalf("turn is %s: %s", turn.Status, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r = st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/items?order=asc&limit=100", nil, nil)
	var items struct {
		Data []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"data"`
	}
	_ = json.Unmarshal(r.Body, &items)
	count := map[string]int{}
	last := ""
	for _, it := range items.Data {
		count[it.Type]++
		if it.Type == "message" && len(it.Content) > 0 {
			last = it.Content[0].Text
		}
	}
	if count["function_call"] != n || count["function_call_output"] != n {
		t.Errorf("items: %v, want %d function calls and %d outputs", count, n, n)
	}
	if !strings.Contains(last, fmt.Sprintf("%d outputs", n)) {
		t.Errorf("final answer %q does not see all %d outputs", last, n)
	}
}
