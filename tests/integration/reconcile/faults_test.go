package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/tests/stack"
)

// parkedSession creates a Session whose first turn parks on one call of the function lookup and returns the
// Session and Turn ids and the call id.
func parkedSession(t *testing.T, ctx context.Context, st *stack.Stack, agentID string) (sessionID, turnID, callID string) {
	t.Helper()
	r := st.Do(t, "POST", "/v1/agents/sessions", map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"}, "input": "look it up"}, nil)
	if r.Status != 201 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var sess struct{ ID string }
	_ = json.Unmarshal(r.Body, &sess)
	v := waitStatus(t, ctx, st, sess.ID, "requires_action")
	turnID = v.RequiredActions[0].TurnID
	// requires_action is visible once the runtime journals the calls, before Park stores the task token; these
	// tests inject faults into the resume, which only the result that finds the token stored sends.
	store := setup.New(setup.Config{Table: st.Table, Endpoints: setup.Endpoints{DynamoDB: st.DynamoDBURL}},
		aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}, nil).Store
	for {
		turn, err := store.GetTurn(ctx, sess.ID, turnID)
		if err == nil && turn.TaskToken != "" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("turn %s never parked (task token stored): %v", turnID, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return sess.ID, turnID, v.RequiredActions[0].CallID
}

type sessionView struct {
	Status          string `json:"status"`
	RequiredActions []struct {
		TurnID string `json:"turn_id"`
		CallID string `json:"call_id"`
	} `json:"required_actions"`
}

func waitStatus(t *testing.T, ctx context.Context, st *stack.Stack, sessionID, status string) sessionView {
	t.Helper()
	for {
		var v sessionView
		_ = json.Unmarshal(st.Do(t, "GET", "/v1/agents/sessions/"+sessionID, nil, nil).Body, &v)
		if v.Status == status {
			return v
		}
		if ctx.Err() != nil {
			t.Fatalf("session %s never became %s (last %s)", sessionID, status, v.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func lookupAgent(t *testing.T, st *stack.Stack) string {
	t.Helper()
	r := st.Do(t, "POST", "/v1/agents", map[string]any{
		"model": "scripted",
		"tools": []any{map[string]any{"type": "function", "name": "lookup", "description": "Look up",
			"parameters": map[string]any{"type": "object"}}},
		"x_baton": map[string]any{"script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "look"}, "calls": []any{map[string]any{"name": "lookup", "arguments": map[string]any{}}}},
			map[string]any{"when": map[string]any{"after_tool": "lookup"}, "reply": "found it"},
		}}},
	}, nil)
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var ag struct{ ID string }
	_ = json.Unmarshal(r.Body, &ag)
	return ag.ID
}

func resultEvent(turnID, callID string) map[string]any {
	return map[string]any{"events": []any{map[string]any{"type": "agent.session.input.tool_result", "turn_id": turnID,
		"call_id": callID, "success": true, "output": "42"}}}
}

// inProcessEngine is an engine on the stack's table whose Step Functions requests go to sfnURL.
func inProcessEngine(t *testing.T, st *stack.Stack, sfnURL string) *engine.Engine {
	t.Helper()
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	return setup.New(setup.Config{Table: st.Table, StateMachineARNs: st.StateMachineARNs,
		Endpoints: setup.Endpoints{DynamoDB: st.DynamoDBURL, SFN: sfnURL}}, awsCfg, nil).Engine
}

func stopExecution(t *testing.T, ctx context.Context, st *stack.Stack, turnID string) {
	t.Helper()
	arn := strings.Replace(st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turnID
	if _, err := stack.SFN(st).StopExecution(ctx, &awssfn.StopExecutionInput{ExecutionArn: aws.String(arn), Error: aws.String("Operator"), Cause: aws.String("stopped out of band")}); err != nil {
		t.Fatalf("stop execution: %v", err)
	}
}

// TestAResultAcceptedAfterTheExecutionEndedDoesNotStrandTheSession: the waiting turn's execution is stopped (as an
// await timeout or an operator would), then its tool result arrives and is accepted (Baton cannot know). The turn
// now has every result and a dead token; the reconciler must see that its execution ended and settle it, so the
// Session does not show requires_action forever.
func TestAResultAcceptedAfterTheExecutionEndedDoesNotStrandTheSession(t *testing.T) {
	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessionID, turnID, callID := parkedSession(t, ctx, st, lookupAgent(t, st))
	stopExecution(t, ctx, st, turnID)
	if r := st.Do(t, "POST", "/v1/agents/sessions/"+sessionID+"/events", resultEvent(turnID, callID), nil); r.Status != 202 {
		t.Fatalf("tool result: %d %s", r.Status, r.Body)
	}
	eng := inProcessEngine(t, st, st.SFNURL)
	if _, err := eng.Reconcile(ctx, 0); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	waitStatus(t, ctx, st, sessionID, "failed")
	r := st.Do(t, "POST", "/v1/agents/sessions/"+sessionID+"/events", map[string]any{"events": []any{map[string]any{
		"type": "agent.session.input.message", "input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "look again"}}}}}}}, nil)
	if r.Status != 202 {
		t.Fatalf("new input after the settled turn: %d %s", r.Status, r.Body)
	}
}

// faultySFN is a proxy in front of the Step Functions endpoint that fails every SendTaskSuccess while failing is
// set, with a 500 the SDK retries (and then gives up on).
type faultySFN struct {
	failing atomic.Bool
	failed  atomic.Int64
	sent    atomic.Int64
	url     string
}

func newFaultySFN(t *testing.T, target string) *faultySFN {
	t.Helper()
	f := &faultySFN{}
	f.url = stack.TaskSuccessProxy(t, target, func([]byte) (int, string) {
		if f.failing.Load() {
			f.failed.Add(1)
			return http.StatusInternalServerError, `{"__type":"InternalFailure","message":"injected"}`
		}
		f.sent.Add(1)
		return 0, ""
	})
	return f
}

// TestAFailedResumeIsRepaired: the tool result that completes the round is committed and claims the resume, but
// every SendTaskSuccess fails (a fault-injecting proxy in front of the Step Functions endpoint). The caller's
// request still succeeds (the result is durable); the turn is marked for the reconciler, whose pass after the
// claim went stale sends the token again, and the turn completes. Exactly one resume reaches Step Functions.
func TestAFailedResumeIsRepaired(t *testing.T) {
	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessionID, turnID, callID := parkedSession(t, ctx, st, lookupAgent(t, st))
	var project string
	{
		var err error
		eng := inProcessEngine(t, st, st.SFNURL)
		if project, err = eng.Authenticate(ctx, st.APIKey); err != nil {
			t.Fatal(err)
		}
	}
	proxy := newFaultySFN(t, st.SFNURL)
	proxy.failing.Store(true)
	eng := inProcessEngine(t, st, proxy.url)
	in := []session.Input{{Type: session.InputToolResult, ToolResult: &session.ToolResult{TurnID: turnID, CallID: callID, Success: true, Output: json.RawMessage(`"42"`)}}}
	if err := eng.PostEvents(ctx, project, sessionID, in, "", ""); err != nil {
		t.Fatalf("post the result: %v", err)
	}
	if proxy.failed.Load() == 0 {
		t.Fatal("the completing result sent no SendTaskSuccess")
	}
	if v := waitStatus(t, ctx, st, sessionID, "requires_action"); len(v.RequiredActions) != 1 {
		t.Fatalf("required actions = %+v", v.RequiredActions)
	}
	// A pass while the claim is fresh leaves it to its claimant.
	if _, err := eng.Reconcile(ctx, 0); err != nil {
		t.Fatal(err)
	}
	proxy.failing.Store(false)
	time.Sleep(6 * time.Second) // the claim goes stale (resumeGrace, 5 s)
	if _, err := eng.Reconcile(ctx, 0); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, st, sessionID, "idle")
	if n := proxy.sent.Load(); n != 1 {
		t.Errorf("SendTaskSuccess reached Step Functions %d times, want 1", n)
	}
}

// TestTheReconcilerSeesEveryMarkedTurn: 101 Sessions parked on required actions (normal load) and one more whose
// execution was stopped; the reconciler's pass must reach the stopped one however many turns precede it in its
// index, and settle it.
func TestTheReconcilerSeesEveryMarkedTurn(t *testing.T) {
	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	agentID := lookupAgent(t, st)
	var wg sync.WaitGroup
	errs := make(chan error, 101)
	sem := make(chan struct{}, 8)
	for i := 0; i < 101; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := st.DoContext(ctx, "POST", "/v1/agents/sessions", map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"},
				"input": fmt.Sprintf("look it up %d", i)}, nil)
			if err == nil && r.Status != 201 {
				err = fmt.Errorf("create session %d: %d %s", i, r.Status, r.Body)
			}
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sessionID, turnID, _ := parkedSession(t, ctx, st, agentID) // the newest: last in the index
	stopExecution(t, ctx, st, turnID)
	eng := inProcessEngine(t, st, st.SFNURL)
	if _, err := eng.Reconcile(ctx, 0); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	waitStatus(t, ctx, st, sessionID, "failed")
}

// TestAResultAfterTheAwaitTimeoutIsAClearConflict: a turn that waited longer than await_seconds is settled as failed
// by the state machine; a tool result that arrives afterwards is 409 conflict_error (never a 500), and the Session
// takes new input.
func TestAResultAfterTheAwaitTimeoutIsAClearConflict(t *testing.T) {
	st := stack.Start(t, stack.Options{ExtraArgs: []string{"-await-seconds", "2"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessionID, turnID, callID := parkedSession(t, ctx, st, lookupAgent(t, st))
	waitStatus(t, ctx, st, sessionID, "failed")
	r := st.Do(t, "POST", "/v1/agents/sessions/"+sessionID+"/events", resultEvent(turnID, callID), nil)
	var body struct {
		Error struct{ Type, Code string }
	}
	_ = json.Unmarshal(r.Body, &body)
	if r.Status != 409 || body.Error.Code != "conflict_error" || r.Header.Get("x-should-retry") != "false" {
		t.Fatalf("result after the await timeout: %d %s (x-should-retry %q), want 409 conflict_error, no retry", r.Status, r.Body, r.Header.Get("x-should-retry"))
	}
	var turn struct{ Status string }
	_ = json.Unmarshal(st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/turns/"+turnID, nil, nil).Body, &turn)
	if turn.Status != "failed" {
		t.Errorf("turn after the await timeout is %s, want failed", turn.Status)
	}
}
