package invoke

import (
	"bytes"
	"testing"

	"github.com/baton-run/baton/shared/agentcore/frames"
	"github.com/baton-run/baton/shared/session"
)

// TestTranslatorEndsALimitedTurnWithTheLimitsStopReason checks that a completion the harness caused at a limit
// (session.Turn.StopReason) stops the last message with that limit's stopReason, and any other completion with
// end_turn.
func TestTranslatorEndsALimitedTurnWithTheLimitsStopReason(t *testing.T) {
	t.Parallel()
	for stored, want := range map[string]string{
		session.StopMaxTokens:               `messageStop {"stopReason":"max_tokens"}`,
		session.StopMaxIterationsExceeded:   `messageStop {"stopReason":"max_iterations_exceeded"}`,
		session.StopMaxOutputTokensExceeded: `messageStop {"stopReason":"max_output_tokens_exceeded"}`,
		session.StopTimeoutExceeded:         `messageStop {"stopReason":"timeout_exceeded"}`,
		"":                                  `messageStop {"stopReason":"end_turn"}`,
		"something_else":                    `messageStop {"stopReason":"end_turn"}`,
	} {
		var buf bytes.Buffer
		var asked string
		tr := &translator{out: frames.NewWriter(&buf, nil), blocks: map[string]int{}, turnID: "turn_1",
			stopReason: func(id string) string { asked = id; return stored }}
		for _, e := range []session.Event{
			ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "msg_2", "type": "message", "role": "assistant"})),
			ev(session.EventOutputTextDelta, "turn_1", map[string]any{"item_id": "msg_2", "delta": "Partial"}),
			ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "status": "completed"})),
			ev(session.EventTurnCompleted, "turn_1", map[string]any{}),
		} {
			if err := tr.handle(e); err != nil {
				t.Fatal(err)
			}
		}
		got := decodeFrames(t, buf.Bytes())
		if !tr.done || asked != "turn_1" || got[len(got)-1] != want {
			t.Errorf("stored %q: asked for %q, frames %v, want last %s", stored, asked, got, want)
		}
	}
}
