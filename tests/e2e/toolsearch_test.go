package e2e_test

import (
	"context"
	"strings"
	"testing"
)

func TestToolSearchDiscoversDeferredFunctions(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	fn := func(name, desc string, deferred bool) map[string]any {
		return map[string]any{"type": "function", "name": name, "description": desc, "defer_loading": deferred,
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}
	}
	tools := []any{fn("get_time", "Current time of a city", false), fn("get_weather", "Weather of a city", true),
		fn("book_flight", "Books a flight", true), map[string]any{"type": "tool_search"}}
	script := map[string]any{"chunk_size": 64, "rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "tools"}, "reply": "offered:{{range .ToolNames}} {{.}}{{end}}"},
		map[string]any{"when": map[string]any{"user_contains": "weather", "tool_offered": "get_weather"}, "calls": []any{
			map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Oslo"}}}},
		map[string]any{"when": map[string]any{"user_contains": "weather"}, "calls": []any{
			map[string]any{"name": "tool_search", "arguments": map[string]any{"query": "weather"}}}},
		map[string]any{"when": map[string]any{"after_tool": "tool_search", "tool_offered": "get_weather"}, "calls": []any{
			map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Oslo"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": "Oslo: {{tool_output \"get_weather\"}}"},
	}}
	sid := newInlineSession(t, st, tools, nil, script, nil)
	rec := record(t, ctx, client, sid)

	// Before discovery the deferred functions are hidden; tool_search is offered.
	_, end, events := endedTurn(t, ctx, client, rec, sid, "which tools?")
	if end != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", end, dump(events))
	}
	if got := finalText(events); got != "offered: get_time tool_search" {
		t.Errorf("offered before discovery = %q, want get_time and tool_search only", got)
	}

	// tool_search finds get_weather in the harness (no item, no required action); the model then calls it, which
	// is a required action of the caller.
	from := len(rec.Snapshot())
	postEvents(t, ctx, client, sid, userMessage("weather in Oslo"))
	at := rec.WaitFor(t, from, "requires_action", isType("agent.session.requires_action"))
	ra := rec.Snapshot()[at].Session.RequiredActions
	if len(ra) != 1 || ra[0].Name != "get_weather" || ra[0].Arguments["city"] != "Oslo" {
		t.Fatalf("required actions = %+v, want one get_weather call", ra)
	}
	postEvents(t, ctx, client, sid, toolResult(ra[0].TurnID, ra[0].CallID, "-3 C"))
	done := rec.WaitFor(t, at, "turn.completed", isTurnEvent("agent.session.turn.completed", ra[0].TurnID))
	if got := finalText(rec.Snapshot()[at : done+1]); got != "Oslo: -3 C" {
		t.Errorf("final answer = %q, want %q", got, "Oslo: -3 C")
	}
	for _, it := range listItems(t, ctx, client, sid) {
		if strings.Contains(it.Name, "tool_search") || (it.Type != "message" && it.Type != "function_call" && it.Type != "function_call_output") {
			t.Errorf("unexpected item %+v: tool_search leaves no item", it)
		}
	}
	// Later turns keep get_weather loaded: it was called in this Session.
	_, _, events = endedTurn(t, ctx, client, rec, sid, "which tools now?")
	if got := finalText(events); got != "offered: get_time get_weather tool_search" {
		t.Errorf("offered after discovery = %q, want get_weather loaded", got)
	}
}
