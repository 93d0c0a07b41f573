package conformance_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/tests/stack"
)

// Session semantics and cancel (docs/agents-api.md §2.2, §2.6, §4 "Cancel semantics"; docs/agents-api.md §3.1;
// docs/decisions.md §8 and §9).

// executionStatus reads a turn's Step Functions execution (its name is the turn id).
func executionStatus(t *testing.T, ctx context.Context, st *stack.Stack, turnID string) string {
	t.Helper()
	arn := strings.Replace(st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turnID
	out, err := stack.SFN(st).DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("DescribeExecution %s: %v", arn, err)
	}
	return string(out.Status)
}

// TestCancelStopsAParkedTurn: cancel ends a waiting turn `cancelled`, stops its execution (ABORTED), leaves the
// session idle without required actions; the first result after the cancel is 409; an identical retry of a result
// accepted before the cancel is accepted; nothing is replayed.
func TestCancelStopsAParkedTurn(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "two calls please")
	parked := waitSession(t, ctx, client, s.ID, "requires_action", hasStatus("requires_action"))
	if len(parked.RequiredActions) != 2 {
		t.Fatalf("required actions %+v, want two", parked.RequiredActions)
	}
	first, second := parked.RequiredActions[0], parked.RequiredActions[1]
	turnID := first.TurnID
	rec := record(t, ctx, client, s.ID)

	// A partial batch: the first call answered; both stay required until the turn resumes (docs/decisions.md §8).
	postEvents(t, ctx, client, s.ID, toolResult(turnID, first.CallID, "sunny"))
	if got := getSession(t, ctx, client, s.ID); got.Status != "requires_action" || len(got.RequiredActions) != 2 {
		t.Errorf("after a partial batch: %s with %d required actions, want requires_action with 2", got.Status, len(got.RequiredActions))
	}

	postEvents(t, ctx, client, s.ID, cancelInput())
	rec.WaitFor(t, 0, "agent.session.turn.cancelled", isType("agent.session.turn.cancelled"))
	rec.WaitFor(t, 0, "agent.session.idle", isType("agent.session.idle"))

	tr, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, turnID)
	if err != nil {
		t.Fatalf("get turn: %v", describe(err))
	}
	if tr.Status != "cancelled" || tr.CompletedAt == 0 {
		t.Errorf("turn after cancel: %s", tr.RawJSON())
	}
	got := getSession(t, ctx, client, s.ID)
	if got.Status != "idle" || len(got.RequiredActions) != 0 {
		t.Errorf("session after cancel: %s with %+v, want idle without required actions", got.Status, got.RequiredActions)
	}
	waitExecution(t, ctx, st, turnID, "ABORTED")

	// The first result for the other call, after the cancel: 409, not retried.
	r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{map[string]any{
		"type": "agent.session.input.tool_result", "turn_id": turnID, "call_id": second.CallID, "success": true, "output": "rainy"}}})
	wantErrorBody(t, "result after cancel", r, http.StatusConflict,
		errorBody("The Turn cannot accept this input in its current state.", "conflict_error", ptr("conflict_error"), nil))
	wantNoRetry(t, "result after cancel", r)
	// The identical retry of the result accepted before the cancel: accepted.
	r = raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{map[string]any{
		"type": "agent.session.input.tool_result", "turn_id": turnID, "call_id": first.CallID, "success": true, "output": "sunny"}}})
	if r.Status != http.StatusAccepted {
		t.Errorf("identical retry after cancel: %d %s, want 202", r.Status, r.Body)
	}
	// A different result for that call: 409 conflict_error.
	r = raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{map[string]any{
		"type": "agent.session.input.tool_result", "turn_id": turnID, "call_id": first.CallID, "success": true, "output": "changed"}}})
	wantErrorBody(t, "different result", r, http.StatusConflict,
		errorBody("The tool call already has a different result.", "conflict_error", ptr("conflict_error"), nil))
	wantNoRetry(t, "different result", r)

	// Nothing replayed: no function_call_output item, turn still cancelled, session still idle, no new turn.
	items := listItems(t, ctx, client, s.ID)
	if n := countItems(items, "function_call_output"); n > 1 {
		t.Errorf("%d function_call_output items, want at most one", n)
	}
	if turns := listTurns(t, ctx, client, s.ID); len(turns) != 1 || turns[0].Status != "cancelled" {
		t.Errorf("turns %+v, want one cancelled", turns)
	}
	if got := getSession(t, ctx, client, s.ID); got.Status != "idle" {
		t.Errorf("session %s, want idle", got.Status)
	}
	if n := countEvents(rec.Snapshot(), "agent.session.turn.in_progress"); n != 0 {
		t.Errorf("%d turn.in_progress events after the cancel: the turn resumed", n)
	}

	// Cancel on an idle session is a 202 no-op; the session then starts a new turn that completes.
	postEvents(t, ctx, client, s.ID, cancelInput())
	postEvents(t, ctx, client, s.ID, userMessage("hello"))
	waitSession(t, ctx, client, s.ID, "idle after a new turn", func(w wireSession) bool {
		turns := listTurns(t, ctx, client, s.ID)
		return w.Status == "idle" && len(turns) == 2 && turns[1].Status == "completed"
	})
}

// TestEventBatchesAreAtomic: a batch is admitted or rejected as a unit (docs/agents-api.md §4 "Atomic
// batches").
func TestEventBatchesAreAtomic(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)

	t.Run("a rejected batch stores none of its tool results", func(t *testing.T) {
		t.Parallel()
		sid, action := parkedTurn(t, ctx, client)
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+sid+"/events", map[string]any{"events": []any{
			map[string]any{"type": "agent.session.input.tool_result", "turn_id": action.TurnID, "call_id": action.CallID, "success": true, "output": "first"},
			map[string]any{"type": "agent.session.input.message", "input": []any{map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": "while busy"}}}}},
		}})
		if r.Status != http.StatusConflict {
			t.Fatalf("result + message while waiting: %d %s, want 409", r.Status, r.Body)
		}
		if got := getSession(t, ctx, client, sid); got.Status != "requires_action" || len(got.RequiredActions) != 1 {
			t.Errorf("session after the rejected batch: %+v", got)
		}
		// The result was not stored: another result for the call is a first result, not a different one.
		postEvents(t, ctx, client, sid, toolResult(action.TurnID, action.CallID, "second"))
		waitSession(t, ctx, client, sid, "idle", hasStatus("idle"))
		for _, it := range listItems(t, ctx, client, sid) {
			if it.Type == "function_call_output" && string(it.Output) != `"second"` {
				t.Errorf("function_call_output %s, want \"second\"", it.Output)
			}
		}
	})
	t.Run("a message and a cancel in one batch leave a cancelled turn that never started", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "")
		s := newSession(t, ctx, client, a.ID, "")
		postEvents(t, ctx, client, s.ID, userMessage("hello"), cancelInput())
		got := getSession(t, ctx, client, s.ID)
		turns := listTurns(t, ctx, client, s.ID)
		if got.Status != "idle" || len(turns) != 1 || turns[0].Status != "cancelled" {
			t.Fatalf("session %s turns %+v, want idle with one cancelled turn", got.Status, turns)
		}
		arn := strings.Replace(st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turns[0].ID
		if _, err := stack.SFN(st).DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)}); err == nil {
			t.Errorf("turn %s cancelled in its own batch has an execution", turns[0].ID)
		}
	})
}

func countEvents(events []wireEvent, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func waitExecution(t *testing.T, ctx context.Context, st *stack.Stack, turnID, want string) {
	t.Helper()
	var got string
	for range 100 {
		if got = executionStatus(t, ctx, st, turnID); got == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("execution %s: %s, want %s", turnID, got, want)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Errorf("execution of turn %s is %s, want %s", turnID, got, want)
}

// TestSessionStatusFollowsTurns: idle → in_progress → requires_action → in_progress → idle, with required_actions and
// usage in step (usage null while a turn runs, the sum of the turns' usage after).
func TestSessionStatusFollowsTurns(t *testing.T) {
	t.Parallel()
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")
	if s.Status != "idle" {
		t.Fatalf("new session %s, want idle", s.Status)
	}
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("call the tool"))
	ra := rec.WaitFor(t, 0, "agent.session.requires_action", isType("agent.session.requires_action"))
	ev := rec.Snapshot()[ra]
	if ev.Session == nil || ev.Session.Status != "requires_action" || len(ev.Session.RequiredActions) != 1 {
		t.Fatalf("requires_action event session %+v", ev.Session)
	}
	action := ev.Session.RequiredActions[0]
	wantAction := requiredAction{Type: "function_call", TurnID: action.TurnID, CallID: action.CallID, Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}
	if diff := cmp.Diff(wantAction, action); diff != "" {
		t.Errorf("required action (-want +got):\n%s", diff)
	}
	waiting := getSession(t, ctx, client, s.ID)
	if waiting.Status != "requires_action" || waiting.Usage != nil {
		t.Errorf("session while waiting: status %s usage %+v, want requires_action and null usage", waiting.Status, waiting.Usage)
	}
	if tr, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, action.TurnID); err != nil || tr.Status != "waiting" {
		t.Errorf("turn while waiting: %v %v, want waiting", tr, describe(err))
	}

	postEvents(t, ctx, client, s.ID, toolResult(action.TurnID, action.CallID, "sunny"))
	done := rec.WaitFor(t, ra, "agent.session.turn.completed", isType("agent.session.turn.completed"))
	rec.WaitFor(t, done, "agent.session.idle", isType("agent.session.idle"))

	// The session-level events carry the status sequence.
	var statuses []string
	for _, e := range rec.Snapshot() {
		if e.Session != nil && strings.HasPrefix(e.Type, "agent.session.") && !strings.HasPrefix(e.Type, "agent.session.turn.") {
			statuses = append(statuses, e.Session.Status)
			if e.Session.Status != "requires_action" && len(e.Session.RequiredActions) != 0 {
				t.Errorf("%s carries required actions %+v", e.Type, e.Session.RequiredActions)
			}
		}
	}
	if diff := cmp.Diff([]string{"in_progress", "requires_action", "in_progress", "idle"}, statuses); diff != "" {
		t.Errorf("session statuses on the stream (-want +got):\n%s", diff)
	}

	after := getSession(t, ctx, client, s.ID)
	turns := listTurns(t, ctx, client, s.ID)
	if after.Status != "idle" || len(after.RequiredActions) != 0 || len(turns) != 1 || turns[0].Usage == nil {
		t.Fatalf("after the turn: session %+v turns %+v", after, turns)
	}
	if diff := cmp.Diff(turns[0].Usage, after.Usage); diff != "" {
		t.Errorf("session usage after one turn (-turn +session):\n%s", diff)
	}
	if u := after.Usage; u == nil || u.TotalTokens != u.InputTokens+u.OutputTokens || u.TotalTokens == 0 {
		t.Errorf("usage %+v: total must be input + output and nonzero", u)
	}

	// A second turn: the session's usage is the sum.
	postEvents(t, ctx, client, s.ID, userMessage("hello"))
	waitSession(t, ctx, client, s.ID, "idle after the second turn", func(w wireSession) bool {
		return w.Status == "idle" && len(listTurns(t, ctx, client, s.ID)) == 2
	})
	turns = listTurns(t, ctx, client, s.ID)
	final := getSession(t, ctx, client, s.ID)
	want := wireUsage{InputTokens: turns[0].Usage.InputTokens + turns[1].Usage.InputTokens,
		OutputTokens: turns[0].Usage.OutputTokens + turns[1].Usage.OutputTokens}
	want.TotalTokens = want.InputTokens + want.OutputTokens
	if final.Usage == nil || *final.Usage != want {
		t.Errorf("session usage after two turns %+v, want %+v", final.Usage, want)
	}
}

// TestUsageIsNullWhenATurnIsUnmeasured: a turn that ends without measured usage leaves its own and the session's
// usage null — unknown, never zero (docs/agents-api.md §2.2).
func TestUsageIsNullWhenATurnIsUnmeasured(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	script := toolScript()
	script["omit_usage"] = true
	r := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{"model": "scripted",
		"x_baton": map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": script}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	s := newSession(t, ctx, client, decodeJSON[map[string]any](t, r.Body)["id"].(string), "hello")
	got := waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
	turns := listTurns(t, ctx, client, s.ID)
	if got.Usage != nil || len(turns) != 1 || turns[0].Usage != nil {
		t.Errorf("session usage %+v, turns %+v: want null usage everywhere", got.Usage, turns)
	}
}

// TestFailedTurnLeavesTheSessionUsable: a model failure fails the turn and the session (`failed`, an error), and the
// next message starts a new turn that completes.
func TestFailedTurnLeavesTheSessionUsable(t *testing.T) {
	t.Parallel()
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "please fail")
	failed := waitSession(t, ctx, client, s.ID, "failed", hasStatus("failed"))
	if failed.Error == nil || *failed.Error == "" || len(failed.RequiredActions) != 0 {
		t.Errorf("failed session: error %v required actions %+v, want an error and none", failed.Error, failed.RequiredActions)
	}
	turns := listTurns(t, ctx, client, s.ID)
	if len(turns) != 1 || turns[0].Status != "failed" {
		t.Fatalf("turns %+v, want one failed", turns)
	}
	tr, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, turns[0].ID)
	if err != nil {
		t.Fatalf("get turn: %v", describe(err))
	}
	if tr.Error.Code == "" || tr.Error.Message == "" {
		t.Errorf("failed turn error %s, want code and message", tr.RawJSON())
	}

	postEvents(t, ctx, client, s.ID, userMessage("hello again"))
	recovered := waitSession(t, ctx, client, s.ID, "idle", func(w wireSession) bool {
		return w.Status == "idle" && len(listTurns(t, ctx, client, s.ID)) == 2
	})
	turns = listTurns(t, ctx, client, s.ID)
	if turns[1].Status != "completed" || recovered.Error != nil {
		t.Errorf("after the failure: turns %+v session error %v, want the new turn completed and no session error", turns, recovered.Error)
	}
}
