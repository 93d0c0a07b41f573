package engine

import (
	"context"
	"errors"
	"github.com/baton-run/baton/shared/jsonwire"

	"github.com/baton-run/baton/shared/session"
)

// writer accumulates the items and events of one commit, numbering them from the session's counters.
type writer struct {
	s      *session.Session
	items  []ItemWrite
	events []session.Event
	calls  []session.Call
}

func newWriter(s *session.Session) *writer { return &writer{s: s} }

// item numbers a new item, gives it an id that embeds its sequence, and queues it for the commit.
func (w *writer) item(prefix string, it session.Item) session.Item {
	w.s.ItemsRevision++
	w.s.ItemSeq++
	it.Seq = w.s.ItemSeq
	if it.ID == "" {
		it.ID = itemID(prefix, it.Seq)
	}
	w.items = append(w.items, ItemWrite{SessionID: w.s.ID, Item: it})
	return it
}

// replace queues an overwrite of an existing item (same seq). An item this commit already writes is changed in
// place: a DynamoDB transaction may touch each item once.
func (w *writer) replace(it session.Item) {
	w.s.ItemsRevision++
	for i := range w.items {
		if w.items[i].Item.Seq == it.Seq {
			w.items[i].Item = it
			return
		}
	}
	w.items = append(w.items, ItemWrite{SessionID: w.s.ID, Item: it, Replace: true})
}

// event numbers a new event and renders its JSON now, so it carries the state of this moment.
func (w *writer) event(typ, turnID string, fill func(m map[string]any)) {
	w.s.EventSeq++
	seq := w.s.EventSeq
	w.events = append(w.events, w.renderEvent(seq, eventID(seq), typ, turnID, fill))
}

// renderEvent builds an event: session events carry {event_id, type, session}; turn-scoped events also carry
// session_id and turn_id (docs/agents-api.md §W4.3).
func (w *writer) renderEvent(seq int64, id, typ, turnID string, fill func(m map[string]any)) session.Event {
	m := map[string]any{"type": typ, "event_id": id}
	if turnID != "" {
		m["session_id"] = w.s.ID
		m["turn_id"] = turnID
	}
	fill(m)
	data, err := jsonwire.Marshal(m)
	if err != nil {
		// Every value put here is one of our own marshalable types.
		panic("engine: render event " + typ + ": " + err.Error())
	}
	return session.Event{Seq: seq, ID: id, Type: typ, TurnID: turnID, Data: data}
}

func (e *Engine) commit(ctx context.Context, c Commit) error {
	if len(c.Items) > 0 && c.Session == nil {
		// Session.ItemsRevision must move with every item write (the history cache relies on it).
		return errors.New("engine: a commit that writes items must write their Session")
	}
	err := e.store.Commit(ctx, c)
	if err == nil {
		e.commits.Add(1)
		sessionID := ""
		switch {
		case c.Session != nil:
			sessionID = c.Session.ID
		case c.SessionID != "":
			sessionID = c.SessionID
		case len(c.Turns) > 0:
			sessionID = c.Turns[0].Turn.SessionID
		}
		// Only a commit with events has anything for a reader (a task token, a cancel fence or stored calls do not).
		if sessionID != "" && len(c.Events) > 0 {
			e.wake.notify(sessionID)
			if e.commitListener != nil {
				e.commitListener(sessionID)
			}
		}
	} else if isConflict(err) {
		e.conflicts.Add(1)
	}
	return err
}
