package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/store/dynamo"
	"github.com/baton-run/baton/tests/stack"
)

// faultyOrch is an engine.Orchestrator that injects SendTaskSuccess failures (Resume fails while failResume > 0)
// and records the tokens it sent; Step Functions itself cannot be made to fail on demand.
type faultyOrch struct {
	mu         sync.Mutex
	failResume int
	resumeOK   []string
	resumeErr  int
}

func (o *faultyOrch) StartTurn(_ context.Context, in engine.TurnExecution) (string, error) {
	return "arn:aws:states:us-east-1:000000000000:execution:review:" + in.TurnID, nil
}

func (o *faultyOrch) Resume(_ context.Context, token string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failResume > 0 {
		o.failResume--
		o.resumeErr++
		return errors.New("SendTaskSuccess: transient network error")
	}
	o.resumeOK = append(o.resumeOK, token)
	return nil
}

func (o *faultyOrch) StopTurn(context.Context, string, string, string) error { return nil }

// ExecutionState: every execution of this fake runs (the reconciler leaves other turns alone).
func (o *faultyOrch) ExecutionState(context.Context, string, string) (engine.ExecutionState, error) {
	return engine.ExecutionRunning, nil
}

// sent counts the successful sends of one token.
func (o *faultyOrch) sent(token string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, tok := range o.resumeOK {
		if tok == token {
			n++
		}
	}
	return n
}

func (o *faultyOrch) counts() (ok, failed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.resumeOK), o.resumeErr
}

// clock is a settable engine clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// waitingTurn builds, directly on the engine over the shared stack's table, a Session whose Turn waits in
// round 1 on one call "call_a", with token parked for round 1. The engine's orchestrator is orch, a fault
// injector for SendTaskSuccess (no real execution runs), and its clock is clk.
func waitingTurn(t *testing.T, ctx context.Context, orch engine.Orchestrator, clk *clock, token string) (*engine.Engine, string, string) {
	t.Helper()
	st := stack.Shared(t)
	store := dynamo.New(stack.DynamoDB(st), st.Table)
	eng := engine.New(engine.Options{Store: store, Orchestrator: orch, Clock: clk.Now})
	project := "proj_resume_recovery"
	s, _, err := eng.CreateSession(ctx, project, engine.NewSession{Inline: engine.RawObject{"model": json.RawMessage(`"scripted"`)}})
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	msg := session.Input{Type: session.InputMessage, Message: []session.ContentPart{{Type: "input_text", Text: "hi"}}}
	if err := eng.PostEvents(ctx, project, s.ID, []session.Input{msg}, "", ""); err != nil {
		t.Fatalf("post message: %v", err)
	}
	s, err = eng.GetSession(ctx, project, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := eng.BeginRun(ctx, s.ID, s.ActiveTurnID)
	if err != nil {
		t.Fatalf("begin run: %v", err)
	}
	if _, err := run.RequestCalls(ctx, []engine.PendingCall{{CallID: "call_a", Name: "f", Arguments: json.RawMessage(`{}`)}}); err != nil {
		t.Fatalf("request calls: %v", err)
	}
	if err := eng.Park(ctx, s.ID, s.ActiveTurnID, 1, token); err != nil {
		t.Fatalf("park: %v", err)
	}
	return eng, s.ID, s.ActiveTurnID
}

// TestAResumeWhoseSendFailedIsSentAgain: the completing tool-result write claims the resume and every
// SendTaskSuccess attempt fails (throttling, network, a dying process). The result stays accepted, and the claim
// does not strand the turn: once the claim is older than the grace period, an identical retry of the result — or
// the reconciler — sends the token again; within the grace period nothing is sent twice.
func TestAResumeWhoseSendFailedIsSentAgain(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"identical retry", "reconciler"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			clk := &clock{now: time.Now()}
			orch := &faultyOrch{failResume: 3} // more failures than the inline retries
			token := "token-" + strings.ReplaceAll(via, " ", "-") + "-" + time.Now().Format("150405.000000")
			eng, sid, tid := waitingTurn(t, ctx, orch, clk, token)
			project := "proj_resume_recovery"
			res := session.Input{Type: session.InputToolResult, ToolResult: &session.ToolResult{TurnID: tid, CallID: "call_a", Success: true, Output: json.RawMessage(`"42"`)}}
			if err := eng.PostEvents(ctx, project, sid, []session.Input{res}, "", ""); err != nil {
				t.Fatalf("post result: %v (the result is stored; a failed resume must not fail the request)", err)
			}
			if ok, failed := orch.counts(); ok != 0 || failed != 3 {
				t.Fatalf("after the first result: %d successful and %d failed sends, want 0 and 3", ok, failed)
			}
			// Within the grace period an identical retry is accepted and sends nothing (the claimant owns the send).
			if err := eng.PostEvents(ctx, project, sid, []session.Input{res}, "", ""); err != nil {
				t.Fatalf("identical retry: %v", err)
			}
			if n := orch.sent(token); n != 0 {
				t.Fatalf("an identical retry within the grace period sent the token %d times", n)
			}
			clk.Advance(time.Minute)
			switch via {
			case "identical retry":
				if err := eng.PostEvents(ctx, project, sid, []session.Input{res}, "", ""); err != nil {
					t.Fatalf("identical retry after the grace period: %v", err)
				}
			case "reconciler":
				if _, err := eng.Reconcile(ctx, 30*time.Second); err != nil {
					t.Fatalf("reconcile: %v", err)
				}
			}
			// (The reconciler also re-sends stale claims of other tests' turns on the shared table; count this one's.)
			if n := orch.sent(token); n != 1 {
				t.Fatalf("the parked token was sent %d times after the grace period via the %s, want 1", n, via)
			}
		})
	}
}
