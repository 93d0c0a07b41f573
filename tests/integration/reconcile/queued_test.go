package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/tests/stack"
)

// A queued turn (no runtime has begun it) keeps its UNSTARTED mark while its execution waits for a runtime: the
// turn's path writes nothing after StartExecution (docs/internals.md "The reconciler"). These tests hold such a
// turn queued with a real runtime that is registered and live but takes no task (its GetActivityTask requests pass
// through sfnProxy, which answers "no task" while it holds them), then run the reconciler.

// sfnProxy is a stack.SFNProxy in front of the Step Functions endpoint that records the operation of every request,
// holds GetActivityTask (answering, after a short wait, that there is no task, as an empty long poll does) while
// holding is set, and refuses StartExecution with a 500 while failStarts is set.
type sfnProxy struct {
	url        string
	holding    atomic.Bool
	failStarts atomic.Bool

	mu  sync.Mutex
	ops []string
}

func newSFNProxy(t *testing.T, target string) *sfnProxy {
	t.Helper()
	p := &sfnProxy{}
	p.url = stack.SFNProxy(t, target, func(ctx context.Context, op string, _ []byte) (int, string) {
		p.mu.Lock()
		p.ops = append(p.ops, op)
		p.mu.Unlock()
		switch {
		case op == "GetActivityTask" && p.holding.Load():
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
			}
			return http.StatusOK, `{}`
		case op == "StartExecution" && p.failStarts.Load():
			return http.StatusInternalServerError, `{"__type":"InternalFailure","message":"injected: StartExecution failed"}`
		}
		return 0, ""
	})
	return p
}

// take returns the operations recorded since the last take, except GetActivityTask.
func (p *sfnProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, op := range p.ops {
		if op != "GetActivityTask" {
			out = append(out, op)
		}
	}
	p.ops = nil
	return out
}

// noScheduledReconcile keeps baton-local's own reconciler (every 30 s, turns older than 10 s) out of these tests:
// each runs its passes itself and counts what they do.
var noScheduledReconcile = []string{"-reconcile-every", "1h"}

// heldRuntime starts a stack without baton-local's runtime and one runtime of the test's own whose Step Functions
// requests pass through the returned proxy, which holds its GetActivityTask requests until holding is cleared.
func heldRuntime(t *testing.T) (*stack.Stack, *sfnProxy) {
	t.Helper()
	st := stack.Start(t, stack.Options{Runtimes: -1, ExtraArgs: noScheduledReconcile})
	runtimeSFN := newSFNProxy(t, st.SFNURL)
	runtimeSFN.holding.Store(true)
	stack.StartRuntime(t, st, stack.RuntimeOptions{Env: []string{"AWS_ENDPOINT_URL_SFN=" + runtimeSFN.url}})
	return st, runtimeSFN
}

// replyAgent creates an agent whose scripted model answers every message with reply.
func replyAgent(t *testing.T, st *stack.Stack, reply string) string {
	t.Helper()
	r := st.Do(t, "POST", "/v1/agents", map[string]any{"model": "scripted",
		"x_baton": map[string]any{"script": map[string]any{"rules": []any{map[string]any{"reply": reply}}}}}, nil)
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var ag struct{ ID string }
	_ = json.Unmarshal(r.Body, &ag)
	return ag.ID
}

// newestTurn returns the id and status of the Session's newest turn.
func newestTurn(t *testing.T, st *stack.Stack, sessionID string) (id, status string) {
	t.Helper()
	r := st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/turns?order=desc&limit=1", nil, nil)
	var page struct {
		Data []struct{ ID, Status string }
	}
	if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 || len(page.Data) != 1 {
		t.Fatalf("list turns: %d %s", r.Status, r.Body)
	}
	return page.Data[0].ID, page.Data[0].Status
}

func turnStatus(t *testing.T, st *stack.Stack, sessionID, turnID string) string {
	t.Helper()
	var turn struct{ Status string }
	r := st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/turns/"+turnID, nil, nil)
	if err := json.Unmarshal(r.Body, &turn); err != nil || r.Status != 200 {
		t.Fatalf("get turn %s: %d %s", turnID, r.Status, r.Body)
	}
	return turn.Status
}

// executionStatus describes a turn's execution on the baton state machine; "" when it does not exist.
func executionStatus(t *testing.T, ctx context.Context, st *stack.Stack, turnID string) types.ExecutionStatus {
	t.Helper()
	arn := strings.Replace(st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turnID
	out, err := stack.SFN(st).DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	var missing *types.ExecutionDoesNotExist
	if errors.As(err, &missing) {
		return ""
	}
	if err != nil {
		t.Fatalf("describe execution %s: %v", turnID, err)
	}
	return out.Status
}

func messageEvent(text string) map[string]any {
	return map[string]any{"events": []any{map[string]any{"type": "agent.session.input.message",
		"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}}}}}
}

// lastAnswer returns the text of the Session's newest assistant message.
func lastAnswer(t *testing.T, st *stack.Stack, sessionID string) string {
	t.Helper()
	r := st.Do(t, "GET", "/v1/agents/sessions/"+sessionID+"/items?order=desc&limit=20", nil, nil)
	var page struct {
		Data []struct {
			Type, Role string
			Content    []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
		t.Fatalf("list items: %d %s", r.Status, r.Body)
	}
	for _, it := range page.Data {
		if it.Type == "message" && it.Role == "assistant" && len(it.Content) > 0 {
			return it.Content[0].Text
		}
	}
	return ""
}

// newSession creates a Session of an agent that answers "all done", with input when it is not "" (which opens a
// turn).
func newSession(t *testing.T, st *stack.Stack, input string) struct{ ID string } {
	t.Helper()
	body := map[string]any{"agent_id": replyAgent(t, st, "all done"), "environment": map[string]any{"type": "none"}}
	if input != "" {
		body["input"] = input
	}
	r := st.Do(t, "POST", "/v1/agents/sessions", body, nil)
	if r.Status != 201 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var sess struct{ ID string }
	_ = json.Unmarshal(r.Body, &sess)
	return sess
}

// TestAQueuedTurnWhoseExecutionRunsIsLeftAlone: a turn waits queued (its execution running, no runtime has taken
// the task yet). A reconcile pass asks Step Functions once whether the execution runs and does nothing else: no
// Step Functions request but that DescribeExecution, no write to the table. When the runtime takes tasks again,
// the same turn runs to its answer.
func TestAQueuedTurnWhoseExecutionRunsIsLeftAlone(t *testing.T) {
	st, runtimeSFN := heldRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess := newSession(t, st, "hello")
	turnID, status := newestTurn(t, st, sess.ID)
	if status != "queued" {
		t.Fatalf("turn is %s, want queued (the runtime takes no task)", status)
	}
	if got := executionStatus(t, ctx, st, turnID); got != types.ExecutionStatusRunning {
		t.Fatalf("execution is %q, want RUNNING", got)
	}

	reconcilerSFN := newSFNProxy(t, st.SFNURL)
	eng := inProcessEngine(t, st, reconcilerSFN.url)
	before := stack.Snapshot(t, st)
	n, err := eng.Reconcile(ctx, 0)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if n != 0 {
		t.Errorf("reconcile acted on %d turns, want none", n)
	}
	stack.AssertUnchanged(t, before, stack.Snapshot(t, st))
	if diff := cmp.Diff([]string{"DescribeExecution"}, reconcilerSFN.take()); diff != "" {
		t.Errorf("the reconciler's Step Functions requests (-want +got):\n%s", diff)
	}
	if got := executionStatus(t, ctx, st, turnID); got != types.ExecutionStatusRunning {
		t.Errorf("execution after the pass is %q, want RUNNING", got)
	}

	runtimeSFN.holding.Store(false)
	waitStatus(t, ctx, st, sess.ID, "idle")
	if got := turnStatus(t, st, sess.ID, turnID); got != "completed" {
		t.Errorf("turn is %s, want completed", got)
	}
	if got := lastAnswer(t, st, sess.ID); got != "all done" {
		t.Errorf("answer %q, want %q", got, "all done")
	}
}

// TestAQueuedTurnWhoseExecutionEndedIsSettledAsFailed: the execution of a queued turn ends before any runtime took
// its task (stopped out of band; a Run state that times out waiting for a runtime is settled by the state machine
// itself). Nothing else would ever end that turn: the reconciler sees the execution ended and settles the turn as
// failed, once; the Session then takes new input, whose turn runs to its answer.
func TestAQueuedTurnWhoseExecutionEndedIsSettledAsFailed(t *testing.T) {
	st, runtimeSFN := heldRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess := newSession(t, st, "hello")
	turnID, _ := newestTurn(t, st, sess.ID)
	stopExecution(t, ctx, st, turnID)
	if got := executionStatus(t, ctx, st, turnID); got != types.ExecutionStatusAborted {
		t.Fatalf("execution is %q, want ABORTED", got)
	}
	if got := turnStatus(t, st, sess.ID, turnID); got != "queued" {
		t.Fatalf("turn is %s after its execution stopped, want still queued", got)
	}

	reconcilerSFN := newSFNProxy(t, st.SFNURL)
	eng := inProcessEngine(t, st, reconcilerSFN.url)
	n, err := eng.Reconcile(ctx, 0)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if n != 1 {
		t.Errorf("reconcile acted on %d turns, want the stopped one", n)
	}
	// An ended execution is never restarted: its name is taken, and the turn is settled instead.
	if ops := reconcilerSFN.take(); slices.Contains(ops, "StartExecution") {
		t.Errorf("the reconciler's Step Functions requests %v include a StartExecution", ops)
	}
	waitStatus(t, ctx, st, sess.ID, "failed")
	if got := turnStatus(t, st, sess.ID, turnID); got != "failed" {
		t.Errorf("turn is %s, want failed", got)
	}
	// A second pass finds nothing to do and writes nothing.
	before := stack.Snapshot(t, st)
	if n, err := eng.Reconcile(ctx, 0); err != nil || n != 0 {
		t.Errorf("second reconcile: acted on %d, err %v; want none", n, err)
	}
	stack.AssertUnchanged(t, before, stack.Snapshot(t, st))

	// The Session is usable: new input starts a new turn, which runs.
	runtimeSFN.holding.Store(false)
	if r := st.Do(t, "POST", "/v1/agents/sessions/"+sess.ID+"/events", messageEvent("again"), nil); r.Status != 202 {
		t.Fatalf("new input after the failed turn: %d %s", r.Status, r.Body)
	}
	if next, _ := newestTurn(t, st, sess.ID); next == turnID {
		t.Fatal("the new input did not start a new turn")
	}
	waitStatus(t, ctx, st, sess.ID, "idle")
	if got := lastAnswer(t, st, sess.ID); got != "all done" {
		t.Errorf("answer %q, want %q", got, "all done")
	}
}

// TestATurnWhoseStartFailedIsStartedByTheReconciler: the input commits its turn, then StartExecution fails (every
// attempt of the SDK's retries). The caller's request still succeeds (the input is durable); the turn stays queued
// with no execution. The reconciler finds that its execution does not exist, starts it, and the turn runs to its
// answer.
func TestATurnWhoseStartFailedIsStartedByTheReconciler(t *testing.T) {
	st := stack.Start(t, stack.Options{ExtraArgs: noScheduledReconcile})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess := newSession(t, st, "")

	failing := newSFNProxy(t, st.SFNURL)
	failing.failStarts.Store(true)
	api := inProcessEngine(t, st, failing.url)
	project, err := api.Authenticate(ctx, st.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	in := []session.Input{{Type: session.InputMessage, Message: []session.ContentPart{{Type: "input_text", Text: "hello"}}}}
	if err := api.PostEvents(ctx, project, sess.ID, in, "", ""); err != nil {
		t.Fatalf("post the message: %v", err)
	}
	if ops := failing.take(); !slices.Contains(ops, "StartExecution") {
		t.Fatalf("the input sent no StartExecution (requests %v)", ops)
	}
	turnID, status := newestTurn(t, st, sess.ID)
	if status != "queued" {
		t.Fatalf("turn is %s, want queued", status)
	}
	if got := executionStatus(t, ctx, st, turnID); got != "" {
		t.Fatalf("execution is %q, want none", got)
	}

	reconcilerSFN := newSFNProxy(t, st.SFNURL)
	eng := inProcessEngine(t, st, reconcilerSFN.url)
	n, err := eng.Reconcile(ctx, 0)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if n != 1 {
		t.Errorf("reconcile acted on %d turns, want the unstarted one", n)
	}
	if diff := cmp.Diff([]string{"DescribeExecution", "StartExecution"}, reconcilerSFN.take()); diff != "" {
		t.Errorf("the reconciler's Step Functions requests (-want +got):\n%s", diff)
	}
	waitStatus(t, ctx, st, sess.ID, "idle")
	if got := turnStatus(t, st, sess.ID, turnID); got != "completed" {
		t.Errorf("turn is %s, want completed", got)
	}
	if got := lastAnswer(t, st, sess.ID); got != "all done" {
		t.Errorf("answer %q, want %q", got, "all done")
	}
}
