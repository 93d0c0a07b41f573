package reconcile

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/tests/stack"
)

// TestAStartedTurnWhoseExecutionEndedIsSettledAsFailed: an execution that ends without its Settle state (stopped
// out of band, or Settle failing for good) must not leave the Session busy forever. The reconciler finds the
// started, non-terminal turn, sees its execution ended, and settles it as failed; the Session is usable again.
func TestAStartedTurnWhoseExecutionEndedIsSettledAsFailed(t *testing.T) {
	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agentBody := map[string]any{
		"model": "scripted",
		"tools": []any{map[string]any{"type": "function", "name": "lookup", "description": "Look up",
			"parameters": map[string]any{"type": "object"}}},
		"x_baton": map[string]any{"script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "look"}, "calls": []any{map[string]any{"name": "lookup", "arguments": map[string]any{}}}},
		}}},
	}
	r := st.Do(t, "POST", "/v1/agents", agentBody, nil)
	var ag struct{ ID string }
	_ = json.Unmarshal(r.Body, &ag)
	r = st.Do(t, "POST", "/v1/agents/sessions", map[string]any{"agent_id": ag.ID, "environment": map[string]any{"type": "none"}, "input": "look it up"}, nil)
	if r.Status != 201 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var sess struct{ ID string }
	_ = json.Unmarshal(r.Body, &sess)
	type view struct {
		Status          string `json:"status"`
		RequiredActions []struct {
			TurnID string `json:"turn_id"`
		} `json:"required_actions"`
	}
	waitFor := func(status string) view {
		t.Helper()
		for {
			var v view
			_ = json.Unmarshal(st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID, nil, nil).Body, &v)
			if v.Status == status {
				return v
			}
			if ctx.Err() != nil {
				t.Fatalf("session never became %s (last %s)", status, v.Status)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	turnID := waitFor("requires_action").RequiredActions[0].TurnID

	// End the execution behind Baton's back.
	sf := stack.SFN(st)
	arn := strings.Replace(st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turnID
	if _, err := sf.StopExecution(ctx, &awssfn.StopExecutionInput{ExecutionArn: aws.String(arn), Error: aws.String("Operator"), Cause: aws.String("stopped out of band")}); err != nil {
		t.Fatalf("stop execution: %v", err)
	}
	if v := waitFor("requires_action"); v.Status != "requires_action" {
		t.Fatalf("the turn changed by itself: %s", v.Status)
	}

	n, err := stack.Deps(st, nil).Engine.Reconcile(ctx, 0)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if n < 1 {
		t.Fatalf("reconcile acted on %d turns, want the stopped one", n)
	}
	waitFor("failed")
	var turn struct{ Status string }
	_ = json.Unmarshal(st.Do(t, "GET", "/v1/agents/sessions/"+sess.ID+"/turns/"+turnID, nil, nil).Body, &turn)
	if turn.Status != "failed" {
		t.Errorf("turn is %s, want failed", turn.Status)
	}
	// The Session is usable again: new input starts a new turn.
	r = st.Do(t, "POST", "/v1/agents/sessions/"+sess.ID+"/events", map[string]any{"events": []any{map[string]any{
		"type": "agent.session.input.message", "input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "look again"}}}}}}}, nil)
	if r.Status != 202 {
		t.Fatalf("new input after the failed turn: %d %s", r.Status, r.Body)
	}
	if next := waitFor("requires_action").RequiredActions[0].TurnID; next == turnID {
		t.Errorf("the new input did not start a new turn")
	}
}
