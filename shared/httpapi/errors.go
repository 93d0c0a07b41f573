package httpapi

import (
	"errors"
	"github.com/baton-run/baton/shared/jsonwire"
	"net/http"

	"github.com/baton-run/baton/shared/engine"
)

// Wire codes this package writes itself (docs/agents-api.md §6).
const (
	codeInvalidBeta               = "invalid_beta"
	codeUnsupportedOperation      = "unsupported_operation"
	codeRequestTooLarge           = "request_too_large"
	codeInternalError             = "internal_error"
	codeContention                = "service_unavailable"
	codeAuthenticationUnavailable = "authentication_unavailable"
)

// Messages of the errors this package writes itself.
const (
	messageUnauthenticated = "A valid Agents API bearer key is required."
	messageNotFound        = "Resource not found."
	messageInternal        = "The server had an error while processing your request."
)

// errorBody is the Agents API error body `{"error":{"message","type","code","param"}}`; code and param are null
// when empty.
type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    *string `json:"code"`
	Param   *string `json:"param"`
}

// errorType derives the wire `type` from status and code (docs/agents-api.md §6): 5xx → server_error,
// 409 → conflict_error, the not_found_error and invalid_beta codes are their own type, else invalid_request_error.
func errorType(status int, code string) string {
	switch {
	case status >= 500:
		return "server_error"
	case status == http.StatusConflict:
		return "conflict_error"
	case code == engine.CodeNotFound || code == codeInvalidBeta:
		return code
	default:
		return "invalid_request_error"
	}
}

// writeError is the one place an error becomes a response:
//   - *engine.Error → its Status, Code, Message and Param (`x-should-retry: false` when NoRetry);
//   - engine.ErrNotFound → 404 not_found_error "Resource not found.";
//   - engine.ErrConflict (retries exhausted under contention) → 503 service_unavailable, `x-should-retry: true`;
//   - engine.ErrUnauthenticated → 401, code null, `WWW-Authenticate: Bearer`;
//   - engine.ErrTooLarge → 413 request_too_large (a record the store cannot hold, x-should-retry: false);
//   - anything else → 500 internal_error with a generic message, logged once with the request id.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *engine.Error
	switch {
	case errors.As(err, &e):
		if e.NoRetry {
			w.Header().Set("x-should-retry", "false")
		}
		a.writeAPIError(w, r, e.Status, e.Code, e.Message, e.Param)
	case errors.Is(err, engine.ErrNotFound):
		a.writeAPIError(w, r, http.StatusNotFound, engine.CodeNotFound, messageNotFound, "")
	case errors.Is(err, engine.ErrTooLarge):
		a.logError(r, "record too large", err)
		w.Header().Set("x-should-retry", "false")
		a.writeAPIError(w, r, http.StatusRequestEntityTooLarge, codeRequestTooLarge,
			"The request is too large to store; reduce the size of the configuration or tool output.", "")
	case errors.Is(err, engine.ErrConflict):
		// Engine methods retry optimistic-concurrency conflicts with jittered backoff; one that reaches the API has
		// exhausted them under contention. Nothing was written: the client may retry the same request.
		a.logError(r, "contention", err)
		w.Header().Set("x-should-retry", "true")
		w.Header().Set("Retry-After", "1")
		a.writeAPIError(w, r, http.StatusServiceUnavailable, codeContention,
			"The Session is busy with concurrent writes; retry the request.", "")
	case errors.Is(err, engine.ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", "Bearer")
		a.writeAPIError(w, r, http.StatusUnauthorized, "", messageUnauthenticated, "")
	default:
		a.logError(r, "request failed", err)
		a.writeAPIError(w, r, http.StatusInternalServerError, codeInternalError, messageInternal, "")
	}
}

// writeAPIError writes one error body; code "" and param "" are rendered as null.
func (a *api) writeAPIError(w http.ResponseWriter, r *http.Request, status int, code, message, param string) {
	body := errorBody{Error: errorFields{Message: message, Type: errorType(status, code), Code: nilIfEmpty(code), Param: nilIfEmpty(param)}}
	a.writeJSON(w, r, status, body)
}

func (a *api) logError(r *http.Request, msg string, err error) {
	a.log.ErrorContext(r.Context(), msg, "request_id", info(r).id, "method", r.Method, "path", r.URL.Path, "err", err)
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// writeJSON writes v as a JSON response with the JSON-only headers.
func (a *api) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := jsonwire.Marshal(v)
	if err != nil {
		a.logError(r, "encode response", err)
		status = http.StatusInternalServerError
		b, _ = jsonwire.Marshal(errorBody{Error: errorFields{Message: messageInternal, Type: "server_error", Code: nilIfEmpty(codeInternalError)}})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	setProcessingMs(w, r)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func setProcessingMs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("OpenAI-Processing-Ms", itoa(timeSinceMs(info(r).start)))
}
