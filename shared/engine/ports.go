package engine

import (
	"context"
	"encoding/json"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/statemachine"
)

// Page selects one page of a list: After is the id of the last element of the previous page ("" = from the
// start), Limit 1..100, Order "asc" or "desc" (by creation).
type Page struct {
	After string
	Limit int
	Order string
	// Metadata keeps only records whose metadata has every given key with exactly that value (Session lists,
	// the `metadata[key]=value` query of docs/agents-api.md §W1.2); nil means no filter.
	Metadata map[string]string
}

// Store is the durable state the engine needs. Implemented by store/dynamo. Every method that writes is
// conditional and returns ErrConflict (wrapped) when a condition fails; reads of a missing record return
// ErrNotFound (wrapped).
type Store interface {
	// ProjectForKey returns the project an API key (given as the SHA-256 hex of the key) belongs to.
	ProjectForKey(ctx context.Context, keyHash string) (string, error)
	// PutProjectKey binds a key hash to a project, creating the project if needed (idempotent).
	PutProjectKey(ctx context.Context, projectID, keyHash string) error

	CreateAgent(ctx context.Context, a agent.Agent) error
	GetAgent(ctx context.Context, agentID string) (agent.Agent, error)
	// ReplaceAgent overwrites an existing, non-deleted agent.
	ReplaceAgent(ctx context.Context, a agent.Agent) error
	DeleteAgent(ctx context.Context, projectID, agentID string) error
	ListAgents(ctx context.Context, projectID string, p Page) ([]agent.Agent, bool, error)

	// GetSession returns the session META and its snapshot.
	GetSession(ctx context.Context, sessionID string) (session.Session, error)
	ListSessions(ctx context.Context, projectID, agentID string, p Page) ([]session.Session, bool, error)
	GetTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error)
	ListTurns(ctx context.Context, sessionID string, p Page) ([]session.Turn, bool, error)
	// ListItems lists a session's items by seq; turnID "" means every turn.
	ListItems(ctx context.Context, sessionID, turnID string, p Page) ([]session.Item, bool, error)
	// ItemsOfSession returns every item of a session in seq order (the harness's history).
	ItemsOfSession(ctx context.Context, sessionID string) ([]session.Item, error)
	// EventsAfter returns up to limit committed events with Seq > after, in order.
	EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]session.Event, error)
	GetCalls(ctx context.Context, sessionID string, callIDs []string) (map[string]session.Call, error)
	GetResults(ctx context.Context, sessionID string, callIDs []string) (map[string]session.ToolResult, error)
	GetIdempotency(ctx context.Context, key string) (Idempotency, error)
	// ReadInputs reads what a batch of tool results refers to: the Session, the named turns, the named calls and
	// their stored results, consistently and as of one moment with respect to commits (a result and the update of
	// its turn, committed together, are seen together or not at all). Missing turns, calls and results are absent
	// from the maps; a missing Session is ErrNotFound (wrapped).
	ReadInputs(ctx context.Context, sessionID string, turnIDs, callIDs []string) (InputState, error)
	// MarkedTurns calls visit for every turn that carries the reconciler mark (session.Turn.Mark), oldest first,
	// however many there are, until visit returns an error (returned). The index is eventually consistent: act on a
	// consistent read of each turn.
	MarkedTurns(ctx context.Context, mark session.Mark, visit func(session.Turn) error) error

	// Commit applies c atomically (one transaction) or not at all.
	Commit(ctx context.Context, c Commit) error

	PutRuntime(ctx context.Context, r RuntimeInfo) error
	ListRuntimes(ctx context.Context) ([]RuntimeInfo, error)
}

// InputState is what Store.ReadInputs read: Turns by turn id, Calls and Results by call id.
type InputState struct {
	Session session.Session
	Turns   map[string]session.Turn
	Calls   map[string]session.Call
	Results map[string]session.ToolResult
}

// Commit is one atomic change. Session (when set) replaces the session META on condition that its stored version
// equals SessionVersion (0 = the session must not exist yet); the stored version becomes SessionVersion+1.
// Snapshot is written only with a new session. Each TurnWrite does the same for a turn. Items, Events, Calls,
// Results and Idempotency are created and must not exist (Items with Replace overwrite the item of that seq).
type Commit struct {
	// SessionID names the session partition when Session is nil (e.g. a commit of calls only).
	SessionID      string
	Session        *session.Session
	SessionVersion int64
	Turns          []TurnWrite
	Items          []ItemWrite
	Events         []session.Event
	Calls          []session.Call
	Results        []session.ToolResult
	Idempotency    *Idempotency
}

// TurnWrite replaces a turn if its stored version equals Version (0 = create). The stored reconciler mark is derived
// from the turn's state (session.Turn.Mark): a new, queued turn is UNSTARTED until the runtime's start commit.
type TurnWrite struct {
	Turn    session.Turn
	Version int64
	// CheckOnly writes nothing: the commit only requires the stored version to equal Version (a fence that a
	// concurrent write of the turn, such as a cancel request, breaks). The turn keeps its version.
	CheckOnly bool
}

// ItemWrite writes an item of its session; Replace allows overwriting the item with the same seq.
type ItemWrite struct {
	SessionID string
	Item      session.Item
	Replace   bool
}

// Idempotency is the stored outcome of a request made with an Idempotency-Key: Key is the full scoped key,
// RequestHash identifies the request body, Response the resource id (session create) or "" (events).
type Idempotency struct {
	Key         string
	RequestHash string
	Response    string
	CreatedAt   int64
}

// Orchestrator runs turns on the state machine of their harness kind (implemented by orchestration/sfn;
// docs/decisions.md §6).
type Orchestrator interface {
	// StartTurn starts the execution named after the turn on in.Harness's state machine; starting an
	// already-started turn with the same input succeeds and returns the same execution ARN, and so does starting a
	// turn whose execution already ended (its name is taken). Nothing records the ARN: the turn id and the harness
	// kind name the execution (docs/decisions.md "Execution names are turn ids").
	StartTurn(ctx context.Context, in TurnExecution) (string, error)
	// Resume completes a parked AwaitResults task (SendTaskSuccess with {"resumed":true}); it returns an error
	// wrapping ErrTaskClosed when the task no longer accepts its token.
	Resume(ctx context.Context, taskToken string) error
	// ExecutionState reports whether a turn's execution (named by the turn id on the harness kind's state machine,
	// or by its ARN) is running, ended, or does not exist.
	ExecutionState(ctx context.Context, harness, execution string) (ExecutionState, error)
	// StopTurn stops a turn's execution, named by the turn id on the harness kind's state machine (or by its ARN);
	// stopping a finished one is not an error.
	StopTurn(ctx context.Context, harness, execution, cause string) error
}

// ExecutionState is what Step Functions reports of a turn's execution (Orchestrator.ExecutionState).
type ExecutionState string

// Execution states.
const (
	// ExecutionRunning: the execution runs (a queued turn's waits for a runtime to take its activity task).
	ExecutionRunning ExecutionState = "running"
	// ExecutionEnded: the execution closed: succeeded, failed, timed out or aborted (stopped).
	ExecutionEnded ExecutionState = "ended"
	// ExecutionMissing: no execution of that name exists: it was never started, or its record expired (Step
	// Functions keeps a closed Standard execution for 90 days).
	ExecutionMissing ExecutionState = "missing"
)

// TurnExecution is the state machine input for one turn, defined with the rest of the state machine's contract
// (statemachine.ExecutionInput, docs/internals.md "The turn state machine").
type TurnExecution = statemachine.ExecutionInput

// Timeouts of a turn's tasks, in seconds (statemachine.Timeouts).
type Timeouts = statemachine.Timeouts

// Admission qualifies a Session's effective configuration for execution before anything is written
// (docs/agents-api.md §3). It returns an *Error (400 unsupported_or_invalid_configuration or
// invalid_request_error) to reject.
type Admission interface {
	AdmitSession(cfg agent.Config) error
}

// RuntimeInfo is a harness runtime's registration: what kind it hosts, what it advertises, when it last
// heartbeated (Unix seconds) and until when the registration counts as live.
type RuntimeInfo struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Capabilities []string `json:"capabilities"`
	Version      string   `json:"version"`
	StartedAt    int64    `json:"started_at"`
	HeartbeatAt  int64    `json:"heartbeat_at"`
	ExpiresAt    int64    `json:"expires_at"`
}

// RawObject is a decoded JSON object whose members keep their original bytes.
type RawObject map[string]json.RawMessage
