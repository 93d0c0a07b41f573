package e2e_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/baton-run/baton/tests/stack"
)

// Tool results over raw HTTP, case by case: the results table of docs/agents-api.md §4 with the wire choices of docs/decisions.md
// §9 (messages and codes).

func eventsPath(sessionID string) string { return "/v1/agents/sessions/" + sessionID + "/events" }

func resultEvent(turnID, callID, output string) map[string]any {
	return map[string]any{"type": "agent.session.input.tool_result", "turn_id": turnID, "call_id": callID, "success": true, "output": output}
}

func postRaw(t *testing.T, st *stack.Stack, sessionID string, events ...map[string]any) stack.Response {
	t.Helper()
	return st.Do(t, http.MethodPost, eventsPath(sessionID), map[string]any{"events": events}, nil)
}

func wantAccepted(t *testing.T, what string, r stack.Response) {
	t.Helper()
	if r.Status != http.StatusAccepted {
		t.Fatalf("%s: status %d %s, want 202", what, r.Status, r.Body)
	}
}

// wantConflict checks a deterministic 409: type conflict_error and x-should-retry: false (so the SDK does not
// retry it, docs/agents-api.md §W2.3).
func wantConflict(t *testing.T, what string, r stack.Response) {
	t.Helper()
	e := r.Error()
	if r.Status != http.StatusConflict || e.Type != "conflict_error" || e.Code == nil || *e.Code != "conflict_error" {
		t.Errorf("%s: %d %s, want 409 with type and code conflict_error", what, r.Status, r.Body)
	}
	if got := r.Header.Get("X-Should-Retry"); got != "false" {
		t.Errorf("%s: x-should-retry = %q, want false", what, got)
	}
}

// wantUnknownCall checks the exact 400 the SDK's Sessions.Stream helper depends on (docs/decisions.md §9).
func wantUnknownCall(t *testing.T, what string, r stack.Response, callID string) {
	t.Helper()
	e := r.Error()
	want := stack.APIError{Message: "Unknown pending tool call: " + callID, Type: "invalid_request_error", Code: ptr("invalid_request_error")}
	if r.Status != http.StatusBadRequest {
		t.Errorf("%s: status %d %s, want 400", what, r.Status, r.Body)
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("%s: error body (-want +got):\n%s", what, diff)
	}
}

func wantNotFound(t *testing.T, what string, r stack.Response) {
	t.Helper()
	if r.Status != http.StatusNotFound || r.Error().Type != "not_found_error" {
		t.Errorf("%s: %d %s, want 404 not_found_error", what, r.Status, r.Body)
	}
}

func ptr[T any](v T) *T { return &v }

// visibleState is what a rejected request must leave unchanged: the Session (status, required actions) and its
// items.
type visibleState struct {
	Session wireSession
	Items   []string
}

func readState(t *testing.T, ctx context.Context, client openai.Client, sessionID string) visibleState {
	t.Helper()
	items := listItems(t, ctx, client, sessionID)
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID + "/" + it.Type + "/" + it.Status
	}
	return visibleState{Session: getSession(t, ctx, client, sessionID), Items: ids}
}

func wantUnchanged(t *testing.T, ctx context.Context, client openai.Client, sessionID string, before visibleState) {
	t.Helper()
	if diff := cmp.Diff(before, readState(t, ctx, client, sessionID)); diff != "" {
		t.Errorf("a rejected request changed the session (-before +after):\n%s", diff)
	}
}

// completeTurn waits on rec for the turn's completion and the following idle and returns the final answer text.
func completeTurn(t *testing.T, rec *recorder, from int, turnID string) string {
	t.Helper()
	i := rec.WaitFor(t, from, "turn.completed of "+turnID, isTurnEvent("agent.session.turn.completed", turnID))
	rec.WaitFor(t, i, "agent.session.idle", isType("agent.session.idle"))
	text := ""
	for _, e := range rec.Snapshot()[from:] {
		if e.TurnID == turnID && e.Type == "agent.session.turn.item.done" && e.Item != nil && e.Item.Type == "message" && e.Item.Phase == "final_answer" {
			text = e.Item.text()
		}
	}
	return text
}

func TestToolResults(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)

	t.Run("identical retry is accepted while the turn runs and after it ended, and applied once", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
		out := `{"temp_c":21}`
		wantAccepted(t, "first result", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, out)))
		wantAccepted(t, "identical retry", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, out)))
		if text := completeTurn(t, rec, 0, turnID); !strings.Contains(text, "["+out+"]") {
			t.Errorf("final answer %q does not contain [%s]", text, out)
		}
		wantAccepted(t, "identical retry after the turn ended", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, out)))
		items := listItems(t, ctx, client, sid)
		checkRoundTripItems(t, items, actions[0].CallID, out)
		if n := count(rec.Snapshot(), isTurnEvent("agent.session.turn.completed", turnID)); n != 1 {
			t.Errorf("turn.completed events = %d, want 1", n)
		}
	})

	t.Run("different result for an answered call is 409 conflict_error and keeps the first", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
		first, second := `{"temp_c":21}`, `{"temp_c":-5}`
		wantAccepted(t, "first result", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, first)))
		wantConflict(t, "different result", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, second)))
		if text := completeTurn(t, rec, 0, turnID); !strings.Contains(text, first) || strings.Contains(text, second) {
			t.Errorf("final answer %q: want the first result %s only", text, first)
		}
		wantConflict(t, "different result after the turn ended", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, second)))
		checkRoundTripItems(t, listItems(t, ctx, client, sid), actions[0].CallID, first)
	})

	t.Run("unknown call is 400 Unknown pending tool call and leaves the pending action", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, _, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
		before := readState(t, ctx, client, sid)
		if before.Session.Status != "requires_action" || len(before.Session.RequiredActions) != 1 {
			t.Fatalf("session before = %+v, want one required action", before.Session)
		}
		wantUnknownCall(t, "unknown call", postRaw(t, st, sid, resultEvent(turnID, "call_unknown", "x")), "call_unknown")
		wantUnknownCall(t, "known call under an unknown turn", postRaw(t, st, sid, resultEvent("turn_unknown", actions[0].CallID, "x")), actions[0].CallID)
		wantUnchanged(t, ctx, client, sid, before)
	})

	t.Run("call of another turn is 400 Unknown pending tool call", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, rec, turn1, actions1 := pendingTurn(t, ctx, client, "weather in Paris")
		wantAccepted(t, "result of turn 1", postRaw(t, st, sid, resultEvent(turn1, actions1[0].CallID, "sunny")))
		completeTurn(t, rec, 0, turn1)
		from := len(rec.Snapshot())
		postEvents(t, ctx, client, sid, userMessage("weather in Oslo"))
		i := rec.WaitFor(t, from, "requires_action of turn 2", isType("agent.session.requires_action"))
		actions2 := rec.Snapshot()[i].Session.RequiredActions
		if len(actions2) != 1 || actions2[0].TurnID == turn1 {
			t.Fatalf("turn 2 required actions = %+v", actions2)
		}
		turn2, call2 := actions2[0].TurnID, actions2[0].CallID
		before := readState(t, ctx, client, sid)
		wantUnknownCall(t, "turn 1's call under turn 2", postRaw(t, st, sid, resultEvent(turn2, actions1[0].CallID, "sunny")), actions1[0].CallID)
		wantUnknownCall(t, "turn 2's call under turn 1", postRaw(t, st, sid, resultEvent(turn1, call2, "rain")), call2)
		wantUnchanged(t, ctx, client, sid, before)
	})

	t.Run("missing or foreign session is 404 and writes nothing", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, _, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
		before := readState(t, ctx, client, sid)
		wantNotFound(t, "missing session", postRaw(t, st, "sess_missing", resultEvent(turnID, actions[0].CallID, "x")))
		foreign := st.WithKey(st.NewProjectKey(t, "proj_e2e_foreign"))
		wantNotFound(t, "foreign session", postRaw(t, foreign, sid, resultEvent(turnID, actions[0].CallID, "x")))
		wantNotFound(t, "foreign session read", foreign.Do(t, http.MethodGet, "/v1/agents/sessions/"+sid, nil, nil))
		wantUnchanged(t, ctx, client, sid, before)
	})

	t.Run("batch is atomic: one unknown call rejects the valid result with it", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
		before := readState(t, ctx, client, sid)
		r := postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, "stored?"), resultEvent(turnID, "call_unknown", "x"))
		wantUnknownCall(t, "batch with an unknown call", r, "call_unknown")
		wantUnchanged(t, ctx, client, sid, before)
		// Not stored: a different result for the same call is a first result now, not a 409.
		const out = "not stored before"
		wantAccepted(t, "result after the rejected batch", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, out)))
		if text := completeTurn(t, rec, 0, turnID); !strings.Contains(text, "["+out+"]") || strings.Contains(text, "stored?") {
			t.Errorf("final answer %q: want [%s] only", text, out)
		}
	})

	t.Run("after a cancel the first result is 409 and an identical retry of an earlier result is accepted", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in two cities")
		if len(actions) != 2 {
			t.Fatalf("required actions = %+v, want two calls", actions)
		}
		paris, rome := actions[0].CallID, actions[1].CallID
		wantAccepted(t, "result of the first call", postRaw(t, st, sid, resultEvent(turnID, paris, "sunny")))
		// A partial batch leaves both calls pending (docs/decisions.md §8).
		if s := getSession(t, ctx, client, sid); s.Status != "requires_action" || len(s.RequiredActions) != 2 {
			t.Errorf("after a partial answer the session is %s with %d required actions, want requires_action with 2", s.Status, len(s.RequiredActions))
		}
		wantAccepted(t, "cancel", postRaw(t, st, sid, map[string]any{"type": "agent.session.input.cancel"}))
		i := rec.WaitFor(t, 0, "turn.cancelled", isTurnEvent("agent.session.turn.cancelled", turnID))
		rec.WaitFor(t, i, "agent.session.idle after the cancel", isType("agent.session.idle"))
		wantConflict(t, "first result after the cancel", postRaw(t, st, sid, resultEvent(turnID, rome, "rain")))
		wantAccepted(t, "identical retry of a result accepted before the cancel", postRaw(t, st, sid, resultEvent(turnID, paris, "sunny")))
		wantConflict(t, "different result after the cancel", postRaw(t, st, sid, resultEvent(turnID, paris, "snow")))
		s := getSession(t, ctx, client, sid)
		if s.Status != "idle" || len(s.RequiredActions) != 0 {
			t.Errorf("session after the cancel = %+v, want idle without required actions", s)
		}
		turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, sid, turnID)
		if err != nil {
			t.Fatalf("GET turn: %v", describe(err))
		}
		if turn.Status != "cancelled" {
			t.Errorf("turn status after the cancel = %q, want cancelled", turn.Status)
		}
	})
}
