package lambdahost

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Payload limits of the Lambda service, in bytes.
const (
	// MaxSyncPayloadBytes bounds a RequestResponse request and response payload (6 MB).
	MaxSyncPayloadBytes = 6 * 1024 * 1024
	// MaxAsyncPayloadBytes bounds an Event request payload (1 MB).
	MaxAsyncPayloadBytes = 1024 * 1024
)

// Local account and region of the invoked-function ARNs (docs/internals.md "Local ARNs and names").
const (
	localRegion    = "us-east-1"
	localAccountID = "000000000000"
)

// Function is one hosted function.
type Function struct {
	// Name is the function name (the template's logical ID, e.g. "ParkFunction"). Required.
	Name string
	// Handler runs the invocation, normally lambda.NewHandler(fn). Required.
	Handler lambda.Handler
	// Timeout is the function timeout; the handler's context has this deadline, and an invocation still
	// running at the deadline is answered with a Sandbox.Timedout function error (the handler goroutine
	// keeps running until it returns). Zero means no timeout.
	Timeout time.Duration
}

// Host is an http.Handler that serves the Lambda Invoke API for the registered functions. Register functions
// before serving; Host is safe for concurrent use.
type Host struct {
	mu    sync.RWMutex
	fns   map[string]Function
	async sync.WaitGroup

	statsMu sync.Mutex
	stats   map[string]FunctionStats

	// NewRequestID returns the request id of an invocation; nil means a random UUID.
	NewRequestID func() string
	// Logger receives the errors of Event invocations, which have no caller to report to; nil means
	// slog.Default().
	Logger *slog.Logger
}

// New returns a Host with no functions.
func New() *Host {
	return &Host{fns: map[string]Function{}}
}

// Register adds fn, replacing any function of the same name. It panics if Name or Handler is missing (a
// programming error).
func (h *Host) Register(fn Function) {
	if fn.Name == "" || fn.Handler == nil {
		panic("lambdahost: Register needs a Name and a Handler")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fns[fn.Name] = fn
}

// Names returns the names of the registered functions.
func (h *Host) Names() []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	names := make([]string, 0, len(h.fns))
	for n := range h.fns {
		names = append(names, n)
	}
	return names
}

// Wait blocks until every Event invocation started so far has returned. Call it on shutdown, after the
// HTTP server stopped accepting requests.
func (h *Host) Wait() { h.async.Wait() }

// ServeHTTP implements the Invoke API; any other request gets 404 UnknownOperationException.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const prefix, suffix = "/2015-03-31/functions/", "/invocations"
	path := r.URL.EscapedPath()
	if r.Method != http.MethodPost || !strings.HasPrefix(path, prefix) || !strings.HasSuffix(path, suffix) || len(path) <= len(prefix)+len(suffix) {
		writeServiceError(w, http.StatusNotFound, "UnknownOperationException", "Unknown operation "+r.Method+" "+r.URL.Path)
		return
	}
	ref, err := urlUnescape(path[len(prefix) : len(path)-len(suffix)])
	if err != nil {
		writeServiceError(w, http.StatusBadRequest, "InvalidParameterValueException", "Malformed function name.")
		return
	}
	name, qualifier := parseFunctionRef(ref)
	if q := r.URL.Query().Get("Qualifier"); q != "" {
		qualifier = q
	}
	h.mu.RLock()
	fn, ok := h.fns[name]
	h.mu.RUnlock()
	if !ok || (qualifier != "" && qualifier != "$LATEST") {
		arn := functionARN(name)
		if qualifier != "" {
			arn += ":" + qualifier
		}
		writeServiceError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+arn)
		return
	}

	invocationType := r.Header.Get("X-Amz-Invocation-Type")
	limit := int64(MaxSyncPayloadBytes)
	switch invocationType {
	case "", "RequestResponse":
		invocationType = "RequestResponse"
	case "Event":
		limit = MaxAsyncPayloadBytes
	case "DryRun":
	default:
		writeServiceError(w, http.StatusBadRequest, "InvalidParameterValueException", "Unsupported invocation type "+invocationType)
		return
	}
	payload, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeServiceError(w, http.StatusBadRequest, "InvalidRequestContentException", "Could not read the request body.")
		return
	}
	if int64(len(payload)) > limit {
		writeServiceError(w, http.StatusRequestEntityTooLarge, "RequestTooLargeException",
			fmt.Sprintf("Request must be smaller than %d bytes for the %s invocation type", limit, invocationType))
		return
	}
	if len(payload) == 0 {
		payload = []byte("{}") // what the SDK sends for a nil Payload, as far as the handler can tell
	}

	requestID := h.requestID()
	w.Header().Set("X-Amzn-RequestId", requestID)
	switch invocationType {
	case "DryRun":
		w.WriteHeader(http.StatusNoContent)
		return
	case "Event":
		h.async.Add(1)
		go func() {
			defer h.async.Done()
			// The caller's request ends now; the invocation must not end with it.
			res := h.invoke(context.WithoutCancel(r.Context()), fn, requestID, payload)
			if res.funcErr != nil {
				h.logger().Error("lambdahost: Event invocation failed",
					"function", fn.Name, "request_id", requestID, "errorType", res.funcErr.Type, "errorMessage", res.funcErr.Message)
			}
		}()
		w.WriteHeader(http.StatusAccepted)
		return
	}

	res := h.invoke(r.Context(), fn, requestID, payload)
	if res.funcErr == nil && len(res.output) > MaxSyncPayloadBytes {
		res.funcErr = &messages.InvokeResponse_Error{
			Type:    "Function.ResponseSizeTooLarge",
			Message: fmt.Sprintf("Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", len(res.output), MaxSyncPayloadBytes),
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	if res.funcErr != nil {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		body, _ := json.Marshal(res.funcErr)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(res.output)
}

// FunctionStats counts one function's invocations since the Host was created, for benchmarks (`make bench`
// prices Lambda duration from it: docs/bench.md "Cost"). JSON: {"invocations","duration_ns","billed_ms"}.
type FunctionStats struct {
	// Invocations counts RequestResponse and Event invocations that ran the handler (DryRun and rejected requests
	// are not invocations).
	Invocations int64 `json:"invocations"`
	// DurationNanos sums the handler run times in nanoseconds (up to the function timeout for one that timed out).
	DurationNanos int64 `json:"duration_ns"`
	// BilledMillis sums each invocation's run time rounded up to a whole millisecond, as Lambda bills duration.
	BilledMillis int64 `json:"billed_ms"`
}

// Stats returns the counters of every function invoked so far, by function name.
func (h *Host) Stats() map[string]FunctionStats {
	h.statsMu.Lock()
	defer h.statsMu.Unlock()
	out := make(map[string]FunctionStats, len(h.stats))
	for k, v := range h.stats {
		out[k] = v
	}
	return out
}

// StatsHandler serves Stats as a JSON object keyed by function name (the launcher mounts it at
// GET /_baton/stats on the Lambda endpoint).
func (h *Host) StatsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h.Stats())
	})
}

// invoke runs one invocation (package invoke) and adds it to the function's FunctionStats.
func (h *Host) invoke(ctx context.Context, fn Function, requestID string, payload []byte) result {
	start := time.Now()
	res := invoke(ctx, fn, requestID, payload)
	d := time.Since(start)
	h.statsMu.Lock()
	if h.stats == nil {
		h.stats = map[string]FunctionStats{}
	}
	st := h.stats[fn.Name]
	st.Invocations++
	st.DurationNanos += d.Nanoseconds()
	st.BilledMillis += (d.Nanoseconds() + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	h.stats[fn.Name] = st
	h.statsMu.Unlock()
	return res
}

type result struct {
	output  []byte
	funcErr *messages.InvokeResponse_Error
}

// invoke runs fn with a Lambda context and the function's deadline, turning errors, panics and timeouts
// into the error body the Lambda service returns.
func invoke(ctx context.Context, fn Function, requestID string, payload []byte) result {
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		AwsRequestID:       requestID,
		InvokedFunctionArn: functionARN(fn.Name),
	})
	cancel := func() {}
	if fn.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, fn.Timeout)
	}
	defer cancel()

	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{funcErr: &messages.InvokeResponse_Error{Message: fmt.Sprint(p), Type: typeName(p)}}
			}
		}()
		out, err := fn.Handler.Invoke(ctx, payload)
		if err != nil {
			done <- result{funcErr: errorResponse(err)}
			return
		}
		done <- result{output: out}
	}()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return result{funcErr: &messages.InvokeResponse_Error{
				Type:    "Sandbox.Timedout",
				Message: fmt.Sprintf("%s Task timed out after %.2f seconds", requestID, fn.Timeout.Seconds()),
			}}
		}
		// The caller went away; nobody reads the answer. Wait for the handler so it does not outlive the
		// request unnoticed.
		return <-done
	}
}

// errorResponse is what aws-lambda-go's runtime loop reports for an error returned by a handler: a
// messages.InvokeResponse_Error as is, otherwise the error's message and the name of its type (the pointed-to
// type for a pointer, e.g. "errorString" for errors.New).
func errorResponse(err error) *messages.InvokeResponse_Error {
	var ive messages.InvokeResponse_Error
	if errors.As(err, &ive) {
		return &ive
	}
	return &messages.InvokeResponse_Error{Message: err.Error(), Type: typeName(err)}
}

func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// parseFunctionRef splits a FunctionName parameter (name, name:qualifier, account:function:name[:qualifier]
// or arn:aws:lambda:region:account:function:name[:qualifier]) into the name and the qualifier.
func parseFunctionRef(ref string) (name, qualifier string) {
	if i := strings.Index(ref, ":function:"); i >= 0 {
		ref = ref[i+len(":function:"):]
	}
	name, qualifier, _ = strings.Cut(ref, ":")
	return name, qualifier
}

func functionARN(name string) string {
	return "arn:aws:lambda:" + localRegion + ":" + localAccountID + ":function:" + name
}

func (h *Host) requestID() string {
	if h.NewRequestID != nil {
		return h.NewRequestID()
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	s := hex.EncodeToString(b[:])
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

func (h *Host) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// writeServiceError writes an error of the Lambda service itself (not of a function): the error code in
// X-Amzn-ErrorType, where aws-sdk-go-v2 looks for it, and {"Type":"User","message"} as the body.
func writeServiceError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(struct {
		Type    string `json:"Type"`
		Message string `json:"message"`
	}{"User", message})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	_, _ = w.Write(bytes.TrimSpace(body))
}

// urlUnescape decodes a path segment (the SDK percent-encodes the colons of an ARN).
func urlUnescape(s string) (string, error) {
	return url.PathUnescape(s)
}
