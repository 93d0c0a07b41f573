package e2e_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// workerLossHeartbeatSeconds is the activity heartbeat timeout of the worker-loss stack: a runtime that stops
// heartbeating loses its task this long after its last heartbeat.
const workerLossHeartbeatSeconds = 3

// slowScript: "weather in <City>" calls get_weather; the tool stage is a slow model (delay_ms) so that the runtime
// can be killed mid-step; "again" answers at once.
func slowScript() map[string]any {
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "again"}, "reply": "fresh answer"},
			map[string]any{"when": map[string]any{"user_matches": `(?i)weather in (?P<city>\w+)`},
				"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "{{.Match.city}}"}}}},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "delay_ms": 120000, "reply": "too late"},
		},
	}
}

// Worker loss (issue 4 Deliver 7; docs/agents-api.md §4: after an execution loss, claimed work fails
// without replay): the runtime is its own OS process, SIGKILLed while it runs the step that follows an admitted tool
// result. The task times out after the heartbeat timeout; the state machine's Catch → Settle fails the turn; a
// second runtime that is live the whole time never replays it; the admitted result stays stored; new input starts a
// new turn that completes on the second runtime.
func TestWorkerLossFailsTheTurnWithoutReplay(t *testing.T) {
	st := stack.Start(t, stack.Options{Runtimes: -1, HeartbeatSeconds: workerLossHeartbeatSeconds})
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	client := stack.OpenAI(st)
	sfnClient := stack.SFN(st)

	doomed := stack.StartRuntime(t, st, stack.RuntimeOptions{})
	a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{"type": "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}}})},
	}, option.WithJSONSet("x_baton", map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": slowScript()}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID)

	// Turn 1 parks on get_weather; the result is admitted; the doomed runtime starts the slow tool-stage step.
	postEvents(t, ctx, client, s.ID, userMessage("weather in Paris"))
	i := rec.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	action := rec.Snapshot()[i].Session.RequiredActions[0]
	turnID := action.TurnID
	postEvents(t, ctx, client, s.ID, toolResult(turnID, action.CallID, "Sunny, 24 °C"))
	rec.WaitFor(t, i, "function_call_output item", isItemAdded("function_call_output"))
	rec.WaitFor(t, i, "turn in_progress after the resume", isTurnEvent("agent.session.turn.in_progress", turnID))

	// A second runtime is live before the loss: if anything replayed the step, it would run it.
	survivor := stack.StartRuntime(t, st, stack.RuntimeOptions{})
	killedAt := time.Now()
	doomed.Kill(t)

	j := rec.WaitFor(t, i, "turn.failed", isTurnEvent("agent.session.turn.failed", turnID))
	if elapsed := time.Since(killedAt); elapsed > (workerLossHeartbeatSeconds+7)*time.Second {
		t.Errorf("the turn failed %s after the runtime was killed; want within the %d s heartbeat timeout (+ slack)", elapsed, workerLossHeartbeatSeconds)
	}
	rec.WaitFor(t, j, "session.failed", isType("agent.session.failed"))
	if got := getSession(t, ctx, client, s.ID).Status; got != "failed" {
		t.Errorf("session status = %q, want failed", got)
	}
	turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, turnID)
	if err != nil {
		t.Fatalf("GET turn: %v", describe(err))
	}
	if turn.Status != "failed" {
		t.Errorf("turn status = %q, want failed", turn.Status)
	}

	// Without replay: the execution started the Run task exactly twice (first step, resumed step), both on the
	// doomed runtime, and failed with the heartbeat timeout.
	arn := executionARN(t, ctx, sfnClient, st.StateMachineARN("baton"), turnID)
	if got := activityWorkers(t, ctx, sfnClient, arn); !slices.Equal(got, []string{doomed.ID, doomed.ID}) {
		t.Errorf("activity tasks of the lost turn ran on %v, want twice on %s and never on %s", got, doomed.ID, survivor.ID)
	}
	// The result admitted before the loss stays stored; no answer was produced after it.
	items := listItems(t, ctx, client, s.ID)
	var shapes []string
	for _, it := range items {
		if it.TurnID == turnID {
			shapes = append(shapes, itemShape(it))
		}
		if it.Type == "function_call_output" && it.outputString() != "Sunny, 24 °C" {
			t.Errorf("stored tool result = %s, want the admitted output", it.Output)
		}
		if it.Type == "message" && it.text() == "too late" {
			t.Errorf("the lost step produced an answer: %+v", it)
		}
	}
	if !slices.Contains(shapes, "function_call_output") {
		t.Errorf("items of the lost turn %v lack the admitted function_call_output", shapes)
	}

	// New input starts a new turn that completes on the surviving runtime.
	from := len(rec.Snapshot())
	postEvents(t, ctx, client, s.ID, userMessage("again"))
	k := rec.WaitFor(t, from, "turn.completed", isType("agent.session.turn.completed"))
	newTurn := rec.Snapshot()[k].TurnID
	if newTurn == turnID {
		t.Fatal("the new input completed the lost turn")
	}
	if text := finalText(rec.Snapshot()[from : k+1]); text != "fresh answer" {
		t.Errorf("new turn's answer = %q, want %q", text, "fresh answer")
	}
	if got := activityWorkers(t, ctx, sfnClient, executionARN(t, ctx, sfnClient, st.StateMachineARN("baton"), newTurn)); !slices.Equal(got, []string{survivor.ID}) {
		t.Errorf("the new turn ran on %v, want %s", got, survivor.ID)
	}
	if got := getSession(t, ctx, client, s.ID).Status; got != "idle" {
		t.Errorf("session status after the new turn = %q, want idle", got)
	}
}

// activityWorkers lists the worker names of an execution's ActivityStarted events, in order.
func activityWorkers(t *testing.T, ctx context.Context, client *awssfn.Client, arn string) []string {
	t.Helper()
	h, err := client.GetExecutionHistory(ctx, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
	if err != nil {
		t.Fatalf("GetExecutionHistory: %v", err)
	}
	var out []string
	for _, e := range h.Events {
		if e.Type == types.HistoryEventTypeActivityStarted && e.ActivityStartedEventDetails != nil {
			out = append(out, aws.ToString(e.ActivityStartedEventDetails.WorkerName))
		}
	}
	return out
}
