package handoff_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/session"
)

func text(role string, texts ...string) handoff.Message {
	return handoff.Message{Role: role, Texts: texts}
}

func results(ids ...string) handoff.Message {
	m := handoff.Message{Role: "user"}
	for _, id := range ids {
		m.ToolResults = append(m.ToolResults, handoff.Result{ToolUseID: id, Content: []json.RawMessage{json.RawMessage(`{"text":"r-` + id + `"}`)}})
	}
	return m
}

func waiting(ids ...string) (*session.Turn, *handoff.Pending) {
	t := &session.Turn{ID: "turn_1", Status: session.TurnWaiting, Round: 1, PendingCalls: ids}
	p := &handoff.Pending{Turn: *t, Names: map[string]string{}}
	for _, id := range ids {
		p.Names[id] = "fn_" + id
	}
	return t, p
}

func TestDecideAdmitsANewTurnAndTheMatchingFollowUp(t *testing.T) {
	t.Parallel()
	d, err := handoff.Decide(nil, nil, []handoff.Message{text("assistant", "ignored"), text("user", "Hello", "there")}, nil)
	if err != nil || d.Text != "Hello\n\nthere" {
		t.Fatalf("new turn: %+v %v", d, err)
	}
	done := &session.Turn{Status: session.TurnCompleted}
	if d, err := handoff.Decide(done, nil, []handoff.Message{text("user", "again")}, nil); err != nil || d.Text != "again" {
		t.Fatalf("after a finished turn: %+v %v", d, err)
	}
	turn, pending := waiting("a", "b")
	resent := handoff.Message{Role: "assistant", ToolUses: []string{"a", "b"}}
	d, err = handoff.Decide(turn, pending, []handoff.Message{resent, results("b", "a")}, []string{"fn_a", "fn_b"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range d.Results {
		ids = append(ids, r.CallID)
		if r.TurnID != "turn_1" || !r.Success {
			t.Errorf("result %+v", r)
		}
	}
	if d := cmp.Diff([]string{"a", "b"}, ids); d != "" {
		t.Errorf("results must follow the pending order (-want +got):\n%s", d)
	}
}

func TestDecideRejectsEveryInvalidFollowUpNamingTheIDs(t *testing.T) {
	t.Parallel()
	turn, pending := waiting("a", "b")
	answered := *pending
	answered.Answered = []string{"a"}
	running := &session.Turn{ID: "turn_1", Status: session.TurnInProgress}
	cases := []struct {
		name    string
		active  *session.Turn
		pending *handoff.Pending
		msgs    []handoff.Message
		tools   []string
		reason  handoff.Reason
		message string
	}{
		{"missing", turn, pending, []handoff.Message{results("a")}, []string{"fn_a", "fn_b"}, handoff.ReasonInvalidResults, "Missing toolResult for b; send every pending result in one request."},
		{"duplicate", turn, pending, []handoff.Message{results("a", "a", "b")}, []string{"fn_a", "fn_b"}, handoff.ReasonInvalidResults, "Duplicate toolResult for a."},
		{"unknown", turn, pending, []handoff.Message{results("a", "b", "zzz")}, []string{"fn_a", "fn_b"}, handoff.ReasonInvalidResults, "toolResult zzz does not answer a pending tool call (unknown or stale); pending: a, b."},
		{"replayed before resume", turn, &answered, []handoff.Message{results("a", "b")}, []string{"fn_a", "fn_b"}, handoff.ReasonInvalidResults, "toolResult a was already submitted (replayed)."},
		{"stale while running", running, nil, []handoff.Message{results("a")}, nil, handoff.ReasonNoPause, "No tool call is pending in this session; toolResult a is stale or replayed."},
		{"stale when idle", nil, nil, []handoff.Message{results("a")}, nil, handoff.ReasonNoPause, "No tool call is pending in this session; toolResult a is stale or replayed."},
		{"plain text while paused", turn, pending, []handoff.Message{text("user", "hi")}, []string{"fn_a", "fn_b"}, handoff.ReasonAwaitingResults, "The session is waiting for toolResult for a, b; send exactly those results."},
		{"text beside results", turn, pending, []handoff.Message{results("a", "b"), text("user", "hi")}, []string{"fn_a", "fn_b"}, handoff.ReasonAwaitingResults, "The session is waiting for toolResult for a, b; a user text cannot be sent while they are pending."},
		{"foreign re-sent toolUse", turn, pending, []handoff.Message{{Role: "assistant", ToolUses: []string{"x"}}, results("a", "b")}, []string{"fn_a", "fn_b"}, handoff.ReasonInvalidResults, "toolUse x is not pending in this session; pending: a, b."},
		{"override tool not sent again", turn, pending, []handoff.Message{results("a", "b")}, []string{"fn_a"}, handoff.ReasonToolMissing, "The pending tool call b uses the inline function fn_b, which is not among this request's tools; send the tools override again."},
		{"busy", running, nil, []handoff.Message{text("user", "hi")}, nil, handoff.ReasonBusy, "The session is processing another invocation; wait for its stream to end."},
		{"no text", nil, nil, []handoff.Message{text("user", "  ")}, nil, handoff.ReasonNoInput, "The request must contain a user message with text."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := handoff.Decide(c.active, c.pending, c.msgs, c.tools)
			var rej *handoff.Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("err = %v, want a rejection", err)
			}
			if rej.Reason != c.reason || rej.Message != c.message {
				t.Errorf("got %s %q, want %s %q", rej.Reason, rej.Message, c.reason, c.message)
			}
		})
	}
}

func TestToolResultOfJoinsContentAndKeepsTheStatus(t *testing.T) {
	t.Parallel()
	r := handoff.ToolResultOf("turn_1", handoff.Result{ToolUseID: "a", Content: []json.RawMessage{
		json.RawMessage(`{"text":"21C "}`), json.RawMessage(`{"json":{ "sky" : "sunny" }}`)}})
	if string(r.Output) != `"21C {\"sky\":\"sunny\"}"` || r.Error != nil || !r.Success {
		t.Errorf("success = %+v (output %s)", r, r.Output)
	}
	e := handoff.ToolResultOf("turn_1", handoff.Result{ToolUseID: "a", Error: true, Content: []json.RawMessage{json.RawMessage(`{"text":"denied"}`)}})
	if string(e.Error) != `"denied"` || e.Output != nil || e.Success {
		t.Errorf("error = %+v", e)
	}
}
