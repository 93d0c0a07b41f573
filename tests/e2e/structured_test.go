package e2e_test

import (
	"context"
	"testing"
)

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"temp_c":{"type":"integer"}},"required":["city","temp_c"],"additionalProperties":false}`

func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	text := map[string]any{"format": map[string]any{"type": "json_schema", "schema": rawJSON(citySchema)}}
	script := map[string]any{"chunk_size": 4, "rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "valid"}, "reply": `{"city": "Oslo", "temp_c": -3}`},
		map[string]any{"when": map[string]any{"user_contains": "prose"}, "reply": "It is cold in Oslo."},
		map[string]any{"when": map[string]any{"user_contains": "wrong"}, "reply": `{"city": "Oslo", "temp_c": "cold"}`},
	}}

	t.Run("a valid answer is one completed final_answer message, unchanged, in one delta", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		sid := newInlineSession(t, st, []any{}, text, script, nil)
		rec := record(t, ctx, client, sid)
		_, end, events := endedTurn(t, ctx, client, rec, sid, "valid please")
		if end != "agent.session.turn.completed" {
			t.Fatalf("turn ended with %s:\n%s", end, dump(events))
		}
		const want = `{"city": "Oslo", "temp_c": -3}`
		var deltas []string
		for _, e := range events {
			if e.Type == "agent.session.turn.output_text.delta" {
				deltas = append(deltas, e.Delta)
			}
		}
		if len(deltas) != 1 || deltas[0] != want {
			t.Errorf("output_text.delta events = %q, want exactly one with the whole answer", deltas)
		}
		if got := finalText(events); got != want {
			t.Errorf("final answer = %q, want %q", got, want)
		}
	})

	for _, tc := range []struct{ name, input string }{
		{"an answer that is not JSON fails the turn", "prose please"},
		{"an answer that violates the schema fails the turn", "wrong please"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			sid := newInlineSession(t, st, []any{}, text, script, nil)
			rec := record(t, ctx, client, sid)
			turnID, end, events := endedTurn(t, ctx, client, rec, sid, tc.input)
			if end != "agent.session.turn.failed" {
				t.Fatalf("turn ended with %s:\n%s", end, dump(events))
			}
			if n := count(events, isType("agent.session.turn.output_text.delta")); n != 0 {
				t.Errorf("an invalid answer was streamed (%d deltas)", n)
			}
			turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, sid, turnID)
			if err != nil {
				t.Fatalf("GET turn: %v", describe(err))
			}
			if turn.Status != "failed" || turn.Error.Code != "internal_error" {
				t.Errorf("turn = %s %+v, want failed with internal_error", turn.Status, turn.Error)
			}
			for _, it := range listItems(t, ctx, client, sid) {
				if it.Type == "message" && it.Role == "assistant" {
					t.Errorf("the failed turn left an assistant message: %+v", it)
				}
			}
			if s := getSession(t, ctx, client, sid); s.Status != "failed" {
				t.Errorf("session status = %q, want failed", s.Status)
			}
			// The next input starts a new turn.
			if next, end, _ := endedTurn(t, ctx, client, rec, sid, "valid now"); next == turnID || end != "agent.session.turn.completed" {
				t.Errorf("next turn %s ended with %s, want a new completed turn", next, end)
			}
		})
	}
}

// rawJSON is a JSON text embedded as is in a request body.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }
