package invoke

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/apierror"
	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/jsonwire"
	"github.com/baton-run/baton/shared/session"
)

// Engine is what InvokeHarness needs from the use-case layer; *engine.Engine implements it.
type Engine interface {
	CreateSession(ctx context.Context, projectID string, req engine.NewSession) (session.Session, bool, error)
	GetSession(ctx context.Context, projectID, sessionID string) (session.Session, error)
	GetTurn(ctx context.Context, projectID, sessionID, turnID string) (session.Turn, error)
	PostEvents(ctx context.Context, projectID, sessionID string, inputs []session.Input, idemKey, requestHash string) error
	EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]session.Event, error)
	// HarnessForInvoke returns the harness version an invoke runs: by ARN in the project, at the version the
	// endpoint qualifier targets (DEFAULT = the latest); engine.ErrNotFound for a missing or foreign one.
	HarnessForInvoke(ctx context.Context, projectID, harnessARN, qualifier string) (engine.Harness, error)
}

// RuntimeSessions stores the runtimeSessionId → Session mapping; *dynamo.Store implements it. Create fails with
// engine.ErrConflict when the key exists; ClaimPause fails with engine.ErrConflict when the pause is claimed.
type RuntimeSessions interface {
	GetRuntimeSession(ctx context.Context, key string) (handoff.RuntimeSession, error)
	CreateRuntimeSession(ctx context.Context, rs handoff.RuntimeSession) error
	ClaimPause(ctx context.Context, key, claim string) error
	ReleasePause(ctx context.Context, key, claim string) error
}

// Options configures the handler. Engine, Sessions and Project are required.
type Options struct {
	Engine   Engine
	Sessions RuntimeSessions
	// Project returns the authenticated project of a request (set by the AgentCore gate); "" answers
	// AccessDeniedException.
	Project func(*http.Request) string
	Logger  *slog.Logger
	// PollInterval is how often the stream reads new events while they flow (0 = 100 ms).
	PollInterval time.Duration
	// MaxPollInterval bounds the back-off of a stream whose turn writes nothing new: the interval doubles from
	// PollInterval after each empty read and any event resets it (0 = 4 × PollInterval).
	MaxPollInterval time.Duration
	// MaxStreamDuration ends a stream whose turn still runs with messageStop `partial_turn` (0 = 14 minutes,
	// under the platform's 15-minute streaming limit).
	MaxStreamDuration time.Duration
	// Clock is the time source for latency and session timestamps (nil = time.Now).
	Clock func() time.Time
}

// Handler serves POST /harnesses/invoke.
type Handler struct {
	o Options
}

// New returns the InvokeHarness handler.
func New(o Options) *Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.MaxPollInterval < o.PollInterval {
		o.MaxPollInterval = 4 * o.PollInterval
	}
	if o.MaxStreamDuration <= 0 {
		o.MaxStreamDuration = 14 * time.Minute
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Handler{o: o}
}

// commitTimeout bounds the state change of an invocation, which runs detached from the client's connection.
const commitTimeout = 60 * time.Second

// invocation is one admitted InvokeHarness call, ready to change state.
type invocation struct {
	project   string
	key       string
	sessionID string
	cfg       agent.Config
	decision  handoff.Decision
	turn      *session.Turn // the paused turn a follow-up answers
	after     int64         // the Session's last event before the change
}

// ServeHTTP implements InvokeHarness: POST /harnesses/invoke?harnessArn=…[&qualifier=…], header
// X-Amzn-Bedrock-AgentCore-Runtime-Session-Id, body {messages, model?, systemPrompt?, tools?, allowedTools?,
// maxIterations?, maxTokens?, timeoutSeconds?}. Errors are written before anything changes; success is 200 with
// the event stream (docs/agentcore.md §3).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.o.Clock()
	if r.Method != http.MethodPost {
		(&apierror.Error{Type: apierror.Validation, Message: "InvokeHarness is POST /harnesses/invoke.", HTTPStatus: http.StatusMethodNotAllowed}).Write(w)
		return
	}
	inv, err := h.admit(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// An invocation that arrived whole is carried out whole: a client that disconnects right after sending (a
	// follow-up with its results) does not cut the commit or the resume that follows it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), commitTimeout)
	turnID, err := h.commit(ctx, inv)
	cancel()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.stream(w, r, inv, turnID, start)
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err)
	if ae.Status() >= 500 {
		h.o.Logger.ErrorContext(r.Context(), "invoke harness", "err", err)
	}
	ae.Write(w)
}

// admit decides the whole request without changing anything except, on the first use of a runtimeSessionId, the
// creation of its idle Session and mapping (both idempotent: a retry finds them).
func (h *Handler) admit(r *http.Request) (*invocation, error) {
	ctx := r.Context()
	project := h.o.Project(r)
	if project == "" {
		return nil, apierror.New(apierror.AccessDenied, "The request is not authenticated.")
	}
	q := r.URL.Query()
	harnessARN, qualifier := q.Get("harnessArn"), q.Get("qualifier")
	if !agentcore.HarnessARNPattern.MatchString(harnessARN) {
		return nil, validation(&fieldError{Name: "harnessArn", Message: "required; must be a harness ARN"})
	}
	if _, set := q["qualifier"]; set && !agentcore.EndpointNamePattern.MatchString(qualifier) {
		return nil, validation(&fieldError{Name: "qualifier", Message: "must match [a-zA-Z][a-zA-Z0-9_]{0,47}"})
	}
	if qualifier == "" {
		qualifier = DefaultQualifier
	}
	rsid := headerFold(r.Header, RuntimeSessionIDHeader)
	if n := len(rsid); n < MinRuntimeSessionID || n > MaxRuntimeSessionID {
		return nil, validation(&fieldError{Name: fieldRuntimeSessionID, Message: fmt.Sprintf("the %s header is required, %d-%d characters", RuntimeSessionIDHeader, MinRuntimeSessionID, MaxRuntimeSessionID)})
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, validation(&fieldError{Name: "body", Message: "the request body could not be read"})
	}
	if len(body) > MaxBodyBytes {
		return nil, validation(&fieldError{Name: "body", Message: fmt.Sprintf("at most %d bytes", MaxBodyBytes)})
	}
	p, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	harness, err := h.o.Engine.HarnessForInvoke(ctx, project, harnessARN, qualifier)
	if err != nil {
		return nil, err
	}
	saved, err := agentcore.DecodeConfig(harness.Config)
	if err != nil {
		return nil, fmt.Errorf("harness %s version %d: %w", harnessARN, harness.Version, err)
	}
	eff := p.overrides.Apply(saved)
	cfg, err := translate.ToAgent(eff)
	if err != nil {
		return nil, err
	}
	if b, err := jsonwire.Marshal(cfg); err != nil || len(b) > engine.MaxSnapshotBytes {
		return nil, validation(&fieldError{Name: "tools", Message: fmt.Sprintf("the effective configuration is too large: at most %d bytes encoded", engine.MaxSnapshotBytes)})
	}
	inv := &invocation{project: project, key: handoff.Key(project, harnessARN, qualifier, rsid), cfg: cfg}

	rs, err := h.o.Sessions.GetRuntimeSession(ctx, inv.key)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		// A new runtimeSessionId: only a user text can start it.
		if inv.decision, err = handoff.Decide(nil, nil, p.messages, nil); err != nil {
			return nil, err
		}
		if rs, err = h.createSession(ctx, inv, harnessARN, qualifier, rsid); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	inv.sessionID = rs.SessionID
	s, err := h.o.Engine.GetSession(ctx, project, rs.SessionID)
	if err != nil {
		return nil, err
	}
	inv.after = s.EventSeq
	var active *session.Turn
	var pending *handoff.Pending
	if s.ActiveTurnID != "" {
		t, err := h.o.Engine.GetTurn(ctx, project, s.ID, s.ActiveTurnID)
		if err != nil {
			return nil, err
		}
		active = &t
		if t.Status == session.TurnWaiting {
			pending = &handoff.Pending{Turn: t, Names: map[string]string{}, Answered: t.Answered}
			for _, ra := range s.RequiredActions {
				if ra.TurnID == t.ID {
					pending.Names[ra.CallID] = ra.Name
				}
			}
		}
	}
	if inv.decision, err = handoff.Decide(active, pending, p.messages, translate.InlineFunctionNames(eff)); err != nil {
		return nil, err
	}
	if len(inv.decision.Results) > 0 {
		inv.turn = active
	}
	return inv, nil
}

// createSession creates the idle Session of a new runtimeSessionId and its mapping. The Session create is
// idempotent on the mapping key, and the mapping is a conditional write, so concurrent first invokes share one.
func (h *Handler) createSession(ctx context.Context, inv *invocation, harnessARN, qualifier, rsid string) (handoff.RuntimeSession, error) {
	inline, err := rawObject(inv.cfg)
	if err != nil {
		return handoff.RuntimeSession{}, err
	}
	sum := sha256.Sum256([]byte(inv.key))
	s, _, err := h.o.Engine.CreateSession(ctx, inv.project, engine.NewSession{Inline: inline,
		IdempotencyKey: "agentcore-runtime-session-" + hex.EncodeToString(sum[:]), RequestHash: "agentcore-runtime-session"})
	if err != nil {
		return handoff.RuntimeSession{}, err
	}
	rs := handoff.RuntimeSession{Key: inv.key, ProjectID: inv.project, HarnessARN: harnessARN, Qualifier: qualifier,
		RuntimeSessionID: rsid, SessionID: s.ID, CreatedAt: h.o.Clock().Unix()}
	if err := h.o.Sessions.CreateRuntimeSession(ctx, rs); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return h.o.Sessions.GetRuntimeSession(ctx, inv.key)
		}
		return handoff.RuntimeSession{}, err
	}
	return rs, nil
}

// commit makes the one state change of the invocation: a new Turn with the user text and the invocation's own
// configuration, or the results of the pause (after claiming it, so one of several identical follow-ups wins).
// It returns the Turn's id ("" for a new Turn: the stream learns it from turn.created).
func (h *Handler) commit(ctx context.Context, inv *invocation) (string, error) {
	if inv.turn == nil {
		cfg := inv.cfg
		in := session.Input{Type: session.InputMessage, Message: []session.ContentPart{{Type: "input_text", Text: inv.decision.Text}}, TurnConfig: &cfg}
		return "", h.o.Engine.PostEvents(ctx, inv.project, inv.sessionID, []session.Input{in}, "", "")
	}
	claim := handoff.ClaimOf(*inv.turn)
	if err := h.o.Sessions.ClaimPause(ctx, inv.key, claim); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return "", errReplayed
		}
		return "", err
	}
	var inputs []session.Input
	for i := range inv.decision.Results {
		inputs = append(inputs, session.Input{Type: session.InputToolResult, ToolResult: &inv.decision.Results[i]})
	}
	if err := h.o.Engine.PostEvents(ctx, inv.project, inv.sessionID, inputs, "", ""); err != nil {
		if rerr := h.o.Sessions.ReleasePause(context.WithoutCancel(ctx), inv.key, claim); rerr != nil {
			h.o.Logger.ErrorContext(ctx, "release pause claim", "session_id", inv.sessionID, "err", rerr)
		}
		var ee *engine.Error
		if errors.As(err, &ee) && ee.Code != engine.CodeExecutionUnavailable {
			return "", errReplayed
		}
		return "", err
	}
	return inv.turn.ID, nil
}

// rawObject encodes a configuration as the inline agent members of a Session create.
func rawObject(cfg agent.Config) (engine.RawObject, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode configuration: %w", err)
	}
	var o engine.RawObject
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("decode configuration: %w", err)
	}
	return o, nil
}

// headerFold returns the first value of the header named name, compared case-insensitively (proxies and the Lambda
// adapter may pass header names in any case).
func headerFold(h http.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}
