package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// TestInlineFunctionRoundTripWithRawSDKCalls is the scenario of docs/agents-api.md §W7 step by step: the turn
// hands get_weather to the caller, waits with a required action, resumes on the tool result and answers with it.
func TestInlineFunctionRoundTripWithRawSDKCalls(t *testing.T) {
	t.Parallel()
	_, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	a := newWeatherAgent(t, ctx, client)
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID) // subscribe before the input
	postEvents(t, ctx, client, s.ID, userMessage("What's the weather in Paris?"))

	fcAt := rec.WaitFor(t, 0, "function_call item.added", isItemAdded("function_call"))
	fc := rec.Snapshot()[fcAt].Item
	raAt := rec.WaitFor(t, fcAt, "agent.session.requires_action after the function_call", isType("agent.session.requires_action"))

	// The Session shows the required action (the stream's copy and a fresh read agree).
	wantAction := []requiredAction{{Type: "function_call", TurnID: fc.TurnID, CallID: fc.CallID, Name: "get_weather",
		Arguments: map[string]any{"city": "Paris"}}}
	got := getSession(t, ctx, client, s.ID)
	if got.Status != "requires_action" {
		t.Errorf("session status while waiting = %q, want requires_action", got.Status)
	}
	if diff := cmp.Diff(wantAction, got.RequiredActions); diff != "" {
		t.Errorf("GET session required_actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantAction, rec.Snapshot()[raAt].Session.RequiredActions); diff != "" {
		t.Errorf("requires_action event required_actions (-want +got):\n%s", diff)
	}
	turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, fc.TurnID)
	if err != nil {
		t.Fatalf("GET turn: %v", describe(err))
	}
	if turn.Status != "waiting" {
		t.Errorf("turn status while waiting = %q, want waiting", turn.Status)
	}

	const output = `{"temp_c":21,"sky":"sunny"}`
	postEvents(t, ctx, client, s.ID, toolResult(fc.TurnID, fc.CallID, output))
	doneAt := rec.WaitFor(t, raAt, "agent.session.turn.completed", isTurnEvent("agent.session.turn.completed", fc.TurnID))
	rec.WaitFor(t, doneAt, "agent.session.idle after the turn", isType("agent.session.idle"))

	events := turnWindow(t, rec.Snapshot(), fc.TurnID)
	if order := inlineRoundTripOrder(1); !order.MatchString(tokens(events)) {
		t.Errorf("event order of the turn:\n  got  %s\n  want %s\nevents:\n%s", tokens(events), order, dump(events))
	}
	checkEventIDs(t, rec.Snapshot())
	checkOutputIndexes(t, events)

	// The final answer embeds the submitted output.
	var final *wireItem
	for _, e := range events {
		if e.Type == "agent.session.turn.item.done" && e.Item != nil && e.Item.Type == "message" && e.Item.Phase == "final_answer" {
			final = e.Item
		}
	}
	if final == nil || !strings.Contains(final.text(), output) {
		t.Errorf("final answer %+v does not contain the tool output %s", final, output)
	}
	if final != nil && final.Status != "completed" {
		t.Errorf("final message status = %q, want completed", final.Status)
	}
	if got := getSession(t, ctx, client, s.ID); got.Status != "idle" || len(got.RequiredActions) != 0 {
		t.Errorf("session after the turn = %+v, want idle without required actions", got)
	}

	// Durable history: the Session's items, the Turn, and the Turn's items paged by last_id.
	items := listItems(t, ctx, client, s.ID)
	checkRoundTripItems(t, items, fc.CallID, output)
	turn, err = client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, fc.TurnID)
	if err != nil {
		t.Fatalf("GET turn: %v", describe(err))
	}
	if turn.Status != "completed" || turn.ID != fc.TurnID || turn.SessionID != s.ID {
		t.Errorf("turn after the answer: id %s session %s status %s, want %s %s completed", turn.ID, turn.SessionID, turn.Status, fc.TurnID, s.ID)
	}
	var turnItems []wireItem
	after := ""
	for page := 0; ; page++ {
		params := openai.BetaAgentSessionTurnItemListParams{Order: openai.BetaAgentSessionTurnItemListParamsOrderAsc, Limit: openai.Int(1)}
		if after != "" {
			params.After = openai.String(after)
		}
		p, err := client.Beta.Agents.Sessions.Turns.Items.List(ctx, s.ID, fc.TurnID, params)
		if err != nil {
			t.Fatalf("list turn items: %v", describe(err))
		}
		for _, it := range p.Data {
			turnItems = append(turnItems, decode[wireItem](t, it.RawJSON()))
		}
		if !p.HasMore || p.LastID == "" || page > 20 {
			break
		}
		after = p.LastID
	}
	if diff := cmp.Diff(itemIDs(items), itemIDs(turnItems)); diff != "" {
		t.Errorf("turn items (paged by last_id) differ from the session's items (-session +turn):\n%s", diff)
	}
}

// TestInlineFunctionRoundTripWithStreamHelper runs the same scenario through the SDK's Sessions.Stream helper:
// a ToolHandlers entry answers get_weather and FinalResult returns the answer built from it.
func TestInlineFunctionRoundTripWithStreamHelper(t *testing.T) {
	t.Parallel()
	_, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a := newWeatherAgent(t, ctx, client)
	s := newIdleSession(t, ctx, client, a.ID)

	var calls []map[string]any
	stream := client.Beta.Agents.Sessions.Stream(ctx, s.ID, openai.AgentSessionStreamParams{
		Input: "What's the weather in Rome?",
		ToolHandlers: map[string]openai.AgentToolHandler{
			"get_weather": func(_ context.Context, args map[string]any) (any, error) {
				calls = append(calls, args)
				return map[string]any{"city": args["city"], "temp_c": 18}, nil
			},
		},
	})
	defer stream.Close()
	res, err := stream.FinalResult()
	if err != nil {
		t.Fatalf("FinalResult: %v", describe(err))
	}
	if diff := cmp.Diff([]map[string]any{{"city": "Rome"}}, calls); diff != "" {
		t.Errorf("tool handler calls (-want +got):\n%s", diff)
	}
	// The helper sends a map as its JSON encoding (a JSON string output).
	const output = `{"city":"Rome","temp_c":18}`
	if text := res.OutputText(); !strings.Contains(text, output) {
		t.Errorf("final answer %q does not contain the handler's output %s", text, output)
	}
	if res.Turn.Status != "completed" || res.SessionID() != s.ID {
		t.Errorf("result turn: session %s status %s, want %s completed", res.SessionID(), res.Turn.Status, s.ID)
	}
	items := listItems(t, ctx, client, s.ID)
	if len(items) == 4 {
		checkRoundTripItems(t, items, items[1].CallID, output)
	} else {
		t.Errorf("items = %v, want 4", itemShapes(items))
	}
	// The session is idle again, so the helper can run a second turn on it.
	waitIdle(t, ctx, client, s.ID)
}

// checkRoundTripItems checks a session's items after one inline round trip: user message, function_call,
// function_call_output carrying output, assistant message containing it.
func checkRoundTripItems(t *testing.T, items []wireItem, callID, output string) {
	t.Helper()
	want := []string{"message/user", "function_call", "function_call_output", "message/assistant"}
	if diff := cmp.Diff(want, itemShapes(items)); diff != "" {
		t.Fatalf("items in order (-want +got):\n%s", diff)
	}
	if items[1].CallID != callID || items[1].Name != "get_weather" {
		t.Errorf("function_call item = %+v, want call %s get_weather", items[1], callID)
	}
	if items[2].CallID != callID || items[2].outputString() != output {
		t.Errorf("function_call_output item: call %s output %s, want call %s output %q", items[2].CallID, items[2].Output, callID, output)
	}
	if !strings.Contains(items[3].text(), output) || items[3].Phase != "final_answer" {
		t.Errorf("assistant item %+v: want phase final_answer and text containing %s", items[3], output)
	}
	ids := map[string]bool{}
	for _, it := range items {
		if it.ID == "" || ids[it.ID] {
			t.Errorf("item ids must be unique and non-empty: %v", itemIDs(items))
		}
		ids[it.ID] = true
	}
}

// checkOutputIndexes checks output_index on item events (docs/agents-api.md §2.4): it counts output items
// only — user messages and function results carry null — and an item's added and done events agree.
func checkOutputIndexes(t *testing.T, events []wireEvent) {
	t.Helper()
	next := 0
	seen := map[string]int{}
	for _, e := range events {
		if e.Item == nil || (e.Type != "agent.session.turn.item.added" && e.Type != "agent.session.turn.item.done") {
			continue
		}
		output := e.Item.Type == "function_call" || (e.Item.Type == "message" && e.Item.Role == "assistant")
		switch {
		case !output && e.OutputIndex != nil:
			t.Errorf("%s of %s has output_index %d, want null", e.Type, e.Item.Type, *e.OutputIndex)
		case output && e.OutputIndex == nil:
			t.Errorf("%s of %s has no output_index", e.Type, e.Item.Type)
		case output && e.Type == "agent.session.turn.item.added":
			if *e.OutputIndex != next {
				t.Errorf("item.added of %s has output_index %d, want %d", e.Item.Type, *e.OutputIndex, next)
			}
			seen[e.Item.ID] = *e.OutputIndex
			next++
		case output:
			if idx, ok := seen[e.Item.ID]; !ok || idx != *e.OutputIndex {
				t.Errorf("item.done of %s has output_index %d, its item.added had %d", e.Item.ID, *e.OutputIndex, idx)
			}
		}
	}
}

func itemShapes(items []wireItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = itemShape(it)
	}
	return out
}

func itemIDs(items []wireItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// waitIdle polls the Session until it reads idle.
func waitIdle(t *testing.T, ctx context.Context, client openai.Client, sessionID string) {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for {
		s := getSession(t, ctx, client, sessionID)
		if s.Status == "idle" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s still %s after %s", sessionID, s.Status, eventTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
