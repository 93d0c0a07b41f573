package agentcore

import (
	"fmt"
	"strings"
)

// Reasons of a ValidationException (docs/agentcore.md §5): the wire `reason` member.
const (
	ReasonCannotParse                 = "CannotParse"
	ReasonFieldValidationFailed       = "FieldValidationFailed"
	ReasonIdempotentParameterMismatch = "IdempotentParameterMismatchException"
)

// FieldError names one offending member: Name is its path in the request (`tools[0].config.remoteMcp.url`),
// Message what is wrong with it. Rendered as a `fieldList` entry {name, message}.
type FieldError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// ValidationError is a rejected request: the wire ValidationException {message, reason, fieldList}. Message is
// the first field's "name: message" (or a summary), Reason one of the Reason constants, Fields every offending
// member found (in request order).
type ValidationError struct {
	Message string
	Reason  string
	Fields  []FieldError
}

func (e *ValidationError) Error() string { return "agentcore validation: " + e.Message }

// checker collects field errors while a request is walked.
type checker struct{ fields []FieldError }

func (c *checker) fail(name, format string, args ...any) {
	c.fields = append(c.fields, FieldError{Name: name, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) ok() bool { return len(c.fields) == 0 }

// err returns the collected errors as one *ValidationError, or nil.
func (c *checker) err() error {
	if len(c.fields) == 0 {
		return nil
	}
	return fieldsError(c.fields)
}

func fieldsError(fields []FieldError) *ValidationError {
	msg := fields[0].Name + ": " + fields[0].Message
	if len(fields) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(fields)-1)
	}
	return &ValidationError{Message: msg, Reason: ReasonFieldValidationFailed, Fields: fields}
}

// Invalid returns a FieldValidationFailed *ValidationError naming one member.
func Invalid(name, format string, args ...any) *ValidationError {
	return fieldsError([]FieldError{{Name: name, Message: fmt.Sprintf(format, args...)}})
}

// CannotParse is the error of a body that is not a JSON object (reason CannotParse).
func CannotParse(detail string) *ValidationError {
	return &ValidationError{Message: "The request body could not be parsed: " + strings.TrimSpace(detail), Reason: ReasonCannotParse}
}

// IdempotentParameterMismatch is the error of a clientToken reused with a different request.
func IdempotentParameterMismatch() *ValidationError {
	return &ValidationError{Message: "The clientToken was already used with different request parameters.",
		Reason: ReasonIdempotentParameterMismatch, Fields: []FieldError{{Name: "clientToken", Message: "already used with different parameters"}}}
}
