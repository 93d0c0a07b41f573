package session

import (
	"bytes"
	"encoding/json"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/jsonwire"
)

// TurnStatus is a Turn's status (docs/agents-api.md §W4.5).
type TurnStatus string

// Turn statuses. Completed, Failed and Cancelled are terminal.
const (
	TurnQueued     TurnStatus = "queued"
	TurnInProgress TurnStatus = "in_progress"
	TurnWaiting    TurnStatus = "waiting"
	TurnCompleted  TurnStatus = "completed"
	TurnFailed     TurnStatus = "failed"
	TurnCancelled  TurnStatus = "cancelled"
)

// Terminal reports whether no further work happens in a Turn with this status.
func (s TurnStatus) Terminal() bool {
	return s == TurnCompleted || s == TurnFailed || s == TurnCancelled
}

// Turn is one unit of work started by input. Timestamps are Unix seconds; nil = not yet.
//
// Round counts how many times the Turn has parked on function calls (0 = never); PendingCalls are the call ids of
// the current round in call order; CallsTotal counts the calls of all rounds; Answered the call ids that have a
// stored result. TokenRound is the round whose task token is stored; ResumedRound the last round whose resume was
// claimed (docs/decisions.md §7). OutputCount is the number of output items so far (the next output_index).
type Turn struct {
	ID              string
	SessionID       string
	AgentID         string
	Status          TurnStatus
	CreatedAt       int64
	StartedAt       *int64
	CompletedAt     *int64
	Error           *TurnError
	Usage           *Usage
	Harness         string
	Round           int
	PendingCalls    []string
	CallsTotal      int
	Answered        []string
	TaskToken       string
	TokenRound      int
	ResumedRound    int
	OutputCount     int
	CancelRequested bool
	// ResumeClaimedAt is when the current round's resume was claimed (Unix milliseconds; 0 = never).
	ResumeClaimedAt int64
	// ClaimedToken is the task token the current claim is for ("" = none): a claim holds only for that token
	// (lifecycle.go, ClaimResume).
	ClaimedToken string
	// Queued are the calls of the model response that parked the current round which come after its function calls
	// (docs/tools.md "Order of tool calls"): the harness runs them, in model order, once the round's results
	// arrive. Nil = none. Never rendered.
	Queued []QueuedCall
	// Requires are the runtime capabilities the turn needs (profile.Requires of the Session snapshot, computed once
	// when the turn is opened; docs/agents-api.md §5.3). A runtime that lacks one fails the task with
	// Baton.RuntimeIncapable. Nil for turns written before the field existed: no requirement is checked.
	Requires []string
	// Config is the configuration this Turn runs with when it differs from the Session's snapshot: a front door's
	// per-invocation configuration (the AgentCore Harness API's harness version and overrides, docs/agentcore.md
	// §3.4); nil = the snapshot. It is never rendered.
	Config *agent.Config
	// StopReason is why the harness ended the turn early when it hit a limit of the configuration's Controls
	// (docs/agentcore.md §3.5): StopMaxTokens, StopMaxIterationsExceeded, StopMaxOutputTokensExceeded or
	// StopTimeoutExceeded; "" = the turn ended on its own (the model finished, or it paused on calls). Never rendered.
	StopReason string
	// Version is the optimistic-concurrency version of the stored record (0 = not stored yet).
	Version int64
}

// TurnError is a failed Turn's public error `{code, message}`.
type TurnError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MarshalJSON renders the Turn object (`object: "agent.session.turn"`, docs/agents-api.md §W4.5).
func (t Turn) MarshalJSON() ([]byte, error) {
	return jsonwire.Marshal(map[string]any{
		"id":                   t.ID,
		"object":               "agent.session.turn",
		"session_id":           t.SessionID,
		"agent_id":             nilIfEmpty(t.AgentID),
		"subagent_id":          nil,
		"status":               t.Status,
		"created_at":           t.CreatedAt,
		"started_at":           t.StartedAt,
		"completed_at":         t.CompletedAt,
		"error":                t.Error,
		"usage":                t.Usage,
		"prompt_cache_options": nil,
	})
}

// QueuedCall is a call of a model response that waits for an earlier function call's result before the harness
// runs it (Turn.Queued). Arguments is a JSON value.
type QueuedCall struct {
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Call is a function call a harness made in a Turn and that waits for the caller's tool result.
type Call struct {
	CallID    string
	TurnID    string
	Round     int
	Name      string
	Arguments json.RawMessage
	ItemID    string
}

// ToolResult is the caller's answer to a Call, kept exactly as submitted (docs/agents-api.md §4): Output and Error
// are nil when the member was absent and `null` when it was sent as null; field presence is part of its identity.
type ToolResult struct {
	TurnID  string
	CallID  string
	Success bool
	Output  json.RawMessage
	Error   json.RawMessage
}

// Identity returns a canonical encoding of the result used to tell an identical retry from a different result:
// equal identities ⇔ same turn, call, success, the same members present and the same JSON values (compared after
// compaction, so insignificant whitespace does not matter).
func (r ToolResult) Identity() string {
	m := map[string]json.RawMessage{}
	m["turn_id"], _ = jsonwire.Marshal(r.TurnID)
	m["call_id"], _ = jsonwire.Marshal(r.CallID)
	m["success"], _ = jsonwire.Marshal(r.Success)
	if r.Output != nil {
		m["output"] = canonical(r.Output)
	}
	if r.Error != nil {
		m["error"] = canonical(r.Error)
	}
	b, _ := jsonwire.Marshal(m)
	return string(b)
}

// canonical re-encodes a JSON value with sorted object keys and no insignificant whitespace.
func canonical(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := jsonwire.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// EffectiveConfig returns the configuration the Turn runs with: its own Config when set, else the Session's
// snapshot configuration.
func (t Turn) EffectiveConfig(s Session) agent.Config {
	if t.Config != nil {
		return *t.Config
	}
	return s.Snapshot.Config
}

// Stop reasons of a turn the harness ended early (Turn.StopReason), named after the AgentCore stop reasons
// (docs/agentcore.md §3.5).
const (
	// StopMaxTokens: the last model call stopped at its output-token limit.
	StopMaxTokens = "max_tokens"
	// StopMaxIterationsExceeded: the turn made as many model calls as Controls.MaxIterations allows.
	StopMaxIterationsExceeded = "max_iterations_exceeded"
	// StopMaxOutputTokensExceeded: the model calls of the turn used the output tokens Controls.MaxTokens allows.
	StopMaxOutputTokensExceeded = "max_output_tokens_exceeded"
	// StopTimeoutExceeded: the turn ran for Controls.TimeoutSeconds.
	StopTimeoutExceeded = "timeout_exceeded"
)
