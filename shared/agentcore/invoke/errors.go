package invoke

import (
	"errors"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/apierror"
	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
)

// errReplayed: a follow-up whose results another request already submitted for the same pause (it lost the claim,
// or the engine refused its results as answered or no longer waited for).
var errReplayed = errors.New("replayed tool results")

// fieldError is one `fieldList` entry {name, message}.
type fieldError = agentcore.FieldError

// validation is the ValidationException naming one member: reason CannotParse for the body, FieldValidationFailed
// otherwise.
func validation(fe *fieldError) *apierror.Error {
	reason := agentcore.ReasonFieldValidationFailed
	if fe.Name == "body" {
		reason = agentcore.ReasonCannotParse
	}
	return &apierror.Error{Type: apierror.Validation, Message: fe.Name + ": " + fe.Message, Reason: reason, Fields: []fieldError{*fe}}
}

// onMessages is a FieldValidationFailed ValidationException about the request's messages.
func onMessages(msg string) *apierror.Error {
	return &apierror.Error{Type: apierror.Validation, Message: msg, Reason: agentcore.ReasonFieldValidationFailed,
		Fields: []fieldError{{Name: fieldMessages, Message: msg}}}
}

// toAPIError maps every error of an invocation to its wire error, once (docs/agentcore.md §3.7): the handoff's
// rejections, translation and engine errors here, the kinds both planes share through apierror.Map, anything else
// an InternalServerException (internal errors are logged by the caller and never shown).
func toAPIError(err error) *apierror.Error {
	var rej *handoff.Rejection
	var te *translate.Error
	var ee *engine.Error
	if ae, ok := apierror.Map(err, "The harness or session was not found."); ok {
		return ae
	}
	switch {
	case errors.As(err, &rej):
		if rej.Reason == handoff.ReasonBusy {
			return apierror.New(apierror.Conflict, rej.Message)
		}
		return onMessages(rej.Message)
	case errors.As(err, &te):
		return validation(&fieldError{Name: te.Field, Message: te.Message})
	case errors.As(err, &ee):
		switch {
		case ee.Message == engine.MessageSessionBusy:
			return apierror.New(apierror.Conflict, "The session is processing another invocation; wait for its stream to end.")
		case ee.Code == engine.CodeExecutionUnavailable:
			return apierror.New(apierror.ServiceUnavailable, ee.Message)
		default:
			return &apierror.Error{Type: apierror.Validation, Message: ee.Message, Reason: agentcore.ReasonFieldValidationFailed,
				Fields: []fieldError{{Name: "configuration", Message: ee.Message}}}
		}
	case errors.Is(err, errReplayed):
		return onMessages("The toolResult does not answer the pending tool calls (stale or replayed).")
	case errors.Is(err, engine.ErrTooLarge):
		return validation(&fieldError{Name: "body", Message: "the configuration or input is too large"})
	default:
		return &apierror.Error{Type: apierror.InternalServer, Message: "The request could not be processed."}
	}
}
