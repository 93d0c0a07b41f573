package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/agentcore/invoke"
	"github.com/baton-run/baton/shared/console"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/sigv4auth"
)

// Body limits of the JSON body gate (docs/agents-api.md §1.1; docs/decisions.md §10).
const (
	DefaultMaxBodyBytes          = 1 << 20  // 1 MiB
	DefaultMaxSessionCreateBytes = 16 << 20 // 16 MiB
)

// Stream defaults (docs/decisions.md "Streams": REST API response streaming lasts at most 15 minutes and closes after 5 idle
// minutes, so a stream sends keep-alives and ends cleanly before the limit).
const (
	DefaultPollInterval = 100 * time.Millisecond
	// DefaultMaxIdlePollInterval bounds the back-off of a stream whose Session is idle.
	DefaultMaxIdlePollInterval = time.Second
	// DefaultActivePollFactor bounds the back-off of a stream whose turn is running but wrote nothing new:
	// Options.MaxActivePollInterval defaults to this many PollIntervals.
	DefaultActivePollFactor  = 4
	DefaultKeepAliveInterval = 15 * time.Second
	DefaultMaxStreamDuration = 14 * time.Minute
)

// openAIVersion is sent as `OpenAI-Version` on every response.
const openAIVersion = "2020-10-01"

// Options configures the handler. Zero values take the defaults above; a nil Logger means slog.Default().
type Options struct {
	Logger *slog.Logger
	// AccessLog receives one line per request (docs/operations.md §2); nil means JSON lines on stdout
	// (slog.NewJSONHandler).
	AccessLog *slog.Logger
	// PollInterval is how often a stream reads new events from the Store while events flow.
	PollInterval time.Duration
	// MaxIdlePollInterval is the longest a stream waits between reads while its Session is idle (the interval
	// doubles from PollInterval after each empty read; an event, or a commit of this process to the Session, resets
	// it).
	MaxIdlePollInterval time.Duration
	// MaxActivePollInterval is the longest a stream waits between reads while a turn runs without writing new
	// events (a model thinking, a tool running, a runtime not yet picking up the task): the interval doubles from
	// PollInterval after each empty read, and any event resets it (0 = DefaultActivePollFactor × PollInterval).
	MaxActivePollInterval time.Duration
	// CommitsWake says every commit to the table wakes this process's streams (Engine.Wake): the local stack, whose
	// launcher serves the API, runs Park and Settle in-process and hears its runtimes' commits (Engine.Committed,
	// BATON_LOCAL_WAKE_URL). A stream then reads when woken and otherwise at most every MaxActivePollInterval while
	// a turn runs and every MaxIdlePollInterval while the Session is quiet (a backstop for a commit it does not hear
	// of, e.g. another API process's), instead of every PollInterval while events flow. False (AWS, where a runtime's commits are found by polling) keeps the polling above.
	CommitsWake bool
	// KeepAliveInterval is the longest a stream stays silent before it writes a `: keep-alive` comment.
	KeepAliveInterval time.Duration
	// MaxStreamDuration ends a stream cleanly (clients reconnect) before the platform's streaming limit.
	MaxStreamDuration time.Duration
	// AdminKey is the bearer key of /admin/v1; "" disables the admin API (its routes answer 404).
	AdminKey string
	// MaxBodyBytes bounds JSON bodies; MaxSessionCreateBytes bounds POST /v1/agents/sessions.
	MaxBodyBytes          int64
	MaxSessionCreateBytes int64
	// RuntimeSessions stores the AgentCore runtimeSessionId → Session mapping InvokeHarness needs
	// (docs/agentcore.md §3.4; *dynamo.Store implements it); nil = InvokeHarness answers
	// UnknownOperationException.
	RuntimeSessions invoke.RuntimeSessions
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.AccessLog == nil {
		o.AccessLog = defaultAccessLog()
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.MaxIdlePollInterval <= 0 {
		o.MaxIdlePollInterval = DefaultMaxIdlePollInterval
	}
	if o.MaxActivePollInterval <= 0 {
		o.MaxActivePollInterval = DefaultActivePollFactor * o.PollInterval
	}
	if o.KeepAliveInterval <= 0 {
		o.KeepAliveInterval = DefaultKeepAliveInterval
	}
	if o.MaxStreamDuration <= 0 {
		o.MaxStreamDuration = DefaultMaxStreamDuration
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessionCreateBytes <= 0 {
		o.MaxSessionCreateBytes = DefaultMaxSessionCreateBytes
	}
	return o
}

type api struct {
	eng    *engine.Engine
	opts   Options
	log    *slog.Logger
	access *slog.Logger
	agents *http.ServeMux // /v1/agents…, behind the beta and bearer gates
	health *http.ServeMux // /healthz and /readyz, no gate
	// console serves the live console's page and assets (/console, /console/…; console.go), no gate: the page
	// authenticates its own API calls.
	console *http.ServeMux
	admin   *http.ServeMux // /admin/v1…, behind the admin key
	// agentcore serves /harnesses… and /identities…, behind the SigV4 gate (agentcore.go).
	agentcore *http.ServeMux
	verifier  *sigv4auth.Verifier
	// invoke serves InvokeHarness; nil without Options.RuntimeSessions.
	invoke http.Handler
}

// New returns the Agents API and admin API handler on eng, with the AgentCore front door and the health routes
// GET /healthz and GET /readyz (no authentication; docs/operations.md §1). Every request gets one access log line
// (Options.AccessLog, docs/operations.md §2) once its handler returned — for a stream, when the stream ended.
//
// Every response carries `X-Request-Id: req_<32 hex>`, `OpenAI-Version` and `X-Content-Type-Options: nosniff`;
// JSON responses also `Cache-Control: no-store`. Routes under /v1/agents require exactly one
// `OpenAI-Beta: agents=v1` (checked before authentication) and a bearer key of a project. Unknown /v1 routes are 404
// `unsupported_operation`; a known route with another method is 405 with `Allow`.
func New(eng *engine.Engine, opts Options) http.Handler {
	a := &api{eng: eng, opts: opts.withDefaults(), agents: http.NewServeMux(), admin: http.NewServeMux(), agentcore: http.NewServeMux(),
		health: http.NewServeMux(), console: http.NewServeMux()}
	a.log = a.opts.Logger
	a.access = a.opts.AccessLog
	a.verifier = &sigv4auth.Verifier{Service: AgentCoreSigningName, Lookup: a.lookupAccessKey}
	if opts.RuntimeSessions != nil {
		a.invoke = invoke.New(invoke.Options{Engine: eng, Sessions: opts.RuntimeSessions, Project: project,
			Logger: a.log, PollInterval: a.opts.PollInterval, MaxStreamDuration: a.opts.MaxStreamDuration})
	}
	a.routes()
	return a
}

func (a *api) routes() {
	m := a.agents
	a.route(m, "/v1/agents", methods{"GET": a.listAgents, "POST": a.createAgent})
	a.route(m, "/v1/agents/{agent_id}", methods{"GET": a.getAgent, "POST": a.updateAgent, "DELETE": a.deleteAgent})
	a.route(m, "/v1/agents/sessions", methods{"GET": a.listSessions, "POST": a.createSession})
	a.route(m, "/v1/agents/sessions/{session_id}", methods{"GET": a.getSession, "POST": a.updateSession, "DELETE": a.deleteSession})
	a.route(m, "/v1/agents/sessions/{session_id}/events", methods{"GET": a.streamEvents, "POST": a.postEvents, noHEAD: nil})
	a.route(m, "/v1/agents/sessions/{session_id}/turns", methods{"GET": a.listTurns})
	a.route(m, "/v1/agents/sessions/{session_id}/turns/{turn_id}", methods{"GET": a.getTurn})
	a.route(m, "/v1/agents/sessions/{session_id}/items", methods{"GET": a.listSessionItems})
	a.route(m, "/v1/agents/sessions/{session_id}/turns/{turn_id}/items", methods{"GET": a.listTurnItems})
	a.vaultRoutes()
	m.HandleFunc("/", a.unknownRoute)
	a.agentCoreRoutes()

	a.route(a.admin, "/admin/v1/projects/{project_id}/keys", methods{"POST": a.provisionKey})
	a.route(a.admin, "/admin/v1/projects/{project_id}/access_keys", methods{"POST": a.provisionAccessKey})
	a.route(a.admin, "/admin/v1/runtimes", methods{"GET": a.listRuntimes})
	a.admin.HandleFunc("/", a.unknownRoute)
	a.healthRoutes()
	a.consoleRoutes()
}

// methods maps an HTTP method to its handler on one path. GET also serves HEAD unless the noHEAD key is present.
type methods map[string]http.HandlerFunc

const noHEAD = "-HEAD"

// route registers a method-less pattern and dispatches on the method itself, so a wrong method gets the Agents API
// 405 body with `Allow` (ServeMux's own 405 is plain text).
func (a *api) route(mux *http.ServeMux, pattern string, ms methods) {
	var allow []string
	for _, m := range []string{"GET", "HEAD", "POST", "DELETE"} {
		if m == "HEAD" {
			if _, ok := ms["GET"]; !ok {
				continue
			}
			if _, ok := ms[noHEAD]; ok {
				continue
			}
		} else if _, ok := ms[m]; !ok {
			continue
		}
		allow = append(allow, m)
	}
	allowed := strings.Join(allow, ", ")
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if method == http.MethodHead {
			if _, ok := ms[noHEAD]; !ok {
				method = http.MethodGet
			}
		}
		h, ok := ms[method]
		if !ok || h == nil {
			w.Header().Set("Allow", allowed)
			a.writeAPIError(w, r, http.StatusMethodNotAllowed, codeUnsupportedOperation, "This API method is not supported.", "")
			return
		}
		h(w, r)
	})
}

func (a *api) unknownRoute(w http.ResponseWriter, r *http.Request) {
	a.writeAPIError(w, r, http.StatusNotFound, codeUnsupportedOperation, "This API route is not supported.", "")
}

// ServeHTTP applies the request gate and dispatches. AgentCore routes (/harnesses…, /identities…) carry
// `X-Amzn-RequestId` and go through the SigV4 gate; every other route carries the Agents API headers.
func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := &requestInfo{id: newRequestID(), start: time.Now(), clientID: clientRequestID(r)}
	rec := &accessRecorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), requestKey{}, info))
	// The muxes record the matched pattern and path values on r itself, so the log line can name the route.
	defer a.logAccess(rec, r, info)
	a.serve(rec, r)
}

// serve dispatches one request to its front door (ServeHTTP adds the access log around it).
func (a *api) serve(w http.ResponseWriter, r *http.Request) {
	if isAgentCorePath(r.URL.Path) {
		a.serveAgentCore(w, r)
		return
	}
	h := w.Header()
	h.Set("X-Request-Id", info(r).id)
	h.Set("OpenAI-Version", openAIVersion)
	h.Set("X-Content-Type-Options", "nosniff")

	path := r.URL.Path
	switch {
	case path == HealthzPath || path == ReadyzPath:
		a.health.ServeHTTP(w, r)
	case underPrefix(path, console.Path):
		a.console.ServeHTTP(w, r)
	case underPrefix(path, "/v1/agents") || underPrefix(path, "/v1/vaults"):
		if !a.checkBeta(w, r) {
			return
		}
		project, ok := a.authenticate(w, r)
		if !ok {
			return
		}
		info(r).project = project
		a.agents.ServeHTTP(w, r)
	case underPrefix(path, "/admin/v1"):
		if a.opts.AdminKey == "" {
			a.unknownRoute(w, r)
			return
		}
		if !a.checkAdmin(w, r) {
			return
		}
		a.admin.ServeHTTP(w, r)
	default:
		a.unknownRoute(w, r)
	}
}

func underPrefix(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// checkBeta requires exactly one `OpenAI-Beta: agents=v1` header (docs/agents-api.md §1.1).
func (a *api) checkBeta(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Values("OpenAI-Beta")
	if len(v) == 1 && strings.TrimSpace(v[0]) == "agents=v1" {
		return true
	}
	a.writeAPIError(w, r, http.StatusBadRequest, codeInvalidBeta, "To access the Agents API, set the 'OpenAI-Beta' header to 'agents=v1'.", "")
	return false
}

// authenticate resolves the bearer key to its project: 401 when missing or unknown, 503 authentication_unavailable
// when the key store cannot answer.
func (a *api) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	key, ok := bearer(r)
	if !ok {
		a.writeError(w, r, engine.ErrUnauthenticated)
		return "", false
	}
	project, err := a.eng.Authenticate(r.Context(), key)
	if err != nil {
		if !errors.Is(err, engine.ErrUnauthenticated) {
			a.logError(r, "authenticate", err)
			err = &engine.Error{Status: http.StatusServiceUnavailable, Code: codeAuthenticationUnavailable, Message: "Authentication is temporarily unavailable."}
		}
		a.writeError(w, r, err)
		return "", false
	}
	return project, true
}

// bearer returns the key of an `Authorization: Bearer <key>` header (scheme case-insensitive).
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// requestInfo is what the gate learns about a request: its id, when it started, the caller's own request id (for
// the access log only) and the authenticated project.
type requestInfo struct {
	id       string
	start    time.Time
	clientID string
	project  string
}

type requestKey struct{}

func info(r *http.Request) *requestInfo {
	if ri, ok := r.Context().Value(requestKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{start: time.Now()}
}

func project(r *http.Request) string { return info(r).project }

// newRequestID returns "req_" + 32 lowercase hex digits; never a caller-supplied value.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}
