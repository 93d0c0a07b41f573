package sfn

import (
	"errors"
	"fmt"
	"net/http"
)

// APIError is an error the endpoint reports on the wire as {"__type":"<Code>","message":"<Message>"} with
// HTTPStatus (400 for every modeled Step Functions error, spec §1.3). Go callers of Endpoint methods get it
// back wrapped; use errors.As to read the code.
type APIError struct {
	Code       string
	Message    string
	HTTPStatus int
}

// Error implements error as "<Code>: <Message>".
func (e *APIError) Error() string { return e.Code + ": " + e.Message }

func apiErr(code, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...), HTTPStatus: http.StatusBadRequest}
}

// Error codes of spec §1.3 that the endpoint raises.
const (
	CodeInvalidDefinition            = "InvalidDefinition"
	CodeInvalidArn                   = "InvalidArn"
	CodeInvalidName                  = "InvalidName"
	CodeInvalidExecutionInput        = "InvalidExecutionInput"
	CodeInvalidOutput                = "InvalidOutput"
	CodeInvalidToken                 = "InvalidToken"
	CodeTaskDoesNotExist             = "TaskDoesNotExist"
	CodeTaskTimedOut                 = "TaskTimedOut"
	CodeStateMachineDoesNotExist     = "StateMachineDoesNotExist"
	CodeStateMachineAlreadyExists    = "StateMachineAlreadyExists"
	CodeStateMachineTypeNotSupported = "StateMachineTypeNotSupported"
	CodeExecutionDoesNotExist        = "ExecutionDoesNotExist"
	CodeExecutionAlreadyExists       = "ExecutionAlreadyExists"
	CodeActivityDoesNotExist         = "ActivityDoesNotExist"
	CodeValidation                   = "ValidationException"
	CodeUnknownOperation             = "UnknownOperationException"
	CodeSerialization                = "SerializationException"
)

// ErrClosed is returned by Endpoint methods called after Close.
var ErrClosed = errors.New("sfn: endpoint closed")

// States error names of spec §4.8.
const (
	errAll               = "States.ALL"
	errTaskFailed        = "States.TaskFailed"
	errTimeout           = "States.Timeout"
	errHeartbeatTimeout  = "States.HeartbeatTimeout"
	errRuntime           = "States.Runtime"
	errDataLimitExceeded = "States.DataLimitExceeded"
	errResultPathMatch   = "States.ResultPathMatchFailure"
	errIntrinsicFailure  = "States.IntrinsicFailure"
	errNoChoiceMatched   = "States.NoChoiceMatched"
)

// stateError is an error raised inside an execution (spec §4.8). A nil Name or Cause is a JSON null in the
// Error Output (SendTaskFailure without values).
type stateError struct {
	Name      *string `json:"name,omitempty"`
	Cause     *string `json:"cause,omitempty"`
	Heartbeat bool    `json:"heartbeat,omitempty"` // a States.Timeout caused by a missed heartbeat
}

func (e *stateError) Error() string { return deref(e.Name) + ": " + deref(e.Cause) }

func newStateError(name, cause string) *stateError { return &stateError{Name: &name, Cause: &cause} }

func runtimeError(format string, args ...any) *stateError {
	return newStateError(errRuntime, fmt.Sprintf(format, args...))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func strPtr(s string) *string { return &s }
