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
	var calls []any
	for i := 1; i <= n; i++ {
		calls = append(calls, map[string]any{"name": "lookup", "arguments": map[string]any{"n": i}})
	}
	agentBody := map[string]any{
		"model": "scripted",
		"tools": []any{map[string]any{"type": "function", "name": "lookup", "description": "Look a number up",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}},
		"x_baton": map[string]any{"script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "many"}, "calls": calls},
			map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": "{{len .Tools}} outputs"},
		}}},
	}
	r := st.Do(t, "POST", "/v1/agents", agentBody, nil)
	if r.Status != 201 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var ag struct{ ID string }
	_ = json.Unmarshal(r.Body, &ag)
	r = st.Do(t, "POST", "/v1/agents/sessions", map[string]any{"agent_id": ag.ID, "environment": map[string]any{"type": "none"}, "input": "many lookups"}, nil)
	if r.Status != 201 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var sess struct{ ID string }
	_ = json.Unmarshal(r.Body, &sess)

	type action struct {
		TurnID    string          `json:"turn_id"`
		CallID    string          `json:"call_id"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var s struct {
		Status          string   `json:"status"`
		RequiredActions []action `json:"required_actions"`
	}
	deadline := time.Now().Add(testTimeout)
	for {
		r = st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID, nil, nil)
		_ = json.Unmarshal(r.Body, &s)
		if s.Status == "requires_action" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no requires_action: %s", r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(s.RequiredActions) != n {
		t.Fatalf("%d required actions, want %d", len(s.RequiredActions), n)
	}
	var events []any
	for i, a := range s.RequiredActions {
		if want := fmt.Sprintf(`{"n":%d}`, i+1); string(a.Arguments) != want {
			t.Errorf("required action %d has arguments %s, want %s (call order)", i, a.Arguments, want)
		}
		events = append(events, map[string]any{"type": "agent.session.input.tool_result", "turn_id": a.TurnID, "call_id": a.CallID,
			"success": true, "output": fmt.Sprintf("v%d", i+1)})
	}
	if r = st.Do(t, "POST", "/v1/agents/sessions/"+sess.ID+"/events", map[string]any{"events": events}, nil); r.Status != 202 {
		t.Fatalf("post %d results: %d %s", n, r.Status, r.Body)
	}
	turnID := s.RequiredActions[0].TurnID
	var turn struct{ Status string }
	for {
		r = st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID+"/turns/"+turnID, nil, nil)
		_ = json.Unmarshal(r.Body, &turn)
		if turn.Status == "completed" {
			break
		}
		if time.Now().After(deadline) || turn.Status == "failed" {
			t.Fatalf("turn is %s: %s", turn.Status, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r = st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID+"/items?order=asc&limit=100", nil, nil)
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
