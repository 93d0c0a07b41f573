package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-run/baton/shared/session"
)

// ErrTurnNotRunnable: the turn is terminal or cancelled, so a harness must not (or no longer) work on it. A runtime
// fails its task with the ASL error name Baton.TurnNotRunnable; Settle then keeps the turn's terminal state.
var ErrTurnNotRunnable = errors.New("turn is not runnable")

// Run is a harness's handle on one activity task of a turn: the Session (with its frozen snapshot), the Turn, and
// the history the model sees. Its methods append output durably, each in one transaction, and fail with
// ErrTurnNotRunnable once the turn was cancelled or ended. Output that nothing waits on (a message opened or
// finished, text, usage, a stop reason) is held and written by the run's next commit (see "Held output" below).
// Session, Turn and History are the state the run's last commit left (or BeginRun read); the run's timer may
// change them, so read them with Snapshot while the run is in use.
type Run struct {
	e       *Engine
	Session session.Session
	Turn    session.Turn
	// History is every item of the Session in order, including the function_call_output items this run applied.
	History []session.Item
	// Resumed is true when this run continues a turn after its function results arrived.
	Resumed bool
	// Queued are the calls the model made after the function calls of the turn's current round, to run once
	// those calls' results are in (Turn.Queued; RequestCalls); nil before the first round.
	Queued  []PendingCall
	indexes map[string]int

	// mu serialises the run's writes: the harness's calls and the timer that flushes held output.
	mu sync.Mutex
	// held are output changes not yet written, in order; pending is text appended to an open message after them.
	held    []change
	pending pendingText
	// heldItems and heldOutputs count the items and output indexes the held changes take when written, so
	// StartMessage can name its message before it is written.
	heldItems, heldOutputs int
	// timer flushes held output DeltaFlushInterval after the first of it was held; timerCtx is the context it
	// writes with.
	timer    *time.Timer
	timerCtx context.Context
	// flushErr is the error of a timer flush, returned by the run's next call.
	flushErr error
	// usage is token usage RecordUsage staged for the run's next commit; nil = none.
	usage *session.Usage
}

// Snapshot returns the run's Session, Turn and History as of now. Use it, not the fields, once the run may be
// writing held output on its timer (after BeginRun returned); the history's items are never changed in place.
func (r *Run) Snapshot() (session.Session, session.Turn, []session.Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Session, r.Turn, r.History
}

// change is one output change of a run, applied to fresh copies of the Session and Turn within a commit.
type change func(s *session.Session, t *session.Turn, w *writer) error

// Held output (docs/internals.md "Streaming writes"): the text deltas a harness appends to an open message are
// coalesced, so the writes of a streamed answer grow with its bytes, not with its tokens, and output no one waits on
// rides on the run's next commit instead of costing a transaction of its own: StartMessage, FinishMessage,
// RecordStopReason and RecordUsage. Buffered text is written as one output_text.delta event when DeltaFlushBytes are
// buffered; everything held is written by the run's next other commit (the calls it parks on, an MCP call item, the
// turn's completion: Complete), by Flush, or DeltaFlushInterval (Options.HoldFor) after the first of it was held, whichever comes
// first — ahead of that commit's own events, in the order it was produced, so event order is unchanged and a client
// sees output at most DeltaFlushInterval late. Each text flush appends one event; the open message item itself is
// not rewritten (its partial text is rebuilt from its delta events if the turn is cancelled or fails before the
// message finishes).
const (
	DeltaFlushBytes    = 1024
	DeltaFlushInterval = 50 * time.Millisecond
)

// pendingText is buffered text of one open message.
type pendingText struct {
	itemID string
	text   strings.Builder
}

// PendingCall is a function call the model made, for RequestCalls. Arguments is a JSON value (an object for
// well-formed calls).
type PendingCall struct {
	CallID    string
	Name      string
	Arguments json.RawMessage
}

// BeginRun starts (or, after its results arrived, resumes) a turn for a harness. Starting moves a queued turn to
// in_progress (event turn.in_progress). Resuming applies the stored tool results: one function_call_output item
// and item.added each, then session.in_progress (required actions cleared) and turn.in_progress
// (docs/agents-api.md §2.6). Returns ErrTurnNotRunnable for a terminal or cancelled turn.
//
// The start or resume is held output (see "Held output"): it is written by the run's first commit, in the same
// transaction as the output that follows it (or by Flush, or DeltaFlushInterval later, whichever comes first).
// That commit is conditional on the versions of the Session and turn read here, so it fences a second run of the
// same turn off exactly as a commit of its own would, and it re-checks that the turn is still queued, or waiting
// in the same round; otherwise it fails with ErrTurnNotRunnable and nothing of the run is written. The run's
// Session and Turn are the ones read here until that commit.
//
// The history is the Session's items as the store has them, or — when this process's run parked the turn and no
// item of the Session changed since (Session.ItemsRevision) — that run's history (historyCache), plus the items
// this resume applies, as it will write them.
func (e *Engine) BeginRun(ctx context.Context, sessionID, turnID string) (*Run, error) {
	return e.beginRun(ctx, sessionID, turnID, Peek{}, false)
}

// BeginRunFrom is BeginRun starting from what the caller's PeekTurn read moments ago, so a runtime reads the
// Session and turn (and, for a resume its process parked, the results) once per activity task: a start or a
// resume commits on condition that both versions are still the stored ones, so a stale read only costs a conflict
// and a fresh read. Where it would decide without a versioned write (the turn looks not runnable, or a retried task
// of a turn already in progress), it reads afresh.
func (e *Engine) BeginRunFrom(ctx context.Context, p Peek) (*Run, error) {
	return e.beginRun(ctx, p.Session.ID, p.Turn.ID, p, true)
}

func (e *Engine) beginRun(ctx context.Context, sessionID, turnID string, p Peek, peeked bool) (*Run, error) {
	for attempt := 0; ; attempt++ {
		r, err := e.beginRunOnce(ctx, sessionID, turnID, p, peeked)
		peeked = false
		if errors.Is(err, errStalePeek) || isConflict(err) && attempt < maxCommitAttempts {
			continue
		}
		return r, err
	}
}

// errStalePeek: beginRunOnce would decide from a peeked read without a versioned write; BeginRun reads afresh.
var errStalePeek = errors.New("peeked state not usable without a fresh read")

func (e *Engine) beginRunOnce(ctx context.Context, sessionID, turnID string, p Peek, peeked bool) (*Run, error) {
	s, t := p.Session, p.Turn
	if !peeked {
		var err error
		if s, err = e.store.GetSession(ctx, sessionID); err != nil {
			return nil, err
		}
		if t, err = e.store.GetTurn(ctx, sessionID, turnID); err != nil {
			return nil, err
		}
	}
	if !t.Runnable() || s.ActiveTurnID != t.ID {
		if peeked {
			return nil, errStalePeek
		}
		return nil, ErrTurnNotRunnable
	}
	if peeked && t.Status != session.TurnQueued && t.Status != session.TurnWaiting {
		return nil, errStalePeek // no write below would fence a stale read
	}
	run := &Run{e: e, indexes: map[string]int{}}
	// The begin below is held (see "Held output"): it rides on the run's first commit, whose version checks on
	// the Session and turn read here fence the run off as the begin's own commit would, and it checks again that
	// the turn is still where this read found it.
	var begin change
	var added []session.Item // the function_call_output items the resume writes, as it will write them
	switch t.Status {
	case session.TurnQueued:
		begin = func(s *session.Session, t *session.Turn, w *writer) error {
			if t.Status != session.TurnQueued {
				return fmt.Errorf("start turn %s: it is %s, no longer queued: %w", t.ID, t.Status, ErrTurnNotRunnable)
			}
			now := e.now()
			t.Status = session.TurnInProgress
			t.StartedAt = &now
			w.event(session.EventTurnInProgress, t.ID, func(m map[string]any) { m["turn"] = *t })
			return nil
		}
	case session.TurnWaiting:
		if probe := t; !probe.BeginResume() {
			if peeked {
				return nil, errStalePeek
			}
			return nil, fmt.Errorf("turn %s round %d is waiting for results: %w", t.ID, t.Round, ErrTurnNotRunnable)
		}
		results := p.results
		if !peeked || !answersAll(results, t.PendingCalls) {
			var err error
			if results, err = e.store.GetResults(ctx, sessionID, t.PendingCalls); err != nil {
				return nil, err
			}
		}
		for i, id := range t.PendingCalls {
			r := results[id]
			status := session.ItemCompleted
			if !r.Success {
				status = session.ItemFailed
			}
			seq := s.ItemSeq + int64(i) + 1
			added = append(added, storedItem(session.Item{ID: itemID("fco", seq), Seq: seq, Type: session.ItemFunctionCallOutput, TurnID: t.ID, CallID: id, Output: r.Output, Error: r.Error, Status: status}))
		}
		round := t.Round
		begin = func(s *session.Session, t *session.Turn, w *writer) error {
			if t.Status != session.TurnWaiting || t.Round != round || !t.BeginResume() {
				return fmt.Errorf("resume turn %s round %d: it was resumed or moved on meanwhile: %w", t.ID, round, ErrTurnNotRunnable)
			}
			for _, want := range added {
				it := want
				it.Seq = 0
				if it = w.item("fco", it); it.Seq != want.Seq {
					return fmt.Errorf("resume turn %s: the Session's items moved under its run (seq %d, want %d)", t.ID, it.Seq, want.Seq)
				}
				w.event(session.EventItemAdded, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = nil })
			}
			s.Status = session.StatusInProgress
			s.RequiredActions = nil
			w.event(session.EventSessionInProgress, "", func(m map[string]any) { m["session"] = *s })
			w.event(session.EventTurnInProgress, t.ID, func(m map[string]any) { m["turn"] = *t })
			return nil
		}
		run.Resumed = true
	case session.TurnInProgress:
		// A retried activity task of a turn no harness applied output to yet: continue without new events.
	}
	hist, ok := e.history.take(sessionID, s.ItemsRevision)
	if !ok {
		var err error
		if hist, err = e.store.ItemsOfSession(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	hist = append(hist, added...)
	run.Session, run.Turn, run.History = s, t, hist
	if begin != nil {
		run.mu.Lock()
		defer run.mu.Unlock()
		run.held = []change{begin}
		run.heldItems = len(added)
		run.startTimer(ctx)
		if !holdable(added) {
			// Too big to ride on another commit (DynamoDB's limits on one transaction): the resume commits on its
			// own, as the output that follows it may need the whole transaction.
			if err := run.flushLocked(ctx, nil, false); err != nil {
				return nil, err
			}
		}
	}
	if t.Round > 0 {
		for _, q := range t.Queued {
			run.Queued = append(run.Queued, PendingCall{CallID: q.CallID, Name: q.Name, Arguments: q.Arguments})
		}
	}
	return run, nil
}

// apply runs one output change against fresh copies of the session and turn, retrying on conflicts. The output the
// run holds (see "Held output") is written by the same commit, ahead of the change: one transaction, not one per
// kind of output.
func (r *Run) apply(ctx context.Context, c change) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked(ctx, c, false)
}

// hold queues c to be written by the run's next commit, after the text buffered so far; r.mu is held.
func (r *Run) hold(ctx context.Context, c change) error {
	if r.flushErr != nil {
		return r.flushErr
	}
	if d := r.takeText(); d != nil {
		r.held = append(r.held, d)
	}
	r.held = append(r.held, c)
	r.startTimer(ctx)
	return nil
}

// startTimer arms the DeltaFlushInterval flush unless it is armed already; r.mu is held.
func (r *Run) startTimer(ctx context.Context) {
	if r.timer == nil {
		r.timerCtx = context.WithoutCancel(ctx)
		r.timer = time.AfterFunc(r.e.holdFor, r.flushOnTimer)
	}
}

// takeText returns the buffered text as a change that writes it as one output_text.delta event, and empties the
// buffer; nil when no text is buffered. r.mu is held.
func (r *Run) takeText() change {
	p := &r.pending
	if p.itemID == "" {
		return nil
	}
	itemID, delta, idx := p.itemID, p.text.String(), r.indexes[p.itemID]
	p.itemID = ""
	p.text.Reset()
	return func(s *session.Session, t *session.Turn, w *writer) error {
		w.event(session.EventOutputTextDelta, t.ID, func(m map[string]any) {
			m["item_id"] = itemID
			m["output_index"] = idx
			m["content_index"] = 0
			m["delta"] = delta
		})
		return nil
	}
}

// flushLocked commits, in one transaction, the output the run holds (held changes, buffered text, staged usage)
// and then c (nil: none). It writes nothing when there is nothing to write. When the commit fails, the held output
// stays held if c refused or keep is set; otherwise the run is broken and every later call returns the error.
// r.mu is held.
func (r *Run) flushLocked(ctx context.Context, c change, keep bool) error {
	if r.flushErr != nil {
		return r.flushErr
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer, r.timerCtx = nil, nil
	}
	held := r.held
	if d := r.takeText(); d != nil {
		held = append(held, d)
	}
	usage := r.usage
	if len(held) == 0 && usage == nil && c == nil {
		return nil
	}
	r.held = nil
	var changeErr error
	err := r.applyLocked(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		for _, h := range held {
			if err := h(s, t, w); err != nil {
				return err
			}
		}
		if usage != nil {
			sum := *usage
			if t.Usage != nil {
				sum.InputTokens += t.Usage.InputTokens
				sum.OutputTokens += t.Usage.OutputTokens
			}
			t.Usage = &sum
		}
		if c != nil {
			changeErr = c(s, t, w)
		}
		return changeErr
	})
	switch {
	case err != nil && (changeErr != nil || keep):
		// The change refused, or the caller writes the held output another way: it stays held.
		r.held = held // the staged usage is still r.usage
		r.startTimer(ctx)
		return err
	case err != nil:
		if len(held) > 0 || usage != nil {
			r.flushErr = err
		}
		return err
	}
	r.usage = nil
	r.heldItems, r.heldOutputs = 0, 0
	return nil
}

// Flush writes what the run still holds (held output, staged usage) as one commit, or nothing when it holds
// nothing. harness.Run calls it before an activity task ends, unless Complete wrote it.
func (r *Run) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked(ctx, nil, false)
}

// Complete commits the end of a turn whose harness completed (events turn.completed with the turn's usage, then
// session.idle when it is the Session's active turn, as Settle does for a completed run) together with everything
// the run still holds: the final message and the turn's completion in one transaction, on condition of the
// versions of the Session and the turn this run last wrote or read. Errors: ErrTurnNotRunnable when the turn was
// cancelled or ended meanwhile, or a store error; either way the held output stays held for Flush (and Settle
// decides the turn's end).
func (r *Run) Complete(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		r.e.completeTurn(s, t, w)
		return nil
	}, true)
}

// flushOnTimer is the DeltaFlushInterval timer: it writes the output that is still held.
func (r *Run) flushOnTimer() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		_ = r.flushLocked(r.timerCtx, nil, false)
	}
}

// applyLocked is apply without the flush; r.mu is held. A change that leaves the turn as it was writes no turn
// record: the commit only checks the turn's version, a fence that a cancel request breaks.
func (r *Run) applyLocked(ctx context.Context, change func(s *session.Session, t *session.Turn, w *writer) error) error {
	e := r.e
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		s, t := r.Session, r.Turn
		if attempt > 0 {
			var err error
			if s, err = e.store.GetSession(ctx, r.Session.ID); err != nil {
				return err
			}
			if t, err = e.store.GetTurn(ctx, r.Session.ID, r.Turn.ID); err != nil {
				return err
			}
		}
		if !t.Runnable() {
			return ErrTurnNotRunnable
		}
		w := newWriter(&s)
		before := t
		before.PendingCalls, before.Answered, before.Requires = slices.Clone(t.PendingCalls), slices.Clone(t.Answered), slices.Clone(t.Requires)
		if err := change(&s, &t, w); err != nil {
			return err
		}
		unchanged := reflect.DeepEqual(before, t)
		s.LastActiveAt = e.now()
		c := Commit{Session: &s, SessionVersion: s.Version, Turns: []TurnWrite{{Turn: t, Version: t.Version, CheckOnly: unchanged}}, Items: w.items, Events: w.events, Calls: w.calls}
		err := e.commit(ctx, c)
		if isConflict(err) && attempt < maxCommitAttempts {
			continue
		}
		if err != nil {
			return err
		}
		s.Version++
		if !unchanged {
			t.Version++
		}
		r.Session, r.Turn = s, t
		r.History = withItems(r.History, w.items)
		return nil
	}
}

// Held output budget: what a run may hold so that it still fits, with the commit it rides on, in one DynamoDB
// transaction (100 writes, 4 MB). The largest commit held output rides on is RequestCalls' single commit
// (singleCommitCalls: 2 writes per call, the Session and the turn).
const (
	maxHeldItems = 24
	maxHeldBytes = 256 << 10
)

// holdable reports whether a resume that applies items may be held: few enough and small enough items.
func holdable(items []session.Item) bool {
	if len(items) > maxHeldItems {
		return false
	}
	n := 0
	for _, it := range items {
		n += len(it.Output) + len(it.Error)
	}
	return n <= maxHeldBytes
}

// answersAll reports whether results has a result for every call.
func answersAll(results map[string]session.ToolResult, calls []string) bool {
	for _, id := range calls {
		if _, ok := results[id]; !ok {
			return false
		}
	}
	return true
}

// withItems returns hist with a commit's item writes applied, in their stored form (storedItem): new items
// appended, rewritten ones — and new ones the history already shows (a resume's function_call_output items) —
// replaced. No item a reader of hist can see is changed in place (a harness may be reading it while the run's timer
// commits): a rewrite works on a copy.
func withItems(hist []session.Item, writes []ItemWrite) []session.Item {
	copied := false
	for _, iw := range writes {
		it := storedItem(iw.Item)
		i := slices.IndexFunc(hist, func(h session.Item) bool { return h.Seq == it.Seq })
		switch {
		case i >= 0:
			if !copied {
				hist, copied = slices.Clone(hist), true
			}
			hist[i] = it
		case !iw.Replace:
			hist = append(hist, it) // past every reader's length: no one reads it yet
		}
	}
	return hist
}

// storedItem returns it as the store gives it back: the store encodes raw JSON values compactly (jsonwire), so a
// history kept in memory shows the model the same bytes as one read from the table.
func storedItem(it session.Item) session.Item {
	it.Arguments, it.Output, it.Error = compactJSON(it.Arguments), compactJSON(it.Output), compactJSON(it.Error)
	return it
}

// compactJSON returns r without insignificant whitespace (r itself when it has none or is not valid JSON).
func compactJSON(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return r
	}
	var b bytes.Buffer
	if json.Compact(&b, r) != nil || b.Len() == len(r) {
		return r
	}
	return json.RawMessage(b.Bytes())
}

// StartMessage opens an assistant message with the given phase (PhaseFinalAnswer or PhaseCommentary): the item
// (in_progress, empty content) and its output_text part, with events item.added and content_part.added. Returns the
// item id for AppendText and FinishMessage. The message is held (see "Held output"): it is written with its first
// text, at the latest DeltaFlushInterval later. Its id and output index are the ones it takes when written: while
// a turn runs, only its run appends items to the Session (new input is refused as busy) and output to the turn.
func (r *Run) StartMessage(ctx context.Context, phase string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flushErr != nil {
		return "", r.flushErr
	}
	seq := r.Session.ItemSeq + int64(r.heldItems) + 1
	idx := r.Turn.OutputCount + r.heldOutputs
	id := itemID("msg", seq)
	err := r.hold(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		if t.OutputCount != idx || s.ItemSeq+1 != seq {
			return fmt.Errorf("start message %s: the turn's output moved under its run (output index %d, want %d; item seq %d, want %d)", id, t.OutputCount, idx, s.ItemSeq+1, seq)
		}
		t.OutputCount++
		ph := phase
		it := w.item("msg", session.Item{ID: id, Type: session.ItemMessage, TurnID: t.ID, Role: "assistant", Phase: &ph, Status: session.ItemInProgress})
		it.OutputIndex = &idx
		it.StartEventSeq = s.EventSeq + 1 // the item.added event below
		w.items[len(w.items)-1].Item = it
		w.event(session.EventItemAdded, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = idx })
		w.event(session.EventContentPartAdded, t.ID, func(m map[string]any) {
			m["item_id"] = it.ID
			m["output_index"] = idx
			m["content_index"] = 0
			m["part"] = session.ContentPart{Type: "output_text"}
		})
		return nil
	})
	if err != nil {
		return "", err
	}
	r.heldItems++
	r.heldOutputs++
	r.indexes[id] = idx
	if r.heldItems >= maxHeldItems {
		// Everything held is written now, so held output always fits in one transaction with the commit it
		// rides on.
		if err := r.flushLocked(ctx, nil, false); err != nil {
			return "", err
		}
	}
	return id, nil
}

// AppendText appends text to an open message. The text is buffered and written as part of one
// output_text.delta event by the next flush (DeltaFlushBytes, DeltaFlushInterval); an error of an earlier timer
// flush (ErrTurnNotRunnable after a cancel) is returned here.
func (r *Run) AppendText(ctx context.Context, itemID, delta string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.indexes[itemID]; !ok {
		return fmt.Errorf("append text: message %s is not open in this run", itemID)
	}
	if r.flushErr != nil {
		return r.flushErr
	}
	p := &r.pending
	if p.itemID != "" && p.itemID != itemID {
		r.held = append(r.held, r.takeText())
	}
	p.itemID = itemID
	p.text.WriteString(delta)
	r.startTimer(ctx)
	if p.text.Len() >= DeltaFlushBytes {
		return r.flushLocked(ctx, nil, false)
	}
	return nil
}

// FinishMessage completes an open message with its whole text: output_text.done, content_part.done and item.done,
// and stores the item completed. text replaces the deltas (docs/agents-api.md §2.6). It is held (see "Held
// output"): written by the run's next commit, at the latest DeltaFlushInterval later.
func (r *Run) FinishMessage(ctx context.Context, itemID, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, ok := r.indexes[itemID]
	if !ok {
		return fmt.Errorf("finish message: message %s is not open in this run", itemID)
	}
	return r.hold(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		it, ok := r.itemOf(w, itemID)
		if !ok {
			return fmt.Errorf("finish message: message %s is not in the run's history", itemID)
		}
		it.Status = session.ItemCompleted
		it.Content = []session.ContentPart{{Type: "output_text", Text: text}}
		w.replace(it)
		base := func(m map[string]any) { m["item_id"] = itemID; m["output_index"] = idx; m["content_index"] = 0 }
		w.event(session.EventOutputTextDone, t.ID, func(m map[string]any) { base(m); m["text"] = text })
		w.event(session.EventContentPartDone, t.ID, func(m map[string]any) { base(m); m["part"] = it.Content[0] })
		w.event(session.EventItemDone, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = idx })
		return nil
	})
}

// itemOf returns the item id as the commit being written (w) or the run's history has it last.
func (r *Run) itemOf(w *writer, id string) (session.Item, bool) {
	for i := len(w.items) - 1; i >= 0; i-- {
		if w.items[i].Item.ID == id {
			return w.items[i].Item, true
		}
	}
	for i := len(r.History) - 1; i >= 0; i-- {
		if r.History[i].ID == id {
			return r.History[i], true
		}
	}
	return session.Item{}, false
}

// RecordUsage adds token usage measured by the harness to the turn (no event). The usage is staged and written
// by the run's next commit (the calls it parks on, the completion) or by Flush, so it costs no transaction of its
// own; an error of an earlier timer flush is returned here.
func (r *Run) RecordUsage(ctx context.Context, u session.Usage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flushErr != nil {
		return r.flushErr
	}
	if r.usage == nil {
		r.usage = &session.Usage{}
	}
	r.usage.InputTokens += u.InputTokens
	r.usage.OutputTokens += u.OutputTokens
	return nil
}

// RecordStopReason notes on the turn why the harness is ending it early (session.Turn.StopReason: a limit of the
// configuration's Controls, docs/agentcore.md §3.5); the harness then completes the turn as usual. It emits no
// event: a front door reads it from the turn when the turn.completed event arrives. It is held (see "Held output")
// and written by the run's next commit, usually the completion (Complete).
func (r *Run) RecordStopReason(ctx context.Context, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hold(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		t.StopReason = reason
		return nil
	})
}

// RequestCalls parks the turn on function calls the model made, in call order. It stores the calls (so tool
// results are admitted from then on), moves the turn to waiting with a new round, appends one function_call item
// per call (events item.added then item.done each) and sets the Session to requires_action with the calls as
// required actions (event requires_action) — the calls are durable before any event shows them (docs/decisions.md
// §7). Up to singleCommitCalls calls this is one transaction; larger batches first store the calls, then
// append the items and events in chunks that fit DynamoDB's transaction limit, requires_action last. Returns the
// new round for the activity output.
//
// queued are the calls of the same model response that come after calls (docs/tools.md "Order of tool calls"):
// they are stored on the turn with the first commit (Turn.Queued, replacing any earlier round's) and handed to
// the run that resumes this round (Run.Queued); none = nil.
func (r *Run) RequestCalls(ctx context.Context, calls []PendingCall, queued ...PendingCall) (int, error) {
	if len(calls) == 0 {
		return 0, errors.New("request calls: no calls")
	}
	r.mu.Lock() // the run's timer may be committing
	round, sessionID, turnID := r.Turn.Round+1, r.Session.ID, r.Turn.ID
	r.mu.Unlock()
	calls = slices.Clone(calls) // absent arguments become {} below; the caller's slice stays as it was
	stored := make([]session.Call, len(calls))
	for i, pc := range calls {
		args := pc.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		calls[i].Arguments = args
		stored[i] = session.Call{CallID: pc.CallID, TurnID: turnID, Round: round, Name: pc.Name, Arguments: args}
	}
	single := len(calls) <= singleCommitCalls
	if !single {
		for start := 0; start < len(stored); start += callsPerCallCommit {
			chunk := stored[start:min(start+callsPerCallCommit, len(stored))]
			if err := r.e.commit(ctx, Commit{SessionID: sessionID, Calls: chunk}); err != nil {
				return 0, fmt.Errorf("store calls of turn %s: %w", turnID, err)
			}
		}
	}
	chunk := len(calls)
	if !single {
		chunk = itemsPerCommit
	}
	for start := 0; start < len(calls); start += chunk {
		end := min(start+chunk, len(calls))
		first, last := start == 0, end == len(calls)
		err := r.apply(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
			if first {
				ids := make([]string, len(calls))
				for i, pc := range calls {
					ids[i] = pc.CallID
				}
				var q []session.QueuedCall
				for _, c := range queued {
					q = append(q, session.QueuedCall{CallID: c.CallID, Name: c.Name, Arguments: c.Arguments})
				}
				t.RequestCalls(ids, q)
			}
			for i := start; i < end; i++ {
				pc := calls[i]
				idx := t.OutputCount
				t.OutputCount++
				it := w.item("fc", session.Item{Type: session.ItemFunctionCall, TurnID: t.ID, CallID: pc.CallID, Name: pc.Name, Arguments: pc.Arguments, Status: session.ItemCompleted})
				it.OutputIndex = &idx
				w.items[len(w.items)-1].Item = it
				added := it
				added.Status = session.ItemInProgress
				w.event(session.EventItemAdded, t.ID, func(m map[string]any) { m["item"] = added; m["output_index"] = idx })
				w.event(session.EventItemDone, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = idx })
				if single {
					c := stored[i]
					c.ItemID = it.ID
					w.calls = append(w.calls, c)
				}
			}
			if last {
				s.RequiredActions = nil
				for _, pc := range calls {
					s.RequiredActions = append(s.RequiredActions, session.RequiredAction{Type: "function_call", TurnID: t.ID, CallID: pc.CallID, Name: pc.Name, Arguments: pc.Arguments})
				}
				s.Status = session.StatusRequiresAction
				w.event(session.EventSessionRequiresAction, "", func(m map[string]any) { m["session"] = *s })
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	// The run that resumes this round reads no history when it runs in this process and nothing changed the
	// Session's items meanwhile (BeginRun).
	r.mu.Lock()
	r.e.history.put(r.Session.ID, r.Session.ItemsRevision, r.History, r.Turn.ID, r.Turn.PendingCalls)
	r.mu.Unlock()
	return round, nil
}

// Transaction budgets (DynamoDB allows 100 writes per transaction): a call costs a CALL record, an item and two
// events; session META, turn and the requires_action event come on top.
const (
	singleCommitCalls  = 24
	itemsPerCommit     = 30
	callsPerCallCommit = 90
)
