package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/store/dynamo"
	"github.com/baton-run/baton/tests/stack"
)

// runningTurn builds, directly on the engine over the shared stack's table, a Session whose turn a run has begun
// (no execution runs: the orchestrator is a fake), and returns the engine, the project and the run.
// holdFor is engine.Options.HoldFor (0: the default).
func runningTurn(t *testing.T, ctx context.Context, holdFor time.Duration) (*engine.Engine, string, *engine.Run) {
	t.Helper()
	clk := &clock{now: time.Now()}
	eng, sid := queuedTurn(t, ctx, clk, holdFor)
	s, err := eng.GetSession(ctx, heldProject, sid)
	if err != nil {
		t.Fatal(err)
	}
	run, err := eng.BeginRun(ctx, s.ID, s.ActiveTurnID)
	if err != nil {
		t.Fatalf("begin run: %v", err)
	}
	return eng, heldProject, run
}

const heldProject = "proj_held_output"

// queuedTurn creates a Session with one queued turn ("hi") on an engine over the shared stack's table whose
// orchestrator runs no execution, and returns the engine and the Session id.
func queuedTurn(t *testing.T, ctx context.Context, clk *clock, holdFor time.Duration) (*engine.Engine, string) {
	t.Helper()
	st := stack.Shared(t)
	eng := engine.New(engine.Options{Store: dynamo.New(stack.DynamoDB(st), st.Table), Orchestrator: &faultyOrch{}, Clock: clk.Now, HoldFor: holdFor})
	s, _, err := eng.CreateSession(ctx, heldProject, engine.NewSession{Inline: engine.RawObject{"model": json.RawMessage(`"scripted"`)}})
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	msg := session.Input{Type: session.InputMessage, Message: []session.ContentPart{{Type: "input_text", Text: "hi"}}}
	if err := eng.PostEvents(ctx, heldProject, s.ID, []session.Input{msg}, "", ""); err != nil {
		t.Fatalf("post message: %v", err)
	}
	return eng, s.ID
}

// eventTypes reads the Session's events after seq and returns them with their types.
func eventTypes(t *testing.T, ctx context.Context, eng *engine.Engine, sessionID string, after int64) ([]session.Event, []string) {
	t.Helper()
	evs, err := eng.EventsAfter(ctx, sessionID, after, 500)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	return evs, types
}

// TestAShortAnswerAndItsTurnsCompletionAreOneCommit: the turn's start, a message opened, its text, the message
// finished, the usage and the turn's completion are written by one transaction (engine.Run.Complete), with the
// events in the order separate commits would have written them, and the message stored under the id StartMessage
// returned. (The hold
// is long so that a slow machine cannot make the run's timer write part of it first.)
func TestAShortAnswerAndItsTurnsCompletionAreOneCommit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, project, run := runningTurn(t, ctx, time.Hour)
	sid, tid := run.Session.ID, run.Turn.ID
	seq := run.Session.EventSeq
	before := eng.Stats().Commits

	id, err := run.StartMessage(ctx, session.PhaseFinalAnswer)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"Hel", "lo"} {
		if err := run.AppendText(ctx, id, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.FinishMessage(ctx, id, "Hello"); err != nil {
		t.Fatal(err)
	}
	if err := run.RecordUsage(ctx, session.Usage{InputTokens: 3, OutputTokens: 2}); err != nil {
		t.Fatal(err)
	}
	if err := run.Complete(ctx); err != nil {
		t.Fatalf("complete: %v", err)
	}
	if n := eng.Stats().Commits - before; n != 1 {
		t.Errorf("%d commits for the answer and the completion, want 1", n)
	}

	evs, types := eventTypes(t, ctx, eng, sid, seq)
	want := []string{session.EventTurnInProgress, session.EventItemAdded, session.EventContentPartAdded, session.EventOutputTextDelta,
		session.EventOutputTextDone, session.EventContentPartDone, session.EventItemDone, session.EventTurnCompleted, session.EventSessionIdle}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	var added struct {
		Item struct{ ID string } `json:"item"`
	}
	var delta struct{ Delta string }
	_ = json.Unmarshal(evs[1].Data, &added)
	_ = json.Unmarshal(evs[3].Data, &delta)
	if added.Item.ID != id || delta.Delta != "Hello" {
		t.Errorf("item.added names %q (StartMessage returned %q), delta %q (want %q)", added.Item.ID, id, delta.Delta, "Hello")
	}

	items, _, err := eng.ListItems(ctx, project, sid, tid, engine.Page{Limit: 100, Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	last := items[len(items)-1]
	if last.ID != id || last.Status != session.ItemCompleted || len(last.Content) != 1 || last.Content[0].Text != "Hello" {
		t.Errorf("stored message %+v, want %s completed with %q", last, id, "Hello")
	}
	turn, err := eng.GetTurn(ctx, project, sid, tid)
	if err != nil {
		t.Fatal(err)
	}
	s, err := eng.GetSession(ctx, project, sid)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != session.TurnCompleted || turn.Usage == nil || turn.Usage.OutputTokens != 2 || s.Status != session.StatusIdle {
		t.Errorf("turn %s usage %+v, session %s; want completed with the usage, idle", turn.Status, turn.Usage, s.Status)
	}
}

// TestHeldOutputIsWrittenWithoutAFurtherCall: output the run holds is written DeltaFlushInterval after it was held
// even when the harness writes nothing else (a model that thinks before its next token), so a client is never kept
// waiting for it; the rest of the answer follows in order.
func TestHeldOutputIsWrittenWithoutAFurtherCall(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, _, run := runningTurn(t, ctx, 0)
	sid := run.Session.ID
	seq := run.Session.EventSeq

	id, err := run.StartMessage(ctx, session.PhaseFinalAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.AppendText(ctx, id, "thinking"); err != nil {
		t.Fatal(err)
	}
	want := []string{session.EventTurnInProgress, session.EventItemAdded, session.EventContentPartAdded, session.EventOutputTextDelta}
	for {
		_, types := eventTypes(t, ctx, eng, sid, seq)
		if slices.Equal(types, want) {
			break
		}
		if len(types) > 0 && !slices.Equal(types, want[:len(types)]) || ctx.Err() != nil {
			t.Fatalf("events %v, want %v written by the run's timer", types, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := run.FinishMessage(ctx, id, "thinking"); err != nil {
		t.Fatal(err)
	}
	if err := run.Complete(ctx); err != nil {
		t.Fatal(err)
	}
	_, types := eventTypes(t, ctx, eng, sid, seq)
	if want = append(want, session.EventOutputTextDone, session.EventContentPartDone, session.EventItemDone,
		session.EventTurnCompleted, session.EventSessionIdle); !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
}

// TestACompletionAfterACancelWritesNothing: the caller cancels while the run holds a whole answer. Complete
// refuses (the turn is not runnable), nothing of the run is written — not its start, not even the message opening,
// so there is no half-written message — and the turn stays cancelled with the Session idle. (The hold is long so that the
// run's timer cannot write the answer before the cancel.)
func TestACompletionAfterACancelWritesNothing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, project, run := runningTurn(t, ctx, time.Hour)
	sid, tid := run.Session.ID, run.Turn.ID

	id, err := run.StartMessage(ctx, session.PhaseFinalAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.AppendText(ctx, id, "never shown"); err != nil {
		t.Fatal(err)
	}
	if err := run.FinishMessage(ctx, id, "never shown"); err != nil {
		t.Fatal(err)
	}
	if err := eng.PostEvents(ctx, project, sid, []session.Input{{Type: session.InputCancel}}, "", ""); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	s, err := eng.GetSession(ctx, project, sid)
	if err != nil {
		t.Fatal(err)
	}
	seq := s.EventSeq
	if err := run.Complete(ctx); !errors.Is(err, engine.ErrTurnNotRunnable) {
		t.Fatalf("complete after a cancel: %v, want ErrTurnNotRunnable", err)
	}
	if err := run.Flush(ctx); !errors.Is(err, engine.ErrTurnNotRunnable) {
		t.Fatalf("flush after a cancel: %v, want ErrTurnNotRunnable", err)
	}
	if _, types := eventTypes(t, ctx, eng, sid, seq); len(types) != 0 {
		t.Errorf("events written after the cancel: %v", types)
	}
	items, _, err := eng.ListItems(ctx, project, sid, tid, engine.Page{Limit: 100, Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == id || it.Role == "assistant" {
			t.Errorf("the held message was written: %+v", it)
		}
	}
	turn, err := eng.GetTurn(ctx, project, sid, tid)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = eng.GetSession(ctx, project, sid); err != nil {
		t.Fatal(err)
	}
	if turn.Status != session.TurnCancelled || s.Status != session.StatusIdle {
		t.Errorf("turn %s, session %s; want cancelled and idle", turn.Status, s.Status)
	}
}

// resumeReads is the store that counts ItemsOfSession (the history Query) and GetResults (the round's results read
// on their own); everything else is the DynamoDB store's, including the Session-and-turn read.
type resumeReads struct {
	*dynamo.Store
	mu               sync.Mutex
	history, results int
}

func (h *resumeReads) ItemsOfSession(ctx context.Context, sessionID string) ([]session.Item, error) {
	h.mu.Lock()
	h.history++
	h.mu.Unlock()
	return h.Store.ItemsOfSession(ctx, sessionID)
}

func (h *resumeReads) GetResults(ctx context.Context, sessionID string, callIDs []string) (map[string]session.ToolResult, error) {
	h.mu.Lock()
	h.results++
	h.mu.Unlock()
	return h.Store.GetResults(ctx, sessionID, callIDs)
}

// counts returns the reads so far: history, results.
func (h *resumeReads) counts() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.history, h.results
}

// TestAResumeInTheProcessThatParkedReadsNoHistory: the run that resumes a turn in the process whose run parked it
// (as a runtime does: PeekTurn, then BeginRunFrom) takes that run's history instead of reading the Session's items
// again, and it is exactly what the store holds once the resume is written (the results applied included); the
// round's results come with the peek's read. A resume in another process reads both.
func TestAResumeInTheProcessThatParkedReadsNoHistory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := stack.Shared(t)
	store := &resumeReads{Store: dynamo.New(stack.DynamoDB(st), st.Table)}
	clk := &clock{now: time.Now()}
	newEngine := func() *engine.Engine {
		return engine.New(engine.Options{Store: store, Orchestrator: &faultyOrch{}, Clock: clk.Now})
	}
	// park runs a turn of a new Session up to its required action on parker and answers it.
	park := func(parker *engine.Engine) (sid, tid string) {
		s, _, err := parker.CreateSession(ctx, heldProject, engine.NewSession{Inline: engine.RawObject{"model": json.RawMessage(`"scripted"`)}})
		if err != nil {
			t.Fatal(err)
		}
		msg := session.Input{Type: session.InputMessage, Message: []session.ContentPart{{Type: "input_text", Text: "hi"}}}
		if err := parker.PostEvents(ctx, heldProject, s.ID, []session.Input{msg}, "", ""); err != nil {
			t.Fatal(err)
		}
		if s, err = parker.GetSession(ctx, heldProject, s.ID); err != nil {
			t.Fatal(err)
		}
		run, err := parker.BeginRun(ctx, s.ID, s.ActiveTurnID)
		if err != nil {
			t.Fatal(err)
		}
		id, err := run.StartMessage(ctx, session.PhaseCommentary)
		if err != nil {
			t.Fatal(err)
		}
		if err := run.FinishMessage(ctx, id, "let me look"); err != nil {
			t.Fatal(err)
		}
		if _, err := run.RequestCalls(ctx, []engine.PendingCall{{CallID: "call_a", Name: "f", Arguments: json.RawMessage(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		if err := parker.Park(ctx, s.ID, s.ActiveTurnID, 1, "token-"+s.ID); err != nil {
			t.Fatal(err)
		}
		res := session.Input{Type: session.InputToolResult, ToolResult: &session.ToolResult{TurnID: s.ActiveTurnID, CallID: "call_a", Success: true, Output: json.RawMessage(`"42"`)}}
		if err := parker.PostEvents(ctx, heldProject, s.ID, []session.Input{res}, "", ""); err != nil {
			t.Fatal(err)
		}
		return s.ID, s.ActiveTurnID
	}
	// resume begins the resumed run on e and checks its history against the store's.
	resume := func(e *engine.Engine, sid, tid string) {
		t.Helper()
		run := beginAsARuntime(t, ctx, e, sid, tid)
		requireHistoryAsStored(t, ctx, run)
		if !run.Resumed || run.History[len(run.History)-1].Type != session.ItemFunctionCallOutput {
			t.Errorf("resumed %v, last item %+v; want the applied result last", run.Resumed, run.History[len(run.History)-1])
		}
	}

	same := newEngine()
	sid, tid := park(same)
	h0, r0 := store.counts()
	resume(same, sid, tid)
	if h, r := store.counts(); h != h0 || r != r0 {
		t.Errorf("the resume in the process that parked read the history %d and the results %d times, want 0 and 0", h-h0, r-r0)
	}

	sid, tid = park(newEngine())
	h0, r0 = store.counts()
	resume(newEngine(), sid, tid)
	if h, r := store.counts(); h-h0 != 1 || r-r0 != 1 {
		t.Errorf("a resume in another process read the history %d and the results %d times, want 1 and 1", h-h0, r-r0)
	}
}

// TestOnlyOneOfTwoRunsOfATurnWrites: two runs begun from the same read of a queued turn (a retried activity task
// taken while the first is still running) both hold their start; the first to write wins, and the other's write
// fails with ErrTurnNotRunnable and writes nothing, so the turn is started once and shows one answer.
func TestOnlyOneOfTwoRunsOfATurnWrites(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := &clock{now: time.Now()}
	eng, sid := queuedTurn(t, ctx, clk, time.Hour)
	s, err := eng.GetSession(ctx, heldProject, sid)
	if err != nil {
		t.Fatal(err)
	}
	peek, err := eng.PeekTurn(ctx, sid, s.ActiveTurnID)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(run *engine.Run, text string) error {
		id, err := run.StartMessage(ctx, session.PhaseFinalAnswer)
		if err != nil {
			return err
		}
		if err := run.FinishMessage(ctx, id, text); err != nil {
			return err
		}
		return run.Complete(ctx)
	}
	first, err := eng.BeginRunFrom(ctx, peek)
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.BeginRunFrom(ctx, peek)
	if err != nil {
		t.Fatal(err)
	}
	if err := answer(first, "first"); err != nil {
		t.Fatalf("first run: %v", err)
	}
	seq := func() int64 {
		s, err := eng.GetSession(ctx, heldProject, sid)
		if err != nil {
			t.Fatal(err)
		}
		return s.EventSeq
	}
	after := seq()
	if err := answer(second, "second"); !errors.Is(err, engine.ErrTurnNotRunnable) {
		t.Fatalf("second run: %v, want ErrTurnNotRunnable", err)
	}
	if err := second.Flush(ctx); !errors.Is(err, engine.ErrTurnNotRunnable) {
		t.Fatalf("second run's flush: %v, want ErrTurnNotRunnable", err)
	}
	if got := seq(); got != after {
		t.Errorf("the second run wrote %d events", got-after)
	}
	_, types := eventTypes(t, ctx, eng, sid, peek.Session.EventSeq)
	if n := slices.Index(types, session.EventTurnInProgress); n != 0 || slices.Contains(types[1:], session.EventTurnInProgress) {
		t.Errorf("events %v: want one turn.in_progress, first", types)
	}
}
