package engine

import (
	"context"
	"errors"
	"fmt"
)

// Metric names the engine records (docs/operations.md §3). Every measurement is a count (unit Count).
const (
	// MetricTurnsStarted counts turn executions the engine started (StartExecution succeeded): from Session
	// create, from POST …/events and from the reconciler. Dimension Harness.
	MetricTurnsStarted = "TurnsStarted"
	// MetricRequiredActionsIssued counts function calls handed to the caller: when a turn parks on a round
	// (Park stores the round's task token for the first time), by the number of the round's pending calls.
	// Dimension Harness.
	MetricRequiredActionsIssued = "RequiredActionsIssued"
	// MetricToolResultsAccepted counts tool results committed (identical retries are not counted again).
	// Dimension Harness.
	MetricToolResultsAccepted = "ToolResultsAccepted"
	// MetricResultConflicts counts tool results refused with 409 conflict_error: a different result for an
	// answered call, or a result the turn no longer accepts (after cancel, after the await timeout). Dimension
	// Harness.
	MetricResultConflicts = "ResultConflicts"
	// MetricDispatchRefusals counts requests refused with 503 execution_unavailable (no live runtime of the
	// harness kind advertises what the turn needs). Dimension Harness.
	MetricDispatchRefusals = "DispatchRefusals"
	// MetricTurnFailures counts turns settled as failed. Dimensions Harness and Cause (the state machine's error
	// name, e.g. States.HeartbeatTimeout; CauseUnknown when it gave none).
	MetricTurnFailures = "TurnFailures"
)

// Dimension names of the engine's measurements (docs/operations.md §3).
const (
	DimensionHarness = "Harness"
	DimensionCause   = "Cause"
)

// CauseUnknown is the Cause dimension of a failed turn whose run outcome names no error.
const CauseUnknown = "Unknown"

// Measurement is one engine signal: Name (one of the Metric* constants), Count (≥ 1), low-cardinality
// Dimensions (Harness, Cause) and, as searchable context only (never a dimension), the Session and Turn ids
// ("" when the signal has none).
type Measurement struct {
	Name       string
	Count      int64
	Dimensions map[string]string
	SessionID  string
	TurnID     string
}

// Metrics receives the engine's measurements (package metrics/emf writes them as CloudWatch embedded metric
// format lines). Record must not block on I/O the request waits for beyond a local write and must not fail the
// operation: it returns nothing. Calls happen after the state change they describe has committed (or, for
// refusals, once the refusal is decided); the engine makes no extra store call to record them.
type Metrics interface {
	Record(ctx context.Context, m Measurement)
}

// record sends one measurement to the configured Metrics (none: nothing).
func (e *Engine) record(ctx context.Context, name string, count int64, harness, sessionID, turnID string, extra ...string) {
	if e.metrics == nil || count <= 0 {
		return
	}
	if harness == "" {
		harness = "baton"
	}
	dims := map[string]string{DimensionHarness: harness}
	for i := 0; i+1 < len(extra); i += 2 {
		dims[extra[i]] = extra[i+1]
	}
	e.metrics.Record(ctx, Measurement{Name: name, Count: count, Dimensions: dims, SessionID: sessionID, TurnID: turnID})
}

// isResultConflict reports whether err is a tool result's 409 conflict_error (a different result, or a turn
// that no longer accepts results), as opposed to another conflict (a busy Session).
func isResultConflict(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeConflictError &&
		(e.Message == MessageDifferentResult || e.Message == MessageTurnNotAccepting)
}

// ReadinessCheck names one dependency Ready probes: "table" (a GetItem of a fixed key that cannot exist) and
// "state_machine" (DescribeExecution of an execution name that cannot exist). Err is nil when it answered.
type ReadinessCheck struct {
	Name string
	Err  error
}

// readinessProbeKey is the key hash the table probe reads: not a SHA-256 hex digest, so no API key is ever stored
// under it, and the read is answered "not found" by a table that works.
const readinessProbeKey = "readiness-probe"

// readinessProbeExecution is the execution name the state machine probe describes (turn ids start with "turn_").
const readinessProbeExecution = "readiness-probe"

// Ready probes the dependencies this process needs to serve requests: the table (always) and, when the Engine
// has an Orchestrator, the state machine's endpoint. It returns one ReadinessCheck per dependency, in that order;
// ready means every Err is nil. It writes nothing; an unreachable dependency takes as long as the SDK client's
// retries (bound it with ctx).
func (e *Engine) Ready(ctx context.Context) []ReadinessCheck {
	checks := []ReadinessCheck{{Name: "table"}}
	if _, err := e.store.ProjectForKey(ctx, readinessProbeKey); err != nil && !isNotFound(err) {
		checks[0].Err = fmt.Errorf("read table: %w", err)
	}
	if e.orch != nil {
		c := ReadinessCheck{Name: "state_machine"}
		if _, err := e.orch.ExecutionState(ctx, "", readinessProbeExecution); err != nil {
			c.Err = fmt.Errorf("describe execution: %w", err)
		}
		checks = append(checks, c)
	}
	return checks
}
