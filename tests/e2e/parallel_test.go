package e2e_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestThreeParallelCallsAnsweredOutOfOrderInTwoBatchesResumeOnce(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	fn := map[string]any{"type": "function", "name": "get_weather", "description": "Weather of a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}
	call := func(city string) map[string]any {
		return map[string]any{"name": "get_weather", "arguments": map[string]any{"city": city}}
	}
	script := map[string]any{"chunk_size": 64, "rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "three"}, "calls": []any{call("Paris"), call("Rome"), call("Oslo")}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": "{{range .Tools}}[{{index .Arguments \"city\"}}={{.Output}}]{{end}}"},
	}}
	sid := newInlineSession(t, st, []any{fn}, nil, script, nil)
	rec := record(t, ctx, client, sid)
	postEvents(t, ctx, client, sid, userMessage("three cities"))
	at := rec.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	ra := rec.Snapshot()[at].Session.RequiredActions
	var cities []string
	for _, a := range ra {
		cities = append(cities, fmt.Sprint(a.Arguments["city"]))
	}
	if diff := cmp.Diff([]string{"Paris", "Rome", "Oslo"}, cities); diff != "" {
		t.Fatalf("required actions in call order (-want +got):\n%s", diff)
	}
	turnID := ra[0].TurnID

	// Batch 1: the third and the first call. The turn keeps waiting with every call still required.
	postEvents(t, ctx, client, sid, toolResult(turnID, ra[2].CallID, "cold"), toolResult(turnID, ra[0].CallID, "mild"))
	s := getSession(t, ctx, client, sid)
	if s.Status != "requires_action" || len(s.RequiredActions) != 3 {
		t.Errorf("after a partial batch: session %s with %d required actions, want requires_action with 3", s.Status, len(s.RequiredActions))
	}
	turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, sid, turnID)
	if err != nil || turn.Status != "waiting" {
		t.Errorf("turn after a partial batch = %v %v, want waiting", turn, err)
	}
	// Batch 2: the second call completes the set.
	postEvents(t, ctx, client, sid, toolResult(turnID, ra[1].CallID, "warm"))
	done := rec.WaitFor(t, at, "turn.completed", isTurnEvent("agent.session.turn.completed", turnID))
	rec.WaitFor(t, done, "idle", isType("agent.session.idle"))
	after := rec.Snapshot()[at:]
	if n := count(after, isTurnEvent("agent.session.turn.in_progress", turnID)); n != 1 {
		t.Errorf("turn.in_progress after requires_action = %d, want exactly 1 (one resume):\n%s", n, dump(after))
	}
	if n := count(after, isItemAdded("function_call_output")); n != 3 {
		t.Errorf("function_call_output item.added = %d, want 3", n)
	}
	outputs := map[string]int{}
	for _, it := range listItems(t, ctx, client, sid) {
		if it.Type == "function_call_output" {
			outputs[it.CallID]++
		}
	}
	for _, a := range ra {
		if outputs[a.CallID] != 1 {
			t.Errorf("function_call_output items of %s = %d, want 1", a.CallID, outputs[a.CallID])
		}
	}
	if got, want := finalText(after), "[Paris=mild][Rome=warm][Oslo=cold]"; got != want {
		t.Errorf("final answer = %q, want %q (results in call order)", got, want)
	}
}
