package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-run/baton/tests/stack"
)

// pendingAction is one entry of a Session's required_actions.
type pendingAction struct {
	TurnID    string          `json:"turn_id"`
	CallID    string          `json:"call_id"`
	Arguments json.RawMessage `json:"arguments"`
}

// callsTurn creates a scripted agent whose function `name` is called n times in one response (arguments
// {"n": 1..n}) and that replies with reply after the tools, opens a session with input that triggers it, and waits
// for requires_action. It returns the session id and the required actions in call order.
func callsTurn(t *testing.T, st *stack.Stack, name string, n int, reply string) (string, []pendingAction) {
	t.Helper()
	var calls []any
	for i := 1; i <= n; i++ {
		calls = append(calls, map[string]any{"name": name, "arguments": map[string]any{"n": i}})
	}
	agentBody := map[string]any{
		"model": "scripted",
		"tools": []any{map[string]any{"type": "function", "name": name, "description": "A function of the test",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}},
		"x_baton": map[string]any{"script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "go"}, "calls": calls},
			map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": reply},
		}}},
	}
	r := st.Do(t, "POST", "/v1/agents", agentBody, nil)
	if r.Status != 201 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var ag struct{ ID string }
	_ = json.Unmarshal(r.Body, &ag)
	r = st.Do(t, "POST", "/v1/agents/sessions", map[string]any{"agent_id": ag.ID, "environment": map[string]any{"type": "none"}, "input": "go"}, nil)
	if r.Status != 201 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var sess struct{ ID string }
	_ = json.Unmarshal(r.Body, &sess)
	var s struct {
		Status          string          `json:"status"`
		RequiredActions []pendingAction `json:"required_actions"`
	}
	deadline := time.Now().Add(testTimeout)
	for {
		r = st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID, nil, nil)
		_ = json.Unmarshal(r.Body, &s)
		if s.Status == "requires_action" {
			return sess.ID, s.RequiredActions
		}
		if time.Now().After(deadline) {
			t.Fatalf("no requires_action: %s", r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answerAllAndSettle posts one result per action with the given output, then waits for the turn to end and
// returns the POST status and the turn's final status.
func answerAllAndSettle(t *testing.T, st *stack.Stack, sessionID string, actions []pendingAction, output string) (int, string, string) {
	t.Helper()
	var events []any
	for _, a := range actions {
		events = append(events, map[string]any{"type": "agent.session.input.tool_result", "turn_id": a.TurnID, "call_id": a.CallID,
			"success": true, "output": output})
	}
	// Send '<' as is (encoding/json would escape it to \u003c and inflate the body 6x before the server sees it).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"events": events}); err != nil {
		t.Fatal(err)
	}
	t.Logf("request body: %d bytes", buf.Len())
	r := st.Do(t, "POST", "/v1/agents/sessions/"+sessionID+"/events", buf.Bytes(), map[string]string{"Content-Type": "application/json"})
	if r.Status != 202 {
		return r.Status, "", string(r.Body)
	}
	var turn struct{ Status string }
	deadline := time.Now().Add(testTimeout)
	for {
		r = st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/turns/"+actions[0].TurnID, nil, nil)
		_ = json.Unmarshal(r.Body, &turn)
		switch turn.Status {
		case "completed", "failed", "cancelled":
			return 202, turn.Status, string(r.Body)
		}
		if time.Now().After(deadline) {
			return 202, turn.Status, string(r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestLargeToolResultsAreAppliedOrRefusedUpFront: a tool result the API accepts (202) must be applied, and one it
// cannot store is refused before anything is written. Outputs are stored and carried as sent — HTML-like text is
// not re-escaped (encoding/json would grow '<' to \u003c, 6×) — so a 140 KB HTML-like output and 64 outputs of
// 14 KB (an 896 KB body) fit DynamoDB's 400 KB item and 4 MB transaction limits and the turn completes; an output
// over the documented 256 KiB bound is 400 and the call stays pending.
func TestLargeToolResultsAreAppliedOrRefusedUpFront(t *testing.T) {
	st := stack.Shared(t)
	cases := []struct {
		name       string
		calls      int
		output     string
		wantStatus int
	}{
		{"one 140 KB html-like output completes the turn", 1, strings.Repeat("<>", 70_000), 202},
		{"64 outputs of 14 KB complete the turn", 64, strings.Repeat("<", 14_000), 202},
		{"an output over 256 KiB is refused and nothing is written", 1, strings.Repeat("x", 300_000), 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sid, actions := callsTurn(t, st, "fetch", c.calls, "done")
			if len(actions) != c.calls {
				t.Fatalf("%d required actions, want %d", len(actions), c.calls)
			}
			code, status, body := answerAllAndSettle(t, st, sid, actions, c.output)
			if code != c.wantStatus {
				t.Fatalf("POST results = %d, want %d: %s", code, c.wantStatus, truncate(body, 400))
			}
			if code == 202 && status != "completed" {
				t.Fatalf("results accepted (202) but the turn ended %q: %s", status, truncate(body, 400))
			}
			if code == 400 {
				r := st.Do(t, "GET", "/v1/agents/sessions/"+sid, nil, nil)
				var s struct {
					Status          string            `json:"status"`
					RequiredActions []json.RawMessage `json:"required_actions"`
				}
				_ = json.Unmarshal(r.Body, &s)
				if s.Status != "requires_action" || len(s.RequiredActions) != c.calls {
					t.Errorf("after the refused result the session is %s with %d required actions, want requires_action with %d", s.Status, len(s.RequiredActions), c.calls)
				}
			}
		})
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}
