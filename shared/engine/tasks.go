package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/statemachine"
)

// Park stores the task token of a turn's AwaitResults state for the given round (the Park function,
// docs/internals.md). If every pending call of that round already has a result, Park then claims the resume and
// sends the token (docs/decisions.md §7). A turn that is already terminal keeps its state and the token is dropped
// (its execution is being stopped or settled). Idempotent: storing the same token again is a no-op.
func (e *Engine) Park(ctx context.Context, sessionID, turnID string, round int, token string) error {
	for attempt := 0; ; attempt++ {
		t, err := e.store.GetTurn(ctx, sessionID, turnID)
		if err != nil {
			return err
		}
		firstForRound := t.TokenRound != round
		verdict, err := t.Park(round, token)
		if err != nil {
			return err
		}
		if verdict == session.ParkIgnored {
			return nil
		}
		// Storing the token and claiming the resume (when every result is in) are one write.
		claim := t.ClaimResume(e.clock().UnixMilli(), resumeGrace.Milliseconds())
		if verdict == session.ParkUnchanged && claim != session.ClaimTaken {
			return nil
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
		if verdict == session.ParkStored && firstForRound {
			e.record(ctx, MetricRequiredActionsIssued, int64(len(t.PendingCalls)), t.Harness, t.SessionID, t.ID)
		}
		if claim == session.ClaimTaken {
			return e.sendResume(ctx, t)
		}
		return nil
	}
}

// Settle commits a turn's terminal state (the Settle function, docs/internals.md) and returns it:
// "completed" after a successful run (events turn.completed with usage, then session.idle), otherwise "failed"
// (events turn.failed, then session.failed; unfinished items become incomplete; the Session stays usable). run is
// the state machine's $.run (statemachine.RunOutcome). A turn that is already terminal (e.g. cancelled) keeps its
// state and Settle returns it unchanged.
func (e *Engine) Settle(ctx context.Context, sessionID, turnID string, run statemachine.RunOutcome) (string, error) {
	for attempt := 0; ; attempt++ {
		status, err := e.settleOnce(ctx, sessionID, turnID, run)
		if isConflict(err) && attempt < maxCommitAttempts {
			continue
		}
		return status, err
	}
}

func (e *Engine) settleOnce(ctx context.Context, sessionID, turnID string, out statemachine.RunOutcome) (string, error) {
	// The commit below is conditional on both versions read here.
	s, t, err := e.readSessionTurn(ctx, sessionID, turnID)
	if err != nil {
		return "", err
	}
	if t.Status.Terminal() {
		return string(t.Status), nil
	}
	now := e.now()
	w := newWriter(&s)
	isActive := s.ActiveTurnID == t.ID
	if t.CancelRequested && isActive {
		// The caller's cancel fenced the turn off and its harness stopped before the cancel itself committed:
		// the turn ends as the caller asked, not as the harness's failure.
		unfinished, err := e.unfinishedItems(ctx, s.ID, t.ID)
		if err != nil {
			return "", err
		}
		e.cancelTurn(&s, w, &t, unfinished)
		c := Commit{Session: &s, SessionVersion: s.Version, Turns: []TurnWrite{{Turn: t, Version: t.Version}}, Items: w.items, Events: w.events}
		if err := e.commit(ctx, c); err != nil {
			return "", err
		}
		return string(t.Status), nil
	}
	if out.Status == "completed" && out.Error == "" {
		e.completeTurn(&s, &t, w)
	} else {
		t.CompletedAt = &now
		s.LastActiveAt = now
		t.Status = session.TurnFailed
		t.Error = &session.TurnError{Code: "internal_error", Message: session.FailedSessionError}
		unfinished, err := e.unfinishedItems(ctx, s.ID, t.ID)
		if err != nil {
			return "", err
		}
		closeIncomplete(w, t.ID, unfinished)
		if isActive {
			e.accountUsage(&s, &t)
		}
		w.event(session.EventTurnFailed, t.ID, func(m map[string]any) { m["turn"] = t; m["usage"] = t.Usage })
		if isActive {
			msg := session.FailedSessionError
			s.Status, s.ActiveTurnID, s.RequiredActions, s.Error = session.StatusFailed, "", nil, &msg
			w.event(session.EventSessionFailed, "", func(m map[string]any) { m["session"] = s })
		}
	}
	c := Commit{Session: &s, SessionVersion: s.Version, Turns: []TurnWrite{{Turn: t, Version: t.Version}}, Items: w.items, Events: w.events}
	if err := e.commit(ctx, c); err != nil {
		return "", err
	}
	if t.Status == session.TurnFailed {
		cause := out.Error
		if cause == "" {
			cause = CauseUnknown
		}
		e.record(ctx, MetricTurnFailures, 1, t.Harness, t.SessionID, t.ID, DimensionCause, cause)
	}
	return string(t.Status), nil
}

// completeTurn ends t as completed: event turn.completed with the turn's usage and, when t is the Session's active
// turn, the usage added to the Session's and the Session idle (event session.idle). Settle and Run.Complete share it.
func (e *Engine) completeTurn(s *session.Session, t *session.Turn, w *writer) {
	now := e.now()
	t.CompletedAt = &now
	s.LastActiveAt = now
	t.Status = session.TurnCompleted
	isActive := s.ActiveTurnID == t.ID
	if isActive {
		e.accountUsage(s, t)
	}
	w.event(session.EventTurnCompleted, t.ID, func(m map[string]any) { m["turn"] = *t; m["usage"] = t.Usage })
	if isActive {
		s.Status, s.ActiveTurnID, s.RequiredActions, s.Error = session.StatusIdle, "", nil, nil
		w.event(session.EventSessionIdle, "", func(m map[string]any) { m["session"] = *s })
	}
}

// unfinishedItems returns a turn's items that are still in progress (a message cut off mid-stream), a message
// with the text its output_text.delta events carried so far (the item itself is not rewritten while it streams).
func (e *Engine) unfinishedItems(ctx context.Context, sessionID, turnID string) ([]session.Item, error) {
	items, _, err := e.store.ListItems(ctx, sessionID, turnID, Page{Limit: 1000, Order: "asc"})
	if err != nil {
		return nil, err
	}
	var out []session.Item
	for _, it := range items {
		if it.Status != session.ItemInProgress {
			continue
		}
		if it.Type == session.ItemMessage && it.StartEventSeq > 0 {
			text, err := e.streamedText(ctx, sessionID, it.ID, it.StartEventSeq)
			if err != nil {
				return nil, err
			}
			it.Content = []session.ContentPart{{Type: "output_text", Text: text}}
		}
		out = append(out, it)
	}
	return out, nil
}

// streamedText concatenates the output_text.delta events of a message, reading the Session's events from the one
// that added the message.
func (e *Engine) streamedText(ctx context.Context, sessionID, itemID string, fromSeq int64) (string, error) {
	var b strings.Builder
	after := fromSeq - 1
	for {
		evs, err := e.store.EventsAfter(ctx, sessionID, after, 500)
		if err != nil {
			return "", err
		}
		if len(evs) == 0 {
			return b.String(), nil
		}
		for _, ev := range evs {
			after = ev.Seq
			if ev.Type != session.EventOutputTextDelta {
				continue
			}
			var d struct {
				ItemID string `json:"item_id"`
				Delta  string `json:"delta"`
			}
			if json.Unmarshal(ev.Data, &d) == nil && d.ItemID == itemID {
				b.WriteString(d.Delta)
			}
		}
	}
}

// closeIncomplete stores a cancelled or failed turn's unfinished items as incomplete, keeping their partial
// content, and closes each output item on the stream with item.done (docs/agents-api.md §2.4).
func closeIncomplete(w *writer, turnID string, items []session.Item) {
	for _, it := range items {
		it.Status = session.ItemIncomplete
		w.replace(it)
		if it.OutputIndex != nil {
			done, idx := it, *it.OutputIndex
			w.event(session.EventItemDone, turnID, func(m map[string]any) { m["item"] = done; m["output_index"] = idx })
		}
	}
}

// RegisterRuntime records a runtime's registration or heartbeat (TTL'd by ExpiresAt).
func (e *Engine) RegisterRuntime(ctx context.Context, r RuntimeInfo) error {
	return e.store.PutRuntime(ctx, r)
}

// LiveRuntimes lists the runtimes whose registration has not expired.
func (e *Engine) LiveRuntimes(ctx context.Context) ([]RuntimeInfo, error) {
	all, err := e.store.ListRuntimes(ctx)
	if err != nil {
		return nil, err
	}
	return e.liveOf(all), nil
}

// liveOf keeps the registrations that have not expired by now.
func (e *Engine) liveOf(all []RuntimeInfo) []RuntimeInfo {
	now := e.now()
	var live []RuntimeInfo
	for _, r := range all {
		if r.ExpiresAt > now {
			live = append(live, r)
		}
	}
	return live
}
