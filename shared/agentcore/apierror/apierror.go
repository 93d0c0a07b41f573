package apierror

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/jsonwire"
)

// Error shapes, the `X-Amzn-ErrorType` values Baton answers with (docs/agentcore.md §5).
const (
	Validation         = "ValidationException"
	ResourceNotFound   = "ResourceNotFoundException"
	Conflict           = "ConflictException"
	Unauthorized       = "UnauthorizedException"
	AccessDenied       = "AccessDeniedException"
	InternalServer     = "InternalServerException"
	ServiceUnavailable = "ServiceUnavailableException"
	UnknownOperation   = "UnknownOperationException"
)

// statuses is the HTTP status of each shape.
var statuses = map[string]int{
	Validation: http.StatusBadRequest, ResourceNotFound: http.StatusNotFound, Conflict: http.StatusConflict,
	Unauthorized: http.StatusUnauthorized, AccessDenied: http.StatusForbidden, InternalServer: http.StatusInternalServerError,
	ServiceUnavailable: http.StatusServiceUnavailable, UnknownOperation: http.StatusNotFound,
}

// internalMessage is the only message an InternalServerException shows; the cause is logged, never sent.
const internalMessage = "An internal error occurred. Retry the request."

// Error is one AgentCore error response. Type is one of the shape constants; Message the wire `message`; Reason
// and Fields the ValidationException `reason` and `fieldList` ({name, message} entries). HTTPStatus overrides the
// shape's status when not zero (InvokeHarness answers a wrong method with 405).
type Error struct {
	Type       string
	Message    string
	Reason     string
	Fields     []agentcore.FieldError
	HTTPStatus int
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Status is the HTTP status the error is written with: HTTPStatus, else the shape's, else 500.
func (e *Error) Status() int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	if s, ok := statuses[e.Type]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// New returns an error of a shape with a message.
func New(shape, message string) *Error { return &Error{Type: shape, Message: message} }

// FromValidation is the ValidationException of a rejected request (reason and fieldList as found).
func FromValidation(v *agentcore.ValidationError) *Error {
	return &Error{Type: Validation, Message: v.Message, Reason: v.Reason, Fields: v.Fields}
}

// Internal is the InternalServerException every unexpected failure becomes (generic message).
func Internal() *Error { return New(InternalServer, internalMessage) }

// Map maps the errors both planes share, once:
//   - *Error → itself;
//   - *agentcore.ValidationError → ValidationException with its reason and fieldList;
//   - *engine.MemberError → ValidationException FieldValidationFailed naming the member;
//   - engine.ErrIdempotencyMismatch → ValidationException IdempotentParameterMismatchException;
//   - engine.ErrAlreadyExists → ConflictException (a duplicate name);
//   - engine.ErrBusy → ConflictException (a concurrent modification);
//   - engine.ErrNotFound → ResourceNotFoundException (notFound is its message).
//
// ok is false for any other error: the caller maps its own kinds or answers Internal() and logs the cause.
func Map(err error, notFound string) (e *Error, ok bool) {
	var ae *Error
	var ve *agentcore.ValidationError
	var me *engine.MemberError
	switch {
	case errors.As(err, &ae):
		return ae, true
	case errors.As(err, &ve):
		return FromValidation(ve), true
	case errors.As(err, &me):
		return &Error{Type: Validation, Message: me.Member + ": " + me.Message, Reason: agentcore.ReasonFieldValidationFailed,
			Fields: []agentcore.FieldError{{Name: me.Member, Message: me.Message}}}, true
	case errors.Is(err, engine.ErrIdempotencyMismatch):
		return FromValidation(agentcore.IdempotentParameterMismatch()), true
	case errors.Is(err, engine.ErrAlreadyExists):
		return New(Conflict, "A resource with this name already exists."), true
	case errors.Is(err, engine.ErrBusy):
		return New(Conflict, "The resource was modified concurrently; retry the request."), true
	case errors.Is(err, engine.ErrNotFound):
		return New(ResourceNotFound, notFound), true
	}
	return nil, false
}

// body is the wire body of an error.
type body struct {
	Message string                 `json:"message"`
	Reason  string                 `json:"reason,omitempty"`
	Fields  []agentcore.FieldError `json:"fieldList,omitempty"`
}

// Write sends e as the whole response: Content-Type application/json, Content-Length, X-Amzn-ErrorType, the
// status and the body. Nothing of the response may have been written before.
func (e *Error) Write(w http.ResponseWriter) {
	b, err := jsonwire.Marshal(body{Message: e.Message, Reason: e.Reason, Fields: e.Fields})
	status, shape := e.Status(), e.Type
	if err != nil { // a string and a list of string pairs always encode; kept so the response stays well-formed
		status, shape, b = http.StatusInternalServerError, InternalServer, []byte(`{"message":"`+internalMessage+`"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Amzn-ErrorType", shape)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
