package session

import "encoding/json"

// Event types Baton emits on a Session's stream (docs/agents-api.md §2.6).
const (
	EventSessionCreated        = "agent.session.created"
	EventSessionInProgress     = "agent.session.in_progress"
	EventSessionRequiresAction = "agent.session.requires_action"
	EventSessionIdle           = "agent.session.idle"
	EventSessionFailed         = "agent.session.failed"
	EventTurnCreated           = "agent.session.turn.created"
	EventTurnInProgress        = "agent.session.turn.in_progress"
	EventTurnCompleted         = "agent.session.turn.completed"
	EventTurnFailed            = "agent.session.turn.failed"
	EventTurnCancelled         = "agent.session.turn.cancelled"
	EventItemAdded             = "agent.session.turn.item.added"
	EventItemDone              = "agent.session.turn.item.done"
	EventContentPartAdded      = "agent.session.turn.content_part.added"
	EventContentPartDone       = "agent.session.turn.content_part.done"
	EventOutputTextDelta       = "agent.session.turn.output_text.delta"
	EventOutputTextDone        = "agent.session.turn.output_text.done"
)

// Event is one committed stream event. Seq orders a Session's events (1-based, gap-free); Data is the complete
// JSON object sent as the SSE `data:` (it includes `type` and `event_id`, and never a top-level `error` key except
// on the `error` event, docs/agents-api.md §W4.2).
type Event struct {
	Seq    int64
	ID     string
	Type   string
	TurnID string
	Data   json.RawMessage
}
