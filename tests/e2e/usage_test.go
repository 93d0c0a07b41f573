package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// A runtime records each model call's usage without a write of its own: it rides on the run's next commit (the
// calls it parks on, the message it finishes), or on the write the harness makes before the activity task ends
// when nothing else follows (docs/internals.md "Requests per turn"). These tests read the turn's usage through the
// API to prove no call's usage is lost on any of those paths.

type turnUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

func getTurnUsage(t *testing.T, st *stack.Stack, sessionID, turnID string) *turnUsage {
	t.Helper()
	r := st.Do(t, http.MethodGet, "/v1/agents/sessions/"+sessionID+"/turns/"+turnID, nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET turn %s: %d %s", turnID, r.Status, r.Body)
	}
	var body struct {
		Status string     `json:"status"`
		Usage  *turnUsage `json:"usage"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("decode turn: %v: %s", err, r.Body)
	}
	return body.Usage
}

// TestTurnUsageAddsEveryModelCall: the usage of the call that parks on a function call is stored with the calls
// (visible while the turn waits), and the answer's usage is added to it, not lost and not replacing it.
func TestTurnUsageAddsEveryModelCall(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sessionID, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
	waiting := getTurnUsage(t, st, sessionID, turnID)
	if waiting == nil || waiting.InputTokens == 0 || waiting.OutputTokens == 0 {
		t.Fatalf("usage of the waiting turn = %+v, want the first model call's (non-zero input and output)", waiting)
	}
	postEvents(t, ctx, client, sessionID, toolResult(turnID, actions[0].CallID, "sunny"))
	rec.WaitFor(t, 0, "agent.session.turn.completed", isType("agent.session.turn.completed"))
	done := getTurnUsage(t, st, sessionID, turnID)
	if done == nil || done.InputTokens <= waiting.InputTokens || done.OutputTokens <= waiting.OutputTokens {
		t.Fatalf("usage of the completed turn = %+v, want more than the waiting turn's %+v in both", done, *waiting)
	}
}

// TestTurnUsageOfAnAnswerWithoutOutput: a model call that answers with no text and no calls writes nothing but
// its usage, which the harness's final flush stores.
func TestTurnUsageOfAnAnswerWithoutOutput(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted", Instructions: openai.String("Say nothing at all.")},
		option.WithJSONSet("x_baton", map[string]any{
			"model_provider": map[string]any{"protocol": "scripted"},
			"script":         map[string]any{"rules": []any{map[string]any{"reply": ""}}},
		}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("hello there"))
	i := rec.WaitFor(t, 0, "agent.session.turn.completed", isType("agent.session.turn.completed"))
	ev := rec.Snapshot()[i]
	if ev.Turn == nil {
		t.Fatalf("turn.completed without a turn: %s", ev.raw)
	}
	if items := listItems(t, ctx, client, s.ID); len(items) != 1 {
		t.Fatalf("items %v, want only the user message (the answer has no output)", items)
	}
	u := getTurnUsage(t, st, s.ID, ev.Turn.ID)
	if u == nil || u.InputTokens == 0 {
		t.Fatalf("usage of the completed turn = %+v, want the model call's input counted", u)
	}
}
