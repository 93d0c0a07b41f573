package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// TestACompletedTurnWhoseAnswerIsLostIsSettledOnce: the runtime commits the completed turn itself (turn.completed),
// then its answer never reaches Step Functions. The Run task times out on its heartbeat, the Catch runs the Settle
// task, which finds the turn already completed and answers so; the execution ends at Done, not TurnFailed, and the
// turn completes exactly once (docs/internals.md "The turn state machine").
func TestACompletedTurnWhoseAnswerIsLostIsSettledOnce(t *testing.T) {
	st := stack.Start(t, stack.Options{Runtimes: -1, HeartbeatSeconds: workerLossHeartbeatSeconds})
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	client := stack.OpenAI(st)
	// The runtime's Step Functions requests go through a proxy that refuses every SendTaskSuccess reporting a turn
	// the runtime settled itself ({"settled":true}) with InvalidToken, an error after which the runtime stops
	// answering and heartbeating that task — as if it died between its commit and its answer.
	var dropped atomic.Int64
	proxyURL := stack.TaskSuccessProxy(t, st.SFNURL, func(body []byte) (int, string) {
		var in struct{ Output string }
		_ = json.Unmarshal(body, &in)
		if !strings.Contains(in.Output, `"settled":true`) {
			return 0, ""
		}
		dropped.Add(1)
		return http.StatusBadRequest, `{"__type":"InvalidToken","message":"injected: the answer is lost"}`
	})
	stack.StartRuntime(t, st, stack.RuntimeOptions{Env: []string{"AWS_ENDPOINT_URL_SFN=" + proxyURL}})

	a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted"},
		option.WithJSONSet("x_baton", map[string]any{"model_provider": map[string]any{"protocol": "scripted"},
			"script": map[string]any{"rules": []any{map[string]any{"reply": "all done"}}}}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("hello"))
	i := rec.WaitFor(t, 0, "turn.completed", isType("agent.session.turn.completed"))
	turnID := rec.Snapshot()[i].TurnID

	sfnClient := stack.SFN(st)
	arn := executionARN(t, ctx, sfnClient, st.StateMachineARN("baton"), turnID)
	var out *awssfn.DescribeExecutionOutput
	for {
		out, err = sfnClient.DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		if err != nil {
			t.Fatalf("DescribeExecution: %v", err)
		}
		if out.Status != types.ExecutionStatusRunning {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the execution never ended")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out.Status != types.ExecutionStatusSucceeded {
		t.Errorf("execution %s, want SUCCEEDED (Settle found the turn completed)", out.Status)
	}
	if dropped.Load() == 0 {
		t.Fatal("no settled:true answer reached the proxy; the runtime did not settle the turn itself")
	}
	// The path: Run timed out on its heartbeat, then Settle (a lambda:invoke task) and Done.
	h, err := sfnClient.GetExecutionHistory(ctx, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
	if err != nil {
		t.Fatalf("GetExecutionHistory: %v", err)
	}
	var states []string
	timedOut := false
	for _, ev := range h.Events {
		if d := ev.StateEnteredEventDetails; d != nil {
			states = append(states, aws.ToString(d.Name))
		}
		timedOut = timedOut || ev.Type == types.HistoryEventTypeActivityTimedOut
	}
	if want := []string{"Run", "Settle", "Settled", "Done"}; strings.Join(states, ",") != strings.Join(want, ",") {
		t.Errorf("states entered %v, want %v", states, want)
	}
	if !timedOut {
		t.Error("the history has no ActivityTimedOut: the lost answer was not what ended the Run task")
	}
	// Exactly one completion, and the Session is usable.
	completed := 0
	for _, ev := range rec.Snapshot() {
		if ev.Type == "agent.session.turn.completed" {
			completed++
		}
		if ev.Type == "agent.session.turn.failed" {
			t.Errorf("the turn failed after it completed: %+v", ev)
		}
	}
	if completed != 1 {
		t.Errorf("turn.completed events = %d, want 1", completed)
	}
	if got := getSession(t, ctx, client, s.ID).Status; got != "idle" {
		t.Errorf("session status = %q, want idle", got)
	}
}
