package invoke

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
)

// errReplayed: a follow-up whose results another request already submitted for the same pause (it lost the claim,
// or the engine refused its results as answered or no longer waited for).
var errReplayed = errors.New("replayed tool results")

// apiError is an AgentCore error response: HTTP Status, `X-Amzn-ErrorType: <Type>` and the body
// `{"message", "reason", "fieldList"}` (reason and fieldList only on ValidationException).
type apiError struct {
	Status    int
	Type      string
	Message   string
	Reason    string
	FieldList []fieldError
}

// Error types InvokeHarness answers with (docs/agentcore.md §3.7).
const (
	typeValidation         = "ValidationException"
	typeResourceNotFound   = "ResourceNotFoundException"
	typeConflict           = "ConflictException"
	typeInternalServer     = "InternalServerException"
	typeServiceUnavailable = "ServiceUnavailableException"
	typeAccessDenied       = "AccessDeniedException"
	reasonFieldValidation  = "FieldValidationFailed"
	reasonCannotParse      = "CannotParse"
)

func validation(fe *fieldError) *apiError {
	reason := reasonFieldValidation
	if fe.Name == "body" {
		reason = reasonCannotParse
	}
	return &apiError{Status: http.StatusBadRequest, Type: typeValidation, Message: fe.Name + ": " + fe.Message, Reason: reason, FieldList: []fieldError{*fe}}
}

// toAPIError maps every error of an invocation to its wire error, once. Internal errors are logged by the caller
// and never shown.
func toAPIError(err error) *apiError {
	var ae *apiError
	var rej *handoff.Rejection
	var te *translate.Error
	var ee *engine.Error
	var ve *agentcore.ValidationError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ve):
		fields := make([]fieldError, 0, len(ve.Fields))
		for _, f := range ve.Fields {
			fields = append(fields, fieldError(f))
		}
		return &apiError{Status: http.StatusBadRequest, Type: typeValidation, Message: ve.Message, Reason: ve.Reason, FieldList: fields}
	case errors.As(err, &rej):
		if rej.Reason == handoff.ReasonBusy {
			return &apiError{Status: http.StatusConflict, Type: typeConflict, Message: rej.Message}
		}
		return &apiError{Status: http.StatusBadRequest, Type: typeValidation, Message: rej.Message, Reason: reasonFieldValidation,
			FieldList: []fieldError{{Name: fieldMessages, Message: rej.Message}}}
	case errors.As(err, &te):
		return validation(&fieldError{Name: te.Field, Message: te.Message})
	case errors.Is(err, engine.ErrNotFound):
		return &apiError{Status: http.StatusNotFound, Type: typeResourceNotFound, Message: "The harness or session was not found."}
	case errors.As(err, &ee):
		switch {
		case ee.Message == engine.MessageSessionBusy:
			return &apiError{Status: http.StatusConflict, Type: typeConflict, Message: "The session is processing another invocation; wait for its stream to end."}
		case ee.Code == engine.CodeExecutionUnavailable:
			return &apiError{Status: http.StatusServiceUnavailable, Type: typeServiceUnavailable, Message: ee.Message}
		default:
			return &apiError{Status: http.StatusBadRequest, Type: typeValidation, Message: ee.Message, Reason: reasonFieldValidation,
				FieldList: []fieldError{{Name: "configuration", Message: ee.Message}}}
		}
	case errors.Is(err, errReplayed):
		msg := "The toolResult does not answer the pending tool calls (stale or replayed)."
		return &apiError{Status: http.StatusBadRequest, Type: typeValidation, Message: msg, Reason: reasonFieldValidation, FieldList: []fieldError{{Name: fieldMessages, Message: msg}}}
	case errors.Is(err, engine.ErrTooLarge):
		return validation(&fieldError{Name: "body", Message: "the configuration or input is too large"})
	default:
		return &apiError{Status: http.StatusInternalServerError, Type: typeInternalServer, Message: "The request could not be processed."}
	}
}

// write sends e as the response (nothing of the stream has been written yet).
func (e *apiError) write(w http.ResponseWriter) {
	body := map[string]any{"message": e.Message}
	if e.Reason != "" {
		body["reason"] = e.Reason
	}
	if len(e.FieldList) > 0 {
		body["fieldList"] = e.FieldList
	}
	b, _ := json.Marshal(body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-ErrorType", e.Type)
	w.WriteHeader(e.Status)
	_, _ = w.Write(b)
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }
