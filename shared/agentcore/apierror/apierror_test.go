package apierror

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
)

func TestWriteValidationException(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	FromValidation(agentcore.Invalid("tools[0].name", "must be <= 64 characters & unique")).Write(rec)
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("status %d", rec.Code)
	}
	if got := rec.Header().Get("X-Amzn-ErrorType"); got != Validation {
		t.Fatalf("X-Amzn-ErrorType %q", got)
	}
	want := `{"message":"tools[0].name: must be <= 64 characters & unique","reason":"FieldValidationFailed","fieldList":[{"name":"tools[0].name","message":"must be <= 64 characters & unique"}]}`
	if rec.Body.String() != want {
		t.Fatalf("body\n got %s\nwant %s", rec.Body.String(), want)
	}
	if rec.Header().Get("Content-Length") != fmt.Sprint(len(want)) || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", rec.Header())
	}
}

func TestWriteOmitsReasonAndFieldListOutsideValidation(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	New(Conflict, "busy").Write(rec)
	if rec.Code != http.StatusConflict || rec.Body.String() != `{"message":"busy"}` || rec.Header().Get("X-Amzn-ErrorType") != Conflict {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	rec = httptest.NewRecorder()
	(&Error{Type: Validation, Message: "m", HTTPStatus: http.StatusMethodNotAllowed}).Write(rec)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("HTTPStatus override ignored: %d", rec.Code)
	}
}

func TestMapSharedKinds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		shape  string
		status int
		reason string
	}{
		{agentcore.CannotParse("x"), Validation, 400, agentcore.ReasonCannotParse},
		{fmt.Errorf("wrapped: %w", &engine.MemberError{Member: "targetVersion", Message: "no such version"}), Validation, 400, agentcore.ReasonFieldValidationFailed},
		{fmt.Errorf("h: %w", engine.ErrIdempotencyMismatch), Validation, 400, agentcore.ReasonIdempotentParameterMismatch},
		{fmt.Errorf("h: %w", engine.ErrAlreadyExists), Conflict, 409, ""},
		{fmt.Errorf("h: %w", engine.ErrBusy), Conflict, 409, ""},
		{fmt.Errorf("h: %w", engine.ErrNotFound), ResourceNotFound, 404, ""},
		{New(UnknownOperation, "no"), UnknownOperation, 404, ""},
	} {
		e, ok := Map(c.err, "not found")
		if !ok || e.Type != c.shape || e.Status() != c.status || e.Reason != c.reason {
			t.Errorf("%v → %+v ok=%v; want %s %d %q", c.err, e, ok, c.shape, c.status, c.reason)
		}
	}
	if _, ok := Map(errors.New("disk on fire"), "not found"); ok {
		t.Fatal("an unknown error must be left to the caller (InternalServerException, logged)")
	}
	if Internal().Status() != http.StatusInternalServerError {
		t.Fatal("Internal is not a 500")
	}
}
