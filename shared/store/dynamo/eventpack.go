package dynamo

import (
	"encoding/json"
	"fmt"
	"github.com/baton-run/baton/shared/jsonwire"

	"github.com/baton-run/baton/shared/session"
)

// maxPackBytes bounds the event data of one event pack, well under DynamoDB's 400 KB item limit.
const maxPackBytes = 300_000

// An event pack is one event item that holds several consecutive events of one commit. Commit writes packs only when
// one item per event would exceed MaxCommitActions (e.g. a batch of 64 messages: 64 items and 66 events), so the
// commit stays one transaction. A pack's sort key is the sequence of its LAST event (eventSK), so the query of
// EventsAfter (sk ≥ EVENT#<after+1>) returns every pack that holds a later event; expandEvents drops the ones at or
// before `after`.
type packedEvent struct {
	Seq    int64           `json:"seq"`
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	TurnID string          `json:"turn_id,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// packEvents splits events (in sequence order) into at most maxRecords event items: one per event when that fits,
// else packs of consecutive events of at most maxPackBytes of data each. It fails when even packs do not fit.
func packEvents(sessionID string, events []session.Event, maxRecords int) ([]eventRecord, error) {
	if len(events) == 0 {
		return nil, nil
	}
	if len(events) <= maxRecords {
		out := make([]eventRecord, len(events))
		for i, e := range events {
			out[i] = eventToItem(sessionID, e)
		}
		return out, nil
	}
	var out []eventRecord
	var pack []packedEvent
	size := 0
	flush := func() error {
		if len(pack) == 0 {
			return nil
		}
		b, err := jsonwire.Marshal(pack)
		if err != nil {
			return fmt.Errorf("encode event pack: %w", err)
		}
		last := pack[len(pack)-1]
		out = append(out, eventRecord{PK: sessionPK(sessionID), SK: eventSK(last.Seq), Seq: last.Seq, ID: last.ID, Type: last.Type,
			TurnID: last.TurnID, Pack: string(b)})
		pack, size = nil, 0
		return nil
	}
	for _, e := range events {
		if len(pack) > 0 && size+len(e.Data) > maxPackBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		pack = append(pack, packedEvent{Seq: e.Seq, ID: e.ID, Type: e.Type, TurnID: e.TurnID, Data: e.Data})
		size += len(e.Data) + len(e.ID) + len(e.Type) + 64
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) > maxRecords {
		return nil, fmt.Errorf("commit: %d events need %d event items, only %d fit in the transaction", len(events), len(out), maxRecords)
	}
	return out, nil
}

// expandEvents returns the events of one event item (one, or a pack's) with a sequence above after.
func expandEvents(r eventRecord, after int64) ([]session.Event, error) {
	if r.Pack == "" {
		if r.Seq <= after {
			return nil, nil
		}
		return []session.Event{eventFromItem(r)}, nil
	}
	var pack []packedEvent
	if err := json.Unmarshal([]byte(r.Pack), &pack); err != nil {
		return nil, fmt.Errorf("decode event pack %s: %w", r.SK, err)
	}
	var out []session.Event
	for _, p := range pack {
		if p.Seq > after {
			out = append(out, session.Event{Seq: p.Seq, ID: p.ID, Type: p.Type, TurnID: p.TurnID, Data: p.Data})
		}
	}
	return out, nil
}
