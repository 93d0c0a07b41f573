package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/baton-run/baton/shared/session"
)

// PostEvents admits an ordered batch of input events to a Session atomically (docs/agents-api.md §1.4, §4):
// either every event is stored in one transaction or nothing is. Messages start a new root Turn (one per batch;
// later messages of the batch join it); tool results answer pending calls; cancel cancels the active Turn.
//
// A message input's TurnConfig gives the new Turn its own configuration (Turn.Config), admitted like a Session's
// (Admission.AdmitSession) before anything is written.
//
// Tool results follow the results table of docs/agents-api.md §4: an identical retry is accepted (also after the Turn ended),
// a different result for an answered call is 409 conflict_error, the first result after a cancel is 409, an unknown
// call or a call of another Turn is 400 "Unknown pending tool call: <call_id>", and a foreign Session is
// ErrNotFound. The write that answers the last pending call tries the resume claim (docs/decisions.md §7).
//
// With idemKey set (the caller's Idempotency-Key), a repeat with the same requestHash is accepted without effect;
// with another hash it is 409 idempotency_conflict.
func (e *Engine) PostEvents(ctx context.Context, projectID, sessionID string, inputs []session.Input, idemKey, requestHash string) error {
	scoped := ""
	if idemKey != "" {
		scoped = fmt.Sprintf("%s#events:%s#%s", projectID, sessionID, idemKey)
	}
	cancels := slices.ContainsFunc(inputs, func(in session.Input) bool { return in.Type == session.InputCancel })
	for attempt := 0; ; attempt++ {
		eff, err := e.postEventsOnce(ctx, projectID, sessionID, inputs, scoped, requestHash)
		if isConflict(err) && attempt < maxCommitAttempts {
			if cancels {
				// A streaming turn writes the Session with every flush of its text; a cancel that merely retried
				// could lose that race again and again. The batch was valid a moment ago (the conflict came from the
				// commit, not from admission), so first fence the turn off: its next write fails and the harness
				// stops, and the retry below then meets a quiet Session.
				if err := e.requestCancel(ctx, projectID, sessionID); err != nil && !isConflict(err) {
					return err
				}
			}
			if err := backoff(ctx, attempt+1); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			if isResultConflict(err) {
				e.record(ctx, MetricResultConflicts, 1, eff.harness, sessionID, "")
			}
			return err
		}
		e.record(ctx, MetricToolResultsAccepted, int64(eff.accepted), eff.harness, sessionID, "")
		e.afterInput(ctx, eff)
		return nil
	}
}

// effects are what must happen after an input commit: start a turn, send a claimed resume, drive a resume that is
// still due, stop an execution.
type effects struct {
	start   *session.Turn
	resume  *session.Turn
	redrive *session.Turn
	stop    *session.Turn
	// accepted is how many tool results the commit stored; harness is the Session's harness kind (metrics only,
	// also set when the batch is refused).
	accepted int
	harness  string
}

// postEventsOnce is one optimistic attempt: load what the batch refers to, decide (no I/O), commit.
func (e *Engine) postEventsOnce(ctx context.Context, projectID, sessionID string, inputs []session.Input, scoped, hash string) (effects, error) {
	b, replay, err := e.loadInputs(ctx, projectID, sessionID, inputs, scoped, hash)
	if err != nil || replay != nil {
		if replay != nil {
			return *replay, nil
		}
		return effects{}, err
	}
	if len(inputs) == 0 {
		return effects{}, nil
	}
	c, eff, err := e.decideInputs(b, inputs)
	if err != nil {
		return effects{harness: b.s.Snapshot.Config.HarnessKind()}, err
	}
	eff.harness = b.s.Snapshot.Config.HarnessKind()
	if eff.start != nil {
		if err := e.checkDispatch(ctx, *eff.start); err != nil {
			return effects{}, err
		}
	}
	if scoped != "" {
		c.Idempotency = &Idempotency{Key: scoped, RequestHash: hash, CreatedAt: e.now()}
	}
	if c.Session == nil && len(c.Turns) == 0 && len(c.Results) == 0 && c.Idempotency == nil {
		return eff, nil // only identical retries and no-op cancels
	}
	if err := e.commit(ctx, c); err != nil {
		return effects{}, err
	}
	eff.accepted = len(c.Results)
	return eff, nil
}

// inputBatch is what a batch of inputs refers to, as loaded: the Session, the turns (the active one and those of
// the calls the results name), the calls, their stored results, and the active turn's unfinished items when the
// batch cancels it.
type inputBatch struct {
	s          session.Session
	active     *session.Turn
	turns      map[string]*session.Turn
	calls      map[string]session.Call
	results    map[string]session.ToolResult
	unfinished []session.Item
}

// loadInputs reads what the batch refers to. A replay of an Idempotency-Key with the same request hash returns the
// effects of a replay instead (a resume the original left due is driven again).
func (e *Engine) loadInputs(ctx context.Context, projectID, sessionID string, inputs []session.Input, scoped, hash string) (*inputBatch, *effects, error) {
	var callIDs, turnIDs []string
	cancels := false
	for _, in := range inputs {
		if in.ToolResult != nil {
			callIDs = append(callIDs, in.ToolResult.CallID)
			turnIDs = append(turnIDs, in.ToolResult.TurnID)
		}
		cancels = cancels || in.Type == session.InputCancel
	}
	// Tool results: the Session, the turns the results name, the calls and their stored results in one read that
	// is isolated from concurrent commits (Store.ReadInputs): a result another API process commits lands together
	// with its turn update, so a turn that already counts a call as answered is always read together with that
	// call's result, and an identical concurrent retry is recognised as one. A result naming a turn other than
	// its call's is refused (decideInputs) without reading the call's own turn.
	var read *InputState
	var s session.Session
	var err error
	if len(callIDs) > 0 {
		st, err := e.store.ReadInputs(ctx, sessionID, turnIDs, callIDs)
		if err != nil {
			return nil, nil, err
		}
		if st.Session.ProjectID != projectID || st.Session.Deleted {
			return nil, nil, ErrNotFound
		}
		read, s = &st, st.Session
	} else if s, err = e.GetSession(ctx, projectID, sessionID); err != nil {
		return nil, nil, err
	}
	if scoped != "" {
		rec, err := e.store.GetIdempotency(ctx, scoped)
		switch {
		case err == nil && rec.RequestHash == hash:
			// A replay: no second application, but a resume the original left due (its process died, or its claim
			// failed) is driven again.
			eff := effects{}
			if s.ActiveTurnID != "" {
				if t, err := e.store.GetTurn(ctx, sessionID, s.ActiveTurnID); err == nil && t.ResumeDue() {
					eff.redrive = &t
				}
			}
			return nil, &eff, nil
		case err == nil:
			return nil, nil, conflict(CodeIdempotencyConflict, MessageIdempotencyReused)
		case !isNotFound(err):
			return nil, nil, err
		}
	}
	b := &inputBatch{s: s, turns: map[string]*session.Turn{}, calls: map[string]session.Call{}, results: map[string]session.ToolResult{}}
	if len(inputs) == 0 {
		return b, nil, nil
	}
	if read != nil {
		for id, t := range read.Turns {
			b.turns[id] = &t
		}
		b.calls, b.results = read.Calls, read.Results
	}
	if s.ActiveTurnID != "" {
		if _, ok := b.turns[s.ActiveTurnID]; !ok {
			t, err := e.store.GetTurn(ctx, sessionID, s.ActiveTurnID)
			if err != nil {
				return nil, nil, err
			}
			b.turns[t.ID] = &t
		}
		b.active = b.turns[s.ActiveTurnID]
	}
	if cancels && b.active != nil && !b.active.Status.Terminal() {
		if b.unfinished, err = e.unfinishedItems(ctx, s.ID, b.active.ID); err != nil {
			return nil, nil, err
		}
	}
	return b, nil, nil
}

// decideInputs applies the batch, in order, to the loaded state and returns the one commit that stores it and what
// must follow it. It does no I/O. Tool results follow the Results table (session.Turn.AcceptResult); a message opens
// a new root turn (later messages of the batch join it) unless a turn is active (409); a cancel ends the active turn.
func (e *Engine) decideInputs(b *inputBatch, inputs []session.Input) (Commit, effects, error) {
	var eff effects
	c := Commit{}
	s := &b.s
	w := newWriter(s)
	active := b.active
	sessionChanged := false
	changedTurns := map[string]bool{}
	var newTurn, cancelledNew *session.Turn
	for _, in := range inputs {
		switch in.Type {
		case session.InputToolResult:
			r := *in.ToolResult
			call, ok := b.calls[r.CallID]
			t := b.turns[call.TurnID]
			if !ok || call.TurnID != r.TurnID || t == nil {
				return c, eff, UnknownPendingCall(r.CallID)
			}
			var prev *session.ToolResult
			if p, ok := b.results[r.CallID]; ok {
				prev = &p
			}
			switch t.AcceptResult(call, prev, r) {
			case session.ResultIdentical:
				// Accepted, no second application. A resume that is still due (its claim failed, or its sender
				// died) is driven again: ClaimResume sends again only once the old claim is stale.
				if t.ResumeDue() {
					eff.redrive = t
				}
				continue
			case session.ResultDifferent:
				return c, eff, conflict(CodeConflictError, MessageDifferentResult)
			case session.ResultNotAccepting:
				return c, eff, conflict(CodeConflictError, MessageTurnNotAccepting)
			}
			b.results[r.CallID] = r
			c.Results = append(c.Results, r)
			changedTurns[t.ID] = true
			// The write that completes the round also claims the resume when the task token is stored already
			// (one write, not read–write–read–write); otherwise Park claims it once the token arrives.
			if t.ClaimResume(e.clock().UnixMilli(), resumeGrace.Milliseconds()) == session.ClaimTaken {
				eff.resume = t
			}
		case session.InputMessage:
			if newTurn != nil {
				it := session.Item{Type: session.ItemMessage, TurnID: newTurn.ID, Role: "user", Status: session.ItemCompleted, Content: in.Message}
				it = w.item("msg", it)
				w.event(session.EventItemAdded, newTurn.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = nil })
				continue
			}
			if active != nil && !active.Status.Terminal() {
				return c, eff, conflict(CodeConflictError, MessageSessionBusy)
			}
			if in.TurnConfig != nil && e.admission != nil {
				if err := e.admission.AdmitSession(*in.TurnConfig); err != nil {
					return c, eff, err
				}
			}
			newTurn = e.openTurn(s, w, [][]session.ContentPart{in.Message}, in.TurnConfig)
			active = newTurn
			sessionChanged = true
		case session.InputCancel:
			if active == nil || active.Status.Terminal() {
				continue // nothing to cancel: a no-op
			}
			var unfinished []session.Item
			if active != newTurn {
				unfinished = b.unfinished
			}
			e.cancelTurn(s, w, active, unfinished)
			changedTurns[active.ID] = true
			sessionChanged = true
			if active == newTurn {
				// Cancelled before it was ever started: nothing to stop, nothing to start.
				cancelledNew, newTurn = newTurn, nil
			} else {
				eff.stop = active
			}
			if eff.resume == active {
				eff.resume = nil
			}
			if eff.redrive == active {
				eff.redrive = nil
			}
		default:
			return c, eff, invalid("events", "Unsupported input event type.")
		}
	}
	if sessionChanged || len(w.events) > 0 || len(w.items) > 0 {
		c.Session, c.SessionVersion = s, s.Version
	}
	c.Items, c.Events = w.items, w.events
	for id := range changedTurns {
		if t := b.turns[id]; t != nil { // nil: a turn opened and cancelled in this batch
			c.Turns = append(c.Turns, TurnWrite{Turn: *t, Version: t.Version})
		}
	}
	if newTurn != nil {
		c.Turns = append(c.Turns, TurnWrite{Turn: *newTurn})
		eff.start = newTurn
	}
	if cancelledNew != nil {
		// The batch opened and cancelled a turn: write it once, already cancelled, never started.
		c.Turns = append(c.Turns, TurnWrite{Turn: *cancelledNew})
	}
	return c, eff, nil
}

// cancelTurn ends the active turn as cancelled: an interim session.in_progress, item.done (incomplete) for each of
// its unfinished output items, turn.cancelled, session.idle (docs/agents-api.md §2.6 "Cancel while
// waiting", §2.4); pending actions disappear.
func (e *Engine) cancelTurn(s *session.Session, w *writer, t *session.Turn, unfinished []session.Item) {
	now := e.now()
	t.Cancel(now)
	s.RequiredActions = nil
	s.Status = session.StatusInProgress
	w.event(session.EventSessionInProgress, "", func(m map[string]any) { m["session"] = *s })
	closeIncomplete(w, t.ID, unfinished)
	e.accountUsage(s, t)
	w.event(session.EventTurnCancelled, t.ID, func(m map[string]any) { m["turn"] = *t; m["usage"] = t.Usage })
	s.Status = session.StatusIdle
	s.ActiveTurnID = ""
	s.LastActiveAt = now
	w.event(session.EventSessionIdle, "", func(m map[string]any) { m["session"] = *s })
}

// accountUsage folds a finished root Turn's usage into the Session's: the sum while every Turn has known usage,
// null forever after one without (docs/agents-api.md §2.2).
func (e *Engine) accountUsage(s *session.Session, t *session.Turn) {
	if t.Usage == nil || s.UsageUnknown {
		s.UsageUnknown = true
		s.Usage = nil
		return
	}
	sum := session.Usage{}
	if s.Usage != nil {
		sum = *s.Usage
	}
	sum.InputTokens += t.Usage.InputTokens
	sum.OutputTokens += t.Usage.OutputTokens
	s.Usage = &sum
}

// afterInput carries out what a committed input requires. It runs on a context detached from the request's
// cancellation: the input is committed, so a client that disconnects must not cut off its start or resume (the
// reconciler repairs a process that dies here).
func (e *Engine) afterInput(ctx context.Context, eff effects) {
	ctx = context.WithoutCancel(ctx)
	if eff.start != nil {
		e.startTurn(ctx, *eff.start)
	}
	if eff.resume != nil {
		// Claimed by the commit itself.
		if err := e.sendResume(ctx, *eff.resume); err != nil {
			slog.ErrorContext(ctx, "resume turn", "session_id", eff.resume.SessionID, "turn_id", eff.resume.ID, "err", err)
		}
	}
	if eff.redrive != nil {
		if err := e.tryResume(ctx, eff.redrive.SessionID, eff.redrive.ID); err != nil {
			slog.ErrorContext(ctx, "resume turn", "session_id", eff.redrive.SessionID, "turn_id", eff.redrive.ID, "err", err)
		}
	}
	if eff.stop != nil && e.orch != nil {
		// The execution name is the turn id; the orchestrator derives the ARN from it and the harness kind.
		if err := e.orch.StopTurn(ctx, eff.stop.Harness, eff.stop.ID, "cancelled by the caller"); err != nil {
			slog.ErrorContext(ctx, "stop cancelled turn", "turn_id", eff.stop.ID, "err", err)
		}
	}
}

// resumeGrace is how long a claimed resume may stay unconfirmed before another caller (an identical retry of a
// result, Park, the reconciler) sends the task token again.
const resumeGrace = 5 * time.Second

// tryResume claims the resume of a waiting turn whose current round is fully answered and whose task token is
// stored, and sends the token (session.Turn.ClaimResume decides). Whichever of Park and the completing tool-result
// write comes second wins the claim; the claim is a versioned write bound to one token, so exactly one caller sends
// each token (docs/decisions.md §7), a claim whose send failed goes stale after resumeGrace, and a token stored by a
// retried AwaitResults is claimed afresh. Step Functions refuses a second success for a closed task, so a repeated
// send can never resume a turn twice.
func (e *Engine) tryResume(ctx context.Context, sessionID, turnID string) error {
	for attempt := 0; ; attempt++ {
		t, err := e.store.GetTurn(ctx, sessionID, turnID)
		if err != nil {
			return err
		}
		if t.ClaimResume(e.clock().UnixMilli(), resumeGrace.Milliseconds()) != session.ClaimTaken {
			return nil // not due, or claimed moments ago by a caller that sends
		}
		if err := e.commit(ctx, Commit{Turns: []TurnWrite{{Turn: t, Version: t.Version}}}); err != nil {
			if isConflict(err) && attempt < maxCommitAttempts {
				if err := backoff(ctx, attempt+1); err != nil {
					return err
				}
				continue
			}
			return err
		}
		return e.sendResume(ctx, t)
	}
}

// sendResume sends a claimed turn's task token, retrying transient failures briefly. A task that is already closed
// (ErrTaskClosed) needs nothing more from this token: either its execution moved on, or the AwaitResults state
// failed and its retry stores a new token (claimed afresh), or the execution ended (the reconciler settles it).
func (e *Engine) sendResume(ctx context.Context, t session.Turn) error {
	delay := 100 * time.Millisecond
	for i := 0; ; i++ {
		err := e.orch.Resume(ctx, t.TaskToken)
		if err == nil || errors.Is(err, ErrTaskClosed) {
			return nil
		}
		if i == 2 || ctx.Err() != nil {
			return fmt.Errorf("resume turn %s round %d: %w", t.ID, t.Round, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
		delay *= 3
	}
}

// requestCancel marks the Session's active turn CancelRequested with a write of the turn record alone (docs/decisions.md
// "Tool results": after a cancel, results are 409). A harness's next write of that turn fails its version fence, it
// re-reads the turn and stops with ErrTurnNotRunnable; Settle finishes a turn left so as cancelled. It is a no-op
// when the Session has no active, unfinished turn or the mark is already set.
func (e *Engine) requestCancel(ctx context.Context, projectID, sessionID string) error {
	for attempt := 0; ; attempt++ {
		s, err := e.GetSession(ctx, projectID, sessionID)
		if err != nil || s.ActiveTurnID == "" {
			return err
		}
		t, err := e.store.GetTurn(ctx, sessionID, s.ActiveTurnID)
		if err != nil {
			return err
		}
		if !t.RequestCancel() {
			return nil // only a running harness writes while a cancel waits; a waiting or queued turn is quiet
		}
		err = e.commit(ctx, Commit{Turns: []TurnWrite{{Turn: t, Version: t.Version}}})
		if isConflict(err) && attempt < maxCommitAttempts {
			if err := backoff(ctx, attempt+1); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// backoff waits before retry number attempt (1-based) of an optimistic write: a random delay up to 2 ms × 2^attempt,
// capped at 50 ms, so writers that collided do not collide again in lockstep. It returns ctx's error if ctx ends.
func backoff(ctx context.Context, attempt int) error {
	limit := 2 * time.Millisecond << min(attempt, 5)
	limit = min(limit, 50*time.Millisecond)
	d := time.Duration(rand.Int64N(int64(limit)) + 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
