package conformance_test

import (
	"fmt"
	"strings"
	"sync"
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

// TestSixtyFourResultsAndACancelMeetAStreamingTurn: 64 tool results posted at once (each twice, so identical
// retries race too) complete a round; the turn resumes exactly once and streams a long, slow answer; a cancel meets
// it mid-stream. No request answers 5xx, the round's results are applied once, and the turn ends cancelled.
func TestSixtyFourResultsAndACancelMeetAStreamingTurn(t *testing.T) {
	st, client, ctx := stackClient(t)
	calls := make([]any, 64)
	for i := range calls {
		calls[i] = map[string]any{"name": "get_weather", "arguments": map[string]any{"city": fmt.Sprintf("City %d", i)}}
	}
	r := raw(t, st, "POST", "/v1/agents", map[string]any{"model": "scripted",
		"tools": []any{map[string]any{"type": "function", "name": "get_weather", "description": "Weather", "parameters": weatherParameters()}},
		"x_baton": map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": map[string]any{"chunk_size": 8, "rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "many"}, "calls": calls},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": strings.Repeat("streaming ", 400), "chunk_delay_ms": 5},
		}}},
	})
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	agentID := decodeJSON[struct{ ID string }](t, r.Body).ID
	s := newSession(t, ctx, client, agentID, "many calls")
	parked := waitSession(t, ctx, client, s.ID, "requires_action", hasStatus("requires_action"))
	if len(parked.RequiredActions) != 64 {
		t.Fatalf("required actions = %d, want 64", len(parked.RequiredActions))
	}
	rec := record(t, ctx, client, s.ID)
	var wg sync.WaitGroup
	statuses := make(chan string, 2*64)
	for _, ra := range parked.RequiredActions {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := st.DoContext(ctx, "POST", "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{map[string]any{
					"type": "agent.session.input.tool_result", "turn_id": ra.TurnID, "call_id": ra.CallID, "success": true, "output": "sunny"}}}, nil)
				if err != nil {
					statuses <- err.Error()
					return
				}
				statuses <- fmt.Sprintf("%d %s", resp.Status, resp.Body)
			}()
		}
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if !strings.HasPrefix(st, "202") {
			t.Errorf("tool result: %s, want 202", st)
		}
	}
	rec.WaitFor(t, 0, "the resumed answer streaming", isType("agent.session.turn.output_text.delta"))
	postEvents(t, ctx, client, s.ID, cancelInput())
	rec.WaitFor(t, 0, "turn.cancelled", isType("agent.session.turn.cancelled"))
	waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
	items := listItems(t, ctx, client, s.ID)
	if n := countItems(items, "function_call_output"); n != 64 {
		t.Errorf("function_call_output items = %d, want 64 (one application of the round)", n)
	}
	resumed := 0
	for _, ev := range rec.Snapshot() {
		if ev.Type == "agent.session.turn.in_progress" {
			resumed++
		}
		if ev.Type == "agent.session.turn.completed" {
			t.Errorf("the cancelled turn completed")
		}
	}
	if resumed != 1 {
		t.Errorf("turn.in_progress events after the round = %d, want 1 (one resume)", resumed)
	}
}
