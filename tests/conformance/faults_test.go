package conformance_test

import (
	"strings"
	"testing"
)

// TestASessionKeepsItsConfigurationHoweverLargeItsResults: five tool results of 250 KB each (about 1.25 MB in the
// Session's partition, sorting between the Session record and its snapshot) must not change what the Session is:
// its reads still show the configured agent, and the next model step still runs the configured script.
func TestASessionKeepsItsConfigurationHoweverLargeItsResults(t *testing.T) {
	st, client, ctx := stackClient(t)
	call := map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}
	r := raw(t, st, "POST", "/v1/agents", map[string]any{"model": "scripted-large-results",
		"tools": []any{map[string]any{"type": "function", "name": "get_weather", "description": "Weather",
			"parameters": weatherParameters()}},
		"x_baton": map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "five"}, "calls": []any{call, call, call, call, call}},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": "configured script ran"},
		}}},
	})
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	agentID := decodeJSON[struct{ ID string }](t, r.Body).ID
	s := newSession(t, ctx, client, agentID, "five calls please")
	parked := waitSession(t, ctx, client, s.ID, "requires_action", hasStatus("requires_action"))
	if len(parked.RequiredActions) != 5 {
		t.Fatalf("required actions = %d, want 5", len(parked.RequiredActions))
	}
	big := strings.Repeat("x", 250*1000)
	rec := record(t, ctx, client, s.ID)
	for _, ra := range parked.RequiredActions {
		postEvents(t, ctx, client, s.ID, toolResult(ra.TurnID, ra.CallID, big))
	}
	rec.WaitFor(t, 0, "turn.completed", isType("agent.session.turn.completed"))
	items := listItems(t, ctx, client, s.ID)
	var answer string
	for _, ev := range rec.Snapshot() {
		if ev.Type == "agent.session.turn.item.done" && strings.Contains(ev.raw, "configured script ran") {
			answer = "configured script ran"
		}
	}
	if answer == "" {
		t.Errorf("the resumed step did not run the configured script (%d items)", len(items))
	}
	got := getSession(t, ctx, client, s.ID)
	if got.Agent["model"] != "scripted-large-results" || got.Agent["id"] != agentID {
		t.Errorf("session agent after 1.25 MB of results: model %v id %v, want %q %q", got.Agent["model"], got.Agent["id"], "scripted-large-results", agentID)
	}
	if tools, _ := got.Agent["tools"].([]any); len(tools) != 1 {
		t.Errorf("session agent tools = %v, want the get_weather declaration", got.Agent["tools"])
	}
}
