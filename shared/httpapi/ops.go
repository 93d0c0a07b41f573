package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"
)

// Operations routes and the access log (docs/operations.md §1, §2).

// Health routes: served without authentication and without the beta header, outside /v1, /admin/v1, /harnesses
// and /identities, so they collide with neither front door.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// readinessTimeout bounds one readiness probe (all checks together).
const readinessTimeout = 3 * time.Second

// maxClientRequestID bounds a caller's X-Request-Id that the access log records.
const maxClientRequestID = 128

// healthRoutes mounts /healthz and /readyz (GET and HEAD; another method is 405 with Allow).
func (a *api) healthRoutes() {
	a.route(a.health, HealthzPath, methods{"GET": a.healthz})
	a.route(a.health, ReadyzPath, methods{"GET": a.readyz})
}

// healthStatus is the body of both health routes: {"status":"ok"} for liveness; readiness adds
// {"checks":{"<name>":"ok"|"unavailable"}} and says "ready" or "unavailable". No check reveals an endpoint, a
// table name or an error text (those go to the process log with the request id).
type healthStatus struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// healthz is liveness: the process serves. It touches no dependency.
func (a *api) healthz(w http.ResponseWriter, r *http.Request) {
	a.writeJSON(w, r, http.StatusOK, healthStatus{Status: "ok"})
}

// readyz is readiness: 200 {"status":"ready"} when every dependency of this process answers
// (engine.Engine.Ready: the table, and the state machine's endpoint), otherwise 503 {"status":"unavailable"}
// naming the failing check in "checks".
func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readinessTimeout)
	defer cancel()
	body := healthStatus{Status: "ready", Checks: map[string]string{}}
	status := http.StatusOK
	for _, c := range a.eng.Ready(ctx) {
		if c.Err != nil {
			a.logError(r, "readiness check "+c.Name, c.Err)
			body.Checks[c.Name] = "unavailable"
			body.Status, status = "unavailable", http.StatusServiceUnavailable
			continue
		}
		body.Checks[c.Name] = "ok"
	}
	a.writeJSON(w, r, status, body)
}

type gatewayRequestIDKey struct{}

// WithGatewayRequestID records the API Gateway request id (requestContext.requestId) of the request ctx belongs
// to; the access log records it as apigw_request_id (functions/api and package lambdahttp call it).
func WithGatewayRequestID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, gatewayRequestIDKey{}, id)
}

// clientRequestID returns the caller's X-Request-Id when it is a plausible id (1–128 characters of letters,
// digits and -_.:); anything else is dropped, so a caller cannot forge log lines. The response never echoes it:
// every response carries Baton's own request id (docs/agents-api.md §1.1).
func clientRequestID(r *http.Request) string {
	return plausibleID(r.Header.Get("X-Request-Id"), maxClientRequestID)
}

// runtimeSessionHeader carries InvokeHarness's runtimeSessionId (docs/agentcore.md §3).
const runtimeSessionHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"

// maxRuntimeSessionID bounds the runtimeSessionId the access log records.
const maxRuntimeSessionID = 256

// plausibleID returns v when it is 1–max characters of letters, digits and -_.:, else "".
func plausibleID(v string, max int) string {
	if v == "" || len(v) > max {
		return ""
	}
	for _, c := range v {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
		if !ok {
			return ""
		}
	}
	return v
}

// accessRecorder is the ResponseWriter the access log sees: it records the status and the body bytes and passes
// everything through (Unwrap gives http.ResponseController the writer below, for Flush on streams).
type accessRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *accessRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *accessRecorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush passes a flush through (streams).
func (w *accessRecorder) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap returns the underlying writer (http.ResponseController).
func (w *accessRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logAccess writes the request's access log line once the handler has returned (for a stream: when the stream
// ended): message "request", level INFO (ERROR for 5xx), and the fields of docs/operations.md §2.
func (a *api) logAccess(rec *accessRecorder, r *http.Request, ri *requestInfo) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK // the handler wrote nothing: net/http answers 200
	}
	route := r.Pattern
	if route == "" || route == "/" {
		route = "unmatched"
	}
	attrs := []slog.Attr{
		slog.String("request_id", ri.id),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("latency_ms", float64(time.Since(ri.start).Microseconds())/1000),
		slog.Int64("bytes", rec.bytes),
	}
	if ri.clientID != "" {
		attrs = append(attrs, slog.String("client_request_id", ri.clientID))
	}
	if id, _ := r.Context().Value(gatewayRequestIDKey{}).(string); id != "" {
		attrs = append(attrs, slog.String("apigw_request_id", id))
	}
	if ri.project != "" {
		attrs = append(attrs, slog.String("project_id", ri.project))
	}
	if r.URL.Path == "/harnesses/invoke" {
		if id := plausibleID(r.Header.Get(runtimeSessionHeader), maxRuntimeSessionID); id != "" {
			attrs = append(attrs, slog.String("runtime_session_id", id))
		}
	}
	if route != "unmatched" {
		for _, p := range [][2]string{{"session_id", "session_id"}, {"turn_id", "turn_id"}, {"harness_id", "harnessId"}} {
			if v := r.PathValue(p[1]); v != "" {
				attrs = append(attrs, slog.String(p[0], v))
			}
		}
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	a.access.LogAttrs(context.WithoutCancel(r.Context()), level, "request", attrs...)
}

// defaultAccessLog is the access log of Options.AccessLog nil: JSON lines on stdout.
func defaultAccessLog() *slog.Logger { return slog.New(slog.NewJSONHandler(os.Stdout, nil)) }
