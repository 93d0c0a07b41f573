package engine

import (
	"errors"
	"fmt"
)

// Sentinel errors. Adapters and callers match them with errors.Is; the API maps each to its wire error once.
var (
	// ErrNotFound: a missing, deleted, malformed or foreign (other project) resource. Never says which.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a write lost an optimistic-concurrency or uniqueness condition. Engine methods retry it
	// internally; callers see it only from the Store.
	ErrConflict = errors.New("conflict")
	// ErrUnauthenticated: a missing or unknown API key.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrTaskClosed: Step Functions no longer accepts a task token (the task succeeded, failed or timed out, or its
	// execution ended). The Orchestrator wraps TaskTimedOut, TaskDoesNotExist and InvalidToken with it.
	ErrTaskClosed = errors.New("task closed")
	// ErrTooLarge: a record exceeds what the store can hold (DynamoDB's item or transaction size). The API answers
	// 413 request_too_large.
	ErrTooLarge = errors.New("too large")
)

// Error is a request the engine refuses for a documented reason. Status is the HTTP status the Agents API uses,
// Code the wire `code` (and, via the API's derivation rule, its `type`), Message the wire message (never an
// internal detail), Param the JSON path of the offending member or "".
type Error struct {
	Status  int
	Code    string
	Message string
	Param   string
	// NoRetry marks deterministic conflicts: the API sends `x-should-retry: false` (docs/agents-api.md §W2.3).
	NoRetry bool
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Codes of the wire errors the engine returns (docs/agents-api.md §6).
const (
	CodeInvalidRequestError    = "invalid_request_error"
	CodeInvalidRequest         = "invalid_request"
	CodeUnsupportedConfig      = "unsupported_or_invalid_configuration"
	CodeConflictError          = "conflict_error"
	CodeIdempotencyConflict    = "idempotency_conflict"
	CodeExecutionUnavailable   = "execution_unavailable"
	CodeNotFound               = "not_found_error"
	MessageDifferentResult     = "The tool call already has a different result."
	MessageTurnNotAccepting    = "The Turn cannot accept this input in its current state."
	MessageIdempotencyReused   = "This idempotency key was used with different input."
	MessageSessionBusy         = "The Session already has an active Turn; wait for it to finish or cancel it."
	MessageSessionNotDeletable = "session must be durably idle or failed without required actions before deletion"
)

// UnknownPendingCall is the exact error for a result whose call is unknown or belongs to another Turn
// (docs/decisions.md §9; the SDK's Sessions.Stream helper retries on this message).
func UnknownPendingCall(callID string) *Error {
	return &Error{Status: 400, Code: CodeInvalidRequestError, Message: "Unknown pending tool call: " + callID}
}

func invalid(param, format string, args ...any) *Error {
	return &Error{Status: 400, Code: CodeInvalidRequestError, Message: fmt.Sprintf(format, args...), Param: param}
}

func conflict(code, message string) *Error {
	return &Error{Status: 409, Code: code, Message: message, NoRetry: true}
}
