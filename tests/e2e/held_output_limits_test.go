package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/store/dynamo"
	"github.com/baton-run/baton/tests/stack"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parkAndAnswer parks run's turn on n calls and answers every call; it returns nothing: the caller resumes.
func parkAndAnswer(t *testing.T, ctx context.Context, eng *engine.Engine, run *engine.Run, n int, prefix string) {
	t.Helper()
	var calls []engine.PendingCall
	for i := range n {
		calls = append(calls, engine.PendingCall{CallID: fmt.Sprintf("%s_%d", prefix, i), Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	round, err := run.RequestCalls(ctx, calls)
	if err != nil {
		t.Fatalf("request %d calls: %v", n, err)
	}
	sid, tid := run.Session.ID, run.Turn.ID
	if err := eng.Park(ctx, sid, tid, round, fmt.Sprintf("token-%s-%d", sid, round)); err != nil {
		t.Fatal(err)
	}
	var res []session.Input
	for _, c := range calls {
		res = append(res, session.Input{Type: session.InputToolResult, ToolResult: &session.ToolResult{TurnID: tid, CallID: c.CallID, Success: true, Output: json.RawMessage(`"ok"`)}})
	}
	if err := eng.PostEvents(ctx, heldProject, sid, res, "", ""); err != nil {
		t.Fatalf("post %d results: %v", n, err)
	}
}

// TestAResumeOfSixtyFourResultsThenSeventeenCallsFitsItsTransactions: a round of 64 calls is answered; the resumed run's model asks for 17
// more calls. The resume's 64 function_call_output items are too many to ride on RequestCalls' single commit (17
// CALL records + 17 items) within DynamoDB's 100-action limit, so the resume commits on its own (engine.holdable).
func TestAResumeOfSixtyFourResultsThenSeventeenCallsFitsItsTransactions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng, _, run := runningTurn(t, ctx, time.Hour)
	parkAndAnswer(t, ctx, eng, run, 64, "a")
	resumed, err := eng.BeginRun(ctx, run.Session.ID, run.Turn.ID)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	var calls []engine.PendingCall
	for i := range 17 {
		calls = append(calls, engine.PendingCall{CallID: fmt.Sprintf("b_%d", i), Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	if _, err := resumed.RequestCalls(ctx, calls); err != nil {
		t.Fatalf("the resumed run's 17 calls: %v", err)
	}
}

// TestAResumeOfNinetySevenResultsThenAnAnswerFitsItsTransactions: a round of 97 calls (the most a resume commit
// holds with the Session and the turn) is answered; the resumed run answers with one message and completes.
func TestAResumeOfNinetySevenResultsThenAnAnswerFitsItsTransactions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng, _, run := runningTurn(t, ctx, time.Hour)
	parkAndAnswer(t, ctx, eng, run, 97, "a")
	resumed, err := eng.BeginRun(ctx, run.Session.ID, run.Turn.ID)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	id, err := resumed.StartMessage(ctx, session.PhaseFinalAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.FinishMessage(ctx, id, "done"); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Complete(ctx); err != nil {
		t.Fatalf("complete after resuming 97 results: %v", err)
	}
	turn, err := eng.GetTurn(ctx, heldProject, run.Session.ID, run.Turn.ID)
	if err != nil || turn.Status != session.TurnCompleted {
		t.Errorf("turn %s, %v; want completed", turn.Status, err)
	}
}

// TestAResumedRunsHistoryIsTheStoresInTheSameProcess: a run parks on a call whose arguments (as the model wrote
// them) and an MCP call whose output carry insignificant whitespace; the result is posted with whitespace too. The
// resume in the same process (history cache) and the resume's applied items equal what the store holds, byte for
// byte (the store compacts raw JSON; so does the run's history).
func TestAResumedRunsHistoryIsTheStoresInTheSameProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng, _, run := runningTurn(t, ctx, time.Hour)
	mid, err := run.StartMCPCall(ctx, engine.MCPCall{CallID: "mcp_1", ServerLabel: "srv", Name: "echo", Arguments: json.RawMessage(`{ "text" : "x" }`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.FinishMCPCall(ctx, mid, json.RawMessage(`{ "content" : [ ] }`), nil, false); err != nil {
		t.Fatal(err)
	}
	sid, tid := answerOneCall(t, ctx, eng, run, `{ "a" : 1 }`, `{ "b" : 2 }`)
	requireHistoryAsStored(t, ctx, beginAsARuntime(t, ctx, eng, sid, tid))
}

// TestAResumedRunsHistoryIsTheStoresInAnotherProcess: as TestAResumedRunsHistoryIsTheStoresInTheSameProcess, with
// the resume in another process (no history cache): the applied function_call_output items come from the stored
// results and are shown as the store will hold them.
func TestAResumedRunsHistoryIsTheStoresInAnotherProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eng, _, run := runningTurn(t, ctx, time.Hour)
	sid, tid := answerOneCall(t, ctx, eng, run, `{"a":1}`, `{ "b" : 2 }`)
	st := stack.Shared(t)
	other := engine.New(engine.Options{Store: dynamo.New(stack.DynamoDB(st), st.Table), Orchestrator: &faultyOrch{}})
	resumed, err := other.BeginRun(ctx, sid, tid)
	if err != nil {
		t.Fatal(err)
	}
	requireHistoryAsStored(t, ctx, resumed)
}

// answerOneCall parks run's turn on one call with the given arguments, stores its task token and answers the call
// with output (both raw JSON, whitespace kept), and returns the Session and turn ids.
func answerOneCall(t *testing.T, ctx context.Context, eng *engine.Engine, run *engine.Run, arguments, output string) (string, string) {
	t.Helper()
	sid, tid := run.Session.ID, run.Turn.ID
	round, err := run.RequestCalls(ctx, []engine.PendingCall{{CallID: "call_ws", Name: "f", Arguments: json.RawMessage(arguments)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Park(ctx, sid, tid, round, "token-ws-"+sid); err != nil {
		t.Fatal(err)
	}
	res := session.Input{Type: session.InputToolResult, ToolResult: &session.ToolResult{TurnID: tid, CallID: "call_ws", Success: true, Output: json.RawMessage(output)}}
	if err := eng.PostEvents(ctx, heldProject, sid, []session.Input{res}, "", ""); err != nil {
		t.Fatal(err)
	}
	return sid, tid
}

// beginAsARuntime begins a run of the turn as a runtime does: PeekTurn, then BeginRunFrom that peek.
func beginAsARuntime(t *testing.T, ctx context.Context, eng *engine.Engine, sessionID, turnID string) *engine.Run {
	t.Helper()
	peek, err := eng.PeekTurn(ctx, sessionID, turnID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := eng.BeginRunFrom(ctx, peek)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// requireHistoryAsStored writes what run holds (its resume) and checks that its history is the Session's items as
// the table holds them.
func requireHistoryAsStored(t *testing.T, ctx context.Context, run *engine.Run) {
	t.Helper()
	if err := run.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s, _, history := run.Snapshot()
	st := stack.Shared(t)
	stored, err := dynamo.New(stack.DynamoDB(st), st.Table).ItemsOfSession(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stored, history, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the run's history differs from the store's (-store +run):\n%s", diff)
	}
}
