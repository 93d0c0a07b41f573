package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/baton-run/baton/shared/jsonwire"
	"log/slog"
	"time"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/statemachine"
)

// NewSession is a Session creation request after protocol validation (docs/agents-api.md §W3.4).
// Inline holds the members of an inline `agent` object; each one replaces the saved Agent's member whole
// (`tools: null` clears). Input holds the initial user messages (none = an idle Session, docs/decisions.md §3).
// IdempotencyKey "" means none; RequestHash identifies the request for idempotent replays.
type NewSession struct {
	AgentID        string
	Inline         RawObject
	Environment    json.RawMessage
	Input          [][]session.ContentPart
	Metadata       map[string]string
	VaultIDs       []string
	IdempotencyKey string
	RequestHash    string
}

// MaxSnapshotBytes bounds a Session's frozen configuration, encoded. Every session event carries the Session
// with its configuration, and each event is one DynamoDB item of at most 400 KB, so the snapshot must leave room
// for required actions (docs/decisions.md "Payload limits are design inputs"). A documented deviation from the hosted
// service, which allows 3 MiB of tools.
const MaxSnapshotBytes = 128 * 1024

// maxCommitAttempts bounds optimistic-concurrency retries of one operation.
const maxCommitAttempts = 50

// ResolveConfig returns the effective configuration of a new Session: the saved Agent's configuration (if
// AgentID is set) with the inline members replacing it whole. It returns ErrNotFound for a missing or foreign
// Agent and a 400 *Error when the result has no model.
func (e *Engine) ResolveConfig(ctx context.Context, projectID string, req NewSession) (agent.Snapshot, error) {
	base := RawObject{}
	snap := agent.Snapshot{}
	if req.AgentID != "" {
		a, err := e.GetAgent(ctx, projectID, req.AgentID)
		if err != nil {
			return agent.Snapshot{}, err
		}
		snap.AgentID = a.ID
		b, err := json.Marshal(a.Config)
		if err != nil {
			return agent.Snapshot{}, fmt.Errorf("encode saved agent %s: %w", a.ID, err)
		}
		if err := json.Unmarshal(b, &base); err != nil {
			return agent.Snapshot{}, fmt.Errorf("decode saved agent %s: %w", a.ID, err)
		}
	}
	for k, v := range req.Inline {
		base[k] = v
	}
	b, err := json.Marshal(base)
	if err != nil {
		return agent.Snapshot{}, fmt.Errorf("encode effective agent: %w", err)
	}
	if err := json.Unmarshal(b, &snap.Config); err != nil {
		return agent.Snapshot{}, invalid("agent", "Invalid agent configuration.")
	}
	if snap.Config.Model == "" {
		return agent.Snapshot{}, invalid("agent.model", "Missing required parameter: 'agent.model'.")
	}
	if b, err := jsonwire.Marshal(snap); err == nil && len(b) > MaxSnapshotBytes {
		return agent.Snapshot{}, &Error{Status: 400, Code: CodeInvalidRequest, Param: "agent",
			Message: fmt.Sprintf("The Session's agent configuration is too large: at most %d bytes when encoded (got %d).", MaxSnapshotBytes, len(b))}
	}
	if snap.AgentID == "" {
		// An inline agent has no saved Agent, but the Session's agent and its Turns carry an agent id (required
		// by the SDK's AgentSessionAgent.id and Turn.agent_id): the snapshot gets its own, stable for the Session.
		snap.AgentID = e.newID("agent")
	}
	// A Session's snapshot never carries saved-Agent metadata (docs/agents-api.md §2.2).
	snap.Config.Metadata = nil
	snap.Config = e.withDefaultProvider(snap.Config)
	return snap, nil
}

// CreateSession resolves the configuration, admits it for execution, and writes the Session — with its first
// Turn when Input is set — in one transaction, then starts the Turn's execution. Nothing is written when
// admission rejects. With an IdempotencyKey, a repeat of the same request returns the original Session
// (replayed = true) and starts nothing; the same key with a different request is 409 idempotency_conflict.
func (e *Engine) CreateSession(ctx context.Context, projectID string, req NewSession) (s session.Session, replayed bool, err error) {
	idemKey := ""
	if req.IdempotencyKey != "" {
		idemKey = fmt.Sprintf("%s#session_create#%s", projectID, req.IdempotencyKey)
		if s, ok, err := e.replaySessionCreate(ctx, projectID, idemKey, req.RequestHash); ok || err != nil {
			return s, ok, err
		}
	}
	snap, err := e.ResolveConfig(ctx, projectID, req)
	if err != nil {
		return session.Session{}, false, err
	}
	if err := e.ResolveMCPCredentials(ctx, projectID, req.VaultIDs, &snap); err != nil {
		return session.Session{}, false, err
	}
	if e.admission != nil {
		if err := e.admission.AdmitSession(snap.Config); err != nil {
			return session.Session{}, false, err
		}
	}
	now := e.now()
	s = session.Session{
		ID:           e.newID("sess"),
		ProjectID:    projectID,
		CreatedAt:    now,
		LastActiveAt: now,
		Status:       session.StatusIdle,
		Snapshot:     snap,
		Environment:  req.Environment,
		Metadata:     req.Metadata,
		VaultIDs:     req.VaultIDs,
	}
	c := Commit{Session: &s}
	w := newWriter(&s)
	w.event(session.EventSessionCreated, "", func(m map[string]any) { m["session"] = s })
	var turn *session.Turn
	if len(req.Input) > 0 {
		turn = e.openTurn(&s, w, req.Input, nil)
		if err := e.checkDispatch(ctx, *turn); err != nil {
			return session.Session{}, false, err
		}
		c.Turns = []TurnWrite{{Turn: *turn}}
		// session.created carries the committed Session, which already reads in_progress.
		w.events[0] = w.renderEvent(w.events[0].Seq, w.events[0].ID, session.EventSessionCreated, "", func(m map[string]any) { m["session"] = s })
	}
	c.Items, c.Events = w.items, w.events
	if idemKey != "" {
		c.Idempotency = &Idempotency{Key: idemKey, RequestHash: req.RequestHash, Response: s.ID, CreatedAt: now}
	}
	if err := e.commit(ctx, c); err != nil {
		if isConflict(err) && idemKey != "" {
			// A concurrent request with the same key won; answer as its replay.
			if s, ok, err := e.replaySessionCreate(ctx, projectID, idemKey, req.RequestHash); ok || err != nil {
				return s, ok, err
			}
		}
		return session.Session{}, false, err
	}
	s.Version = 1
	if turn != nil {
		e.startTurn(ctx, *turn)
	}
	return s, false, nil
}

func (e *Engine) replaySessionCreate(ctx context.Context, projectID, key, hash string) (session.Session, bool, error) {
	rec, err := e.store.GetIdempotency(ctx, key)
	if isNotFound(err) {
		return session.Session{}, false, nil
	}
	if err != nil {
		return session.Session{}, false, err
	}
	if rec.RequestHash != hash {
		return session.Session{}, false, conflict(CodeIdempotencyConflict, MessageIdempotencyReused)
	}
	s, err := e.GetSession(ctx, projectID, rec.Response)
	if err != nil {
		if isNotFound(err) {
			// The session was deleted since: the key cannot be reused (docs/agents-api.md §1.3).
			return session.Session{}, false, conflict(CodeIdempotencyConflict, MessageIdempotencyReused)
		}
		return session.Session{}, false, err
	}
	return s, true, nil
}

// openTurn adds a new queued root Turn with the given user messages to s: the turn.created, user item.added and
// session.in_progress events, in the order of docs/agents-api.md §2.6. It returns the new Turn.
// cfg, when set, is the Turn's own configuration (Turn.Config); nil = the Session's snapshot.
func (e *Engine) openTurn(s *session.Session, w *writer, input [][]session.ContentPart, cfg *agent.Config) *session.Turn {
	now := e.now()
	eff := s.Snapshot.Config
	if cfg != nil {
		eff = *cfg
	}
	t := &session.Turn{
		ID:        e.newID("turn"),
		SessionID: s.ID,
		AgentID:   s.Snapshot.AgentID,
		Status:    session.TurnQueued,
		CreatedAt: now,
		Harness:   eff.HarnessKind(),
		Requires:  profile.Requires(eff),
		Config:    cfg,
	}
	w.event(session.EventTurnCreated, t.ID, func(m map[string]any) { m["turn"] = *t })
	for _, parts := range input {
		it := session.Item{Type: session.ItemMessage, TurnID: t.ID, Role: "user", Status: session.ItemCompleted, Content: parts}
		it = w.item("msg", it)
		w.event(session.EventItemAdded, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = nil })
	}
	s.Status = session.StatusInProgress
	s.ActiveTurnID = t.ID
	s.RequiredActions = nil
	s.Error = nil
	s.LastActiveAt = now
	w.event(session.EventSessionInProgress, "", func(m map[string]any) { m["session"] = *s })
	return t
}

// startTurn starts a committed Turn's execution and writes nothing: the execution's name is the turn id, so
// nothing needs recording, and the Turn keeps its UNSTARTED mark until the runtime's start commit moves it to
// in_progress. A failure is logged and left to the reconciler, which finds the Turn by that mark
// (docs/decisions.md "Execution names are turn ids").
func (e *Engine) startTurn(ctx context.Context, t session.Turn) {
	if e.orch == nil {
		return
	}
	if _, err := e.orch.StartTurn(ctx, e.turnExecution(t)); err != nil {
		slog.ErrorContext(ctx, "start turn execution", "session_id", t.SessionID, "turn_id", t.ID, "err", err)
		return
	}
	e.record(ctx, MetricTurnsStarted, 1, t.Harness, t.SessionID, t.ID)
}

// turnExecution is the execution input of a Turn; the same for every start of it, so a repeated start is
// idempotent.
func (e *Engine) turnExecution(t session.Turn) TurnExecution {
	return TurnExecution{SessionID: t.SessionID, TurnID: t.ID, Harness: t.Harness, Timeouts: e.timeouts}
}

// Reconcile repairs what a crash between two steps, a failed send or an execution ended behind Baton's back can
// leave behind (docs/internals.md "The reconciler"), for every marked turn at least minAge old, however many there
// are (the index is read page by page; ctx bounds the pass):
//   - UNSTARTED (queued, no runtime began it): nothing while its execution runs (it waits for a runtime); an
//     execution that does not exist (its StartExecution failed) is started (idempotent: the execution name is the
//     turn id); a turn whose execution ended (timed out or stopped before a runtime took it) is settled as failed;
//   - ACTIVE and RESUMING: a turn whose execution ended without settling it is settled as failed (or as cancelled
//     when a cancel fenced it off), so its Session is usable again;
//   - RESUMING: a resume that is due and whose claim is stale (or bound to a replaced token) is claimed and sent.
//
// A pass reads the index and each marked turn, and asks Step Functions once per turn whether its execution still
// runs; it writes only to repair. Step Functions refuses a second success for a closed task, and Settle keeps a
// turn that is already terminal, so nothing runs or settles twice. Returns how many turns it acted on.
func (e *Engine) Reconcile(ctx context.Context, minAge time.Duration) (int, error) {
	n := 0
	cutoff := e.clock().Add(-minAge)
	for _, mark := range []session.Mark{session.MarkUnstarted, session.MarkResuming, session.MarkActive} {
		err := e.store.MarkedTurns(ctx, mark, func(marked session.Turn) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The index is eventually consistent: act on a consistent read of the turn.
			t, err := e.store.GetTurn(ctx, marked.SessionID, marked.ID)
			if err != nil || t.Status.Terminal() || t.CreatedAt > cutoff.Unix() {
				return nil
			}
			var acted bool
			if t.Status == session.TurnQueued {
				acted, err = e.reconcileQueued(ctx, t)
			} else {
				acted, err = e.reconcileTurn(ctx, t, cutoff)
			}
			if err != nil {
				slog.ErrorContext(ctx, "reconcile turn", "session_id", t.SessionID, "turn_id", t.ID, "err", err)
			}
			if acted {
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// reconcileQueued looks after a turn no runtime has begun, with one request to Step Functions in the usual case.
// Its execution normally runs, waiting for a runtime to take the task: nothing to do. An execution that does not
// exist (the StartExecution after the turn's commit failed, or its process died first) is started. An execution
// that ended (it timed out, or was stopped, before a runtime took the task) never will run the turn: the turn is
// settled as failed (Settle: cancelled when a cancel fenced it off), so its Session takes new input. It reports
// whether it acted.
func (e *Engine) reconcileQueued(ctx context.Context, t session.Turn) (bool, error) {
	state, err := e.orch.ExecutionState(ctx, t.Harness, t.ID)
	if err != nil {
		return false, err
	}
	switch {
	case state == ExecutionRunning:
		return false, nil
	case state == ExecutionMissing && t.Runnable():
		// The turn is at least minAge old, so its execution, had it started, would be visible by now.
		if _, err := e.orch.StartTurn(ctx, e.turnExecution(t)); err != nil {
			return false, err
		}
		e.record(ctx, MetricTurnsStarted, 1, t.Harness, t.SessionID, t.ID)
		return true, nil
	}
	if _, err := e.Settle(ctx, t.SessionID, t.ID, statemachine.RunOutcome{Error: statemachine.ErrorExecutionEnded, Cause: "the turn's execution ended before a runtime began it"}); err != nil {
		return false, err
	}
	return true, nil
}

// reconcileTurn settles a started turn whose execution ended without settling it, or drives a resume that is due
// and whose claim is older than cutoff. It reports whether it acted.
func (e *Engine) reconcileTurn(ctx context.Context, t session.Turn, cutoff time.Time) (bool, error) {
	state, err := e.orch.ExecutionState(ctx, t.Harness, t.ID)
	if err != nil {
		return false, err
	}
	if state != ExecutionRunning {
		if _, err := e.Settle(ctx, t.SessionID, t.ID, statemachine.RunOutcome{Error: statemachine.ErrorExecutionEnded, Cause: "the turn's execution ended without settling it"}); err != nil {
			return false, err
		}
		return true, nil
	}
	if !t.ResumeDue() || (t.ClaimedToken == t.TaskToken && t.ResumeClaimedAt > cutoff.UnixMilli()) {
		return false, nil
	}
	return true, e.tryResume(ctx, t.SessionID, t.ID)
}

// Peek is what PeekTurn read: a Session and one of its turns, as they were moments ago.
type Peek struct {
	Session session.Session
	Turn    session.Turn
	// results are the stored results of the calls a run of this process parked the turn on (the history cache
	// knows them), read in the same request; nil when there is no such run. BeginRunFrom uses them when they
	// answer every call the turn waits for: a stored result never changes.
	results map[string]session.ToolResult
}

// PeekTurn reads a turn and its session without any check or write, for a runtime deciding whether it can serve an
// activity task before BeginRunFrom writes anything. When a run of this process parked the turn, the results of
// its calls are read in the same request, for the resume. ErrNotFound when either is missing.
func (e *Engine) PeekTurn(ctx context.Context, sessionID, turnID string) (Peek, error) {
	// Whoever acts on a peek either commits on condition of both versions (BeginRunFrom) or only declines a task.
	calls := e.history.calls(sessionID, turnID)
	if st, ok := e.store.(sessionTurnReader); ok {
		s, t, results, err := st.GetSessionTurnResults(ctx, sessionID, turnID, calls)
		if len(calls) == 0 {
			results = nil
		}
		return Peek{Session: s, Turn: t, results: results}, err
	}
	s, t, err := e.readSessionTurn(ctx, sessionID, turnID)
	return Peek{Session: s, Turn: t}, err
}

// readSessionTurn reads a Session and one of its turns, in one request when the Store can (sessionTurnReader).
// They are not read as of one moment: a caller that writes commits on condition of both versions.
func (e *Engine) readSessionTurn(ctx context.Context, sessionID, turnID string) (session.Session, session.Turn, error) {
	if st, ok := e.store.(sessionTurnReader); ok {
		s, t, _, err := st.GetSessionTurnResults(ctx, sessionID, turnID, nil)
		return s, t, err
	}
	s, err := e.store.GetSession(ctx, sessionID)
	if err != nil {
		return session.Session{}, session.Turn{}, err
	}
	t, err := e.store.GetTurn(ctx, sessionID, turnID)
	if err != nil {
		return session.Session{}, session.Turn{}, err
	}
	return s, t, nil
}

// sessionTurnReader is a Store that reads a Session and one of its turns in one request (store/dynamo); a Store
// without it is read with GetSession and GetTurn.
type sessionTurnReader interface {
	// GetSessionTurnResults also reads the stored results of callIDs (absent when not stored).
	GetSessionTurnResults(ctx context.Context, sessionID, turnID string, callIDs []string) (session.Session, session.Turn, map[string]session.ToolResult, error)
}

// GetSession returns a Session of projectID, or ErrNotFound for a missing, deleted or foreign one.
func (e *Engine) GetSession(ctx context.Context, projectID, sessionID string) (session.Session, error) {
	s, err := e.store.GetSession(ctx, sessionID)
	if err != nil {
		return session.Session{}, err
	}
	if s.ProjectID != projectID || s.Deleted {
		return session.Session{}, ErrNotFound
	}
	return s, nil
}

// ListSessions returns one page of projectID's Sessions, optionally only those created from agentID.
func (e *Engine) ListSessions(ctx context.Context, projectID, agentID string, p Page) ([]session.Session, bool, error) {
	if p.After != "" {
		if _, err := e.GetSession(ctx, projectID, p.After); err != nil {
			return nil, false, err
		}
	}
	return e.store.ListSessions(ctx, projectID, agentID, p)
}

// UpdateSessionMetadata replaces a Session's metadata (nil or empty clears it).
func (e *Engine) UpdateSessionMetadata(ctx context.Context, projectID, sessionID string, metadata map[string]string) (session.Session, error) {
	for attempt := 0; ; attempt++ {
		s, err := e.GetSession(ctx, projectID, sessionID)
		if err != nil {
			return session.Session{}, err
		}
		s.Metadata = metadata
		if err := e.commit(ctx, Commit{Session: &s, SessionVersion: s.Version}); err != nil {
			if isConflict(err) && attempt < maxCommitAttempts {
				continue
			}
			return session.Session{}, err
		}
		s.Version++
		return s, nil
	}
}

// DeleteSession deletes an idle or failed Session (no active Turn, no required actions); otherwise 409
// conflict_error. Deleting an already deleted Session of the project succeeds again.
func (e *Engine) DeleteSession(ctx context.Context, projectID, sessionID string) error {
	for attempt := 0; ; attempt++ {
		s, err := e.store.GetSession(ctx, sessionID)
		if err != nil {
			return err
		}
		if s.ProjectID != projectID {
			return ErrNotFound
		}
		if s.Deleted {
			return nil
		}
		if s.ActiveTurnID != "" || len(s.RequiredActions) > 0 {
			return conflict(CodeConflictError, MessageSessionNotDeletable)
		}
		s.Deleted = true
		if err := e.commit(ctx, Commit{Session: &s, SessionVersion: s.Version}); err != nil {
			if isConflict(err) && attempt < maxCommitAttempts {
				continue
			}
			return err
		}
		return nil
	}
}

// GetTurn returns a Turn of a Session of projectID, or ErrNotFound.
func (e *Engine) GetTurn(ctx context.Context, projectID, sessionID, turnID string) (session.Turn, error) {
	if _, err := e.GetSession(ctx, projectID, sessionID); err != nil {
		return session.Turn{}, err
	}
	return e.store.GetTurn(ctx, sessionID, turnID)
}

// ListTurns returns one page of a Session's root Turns in creation order.
func (e *Engine) ListTurns(ctx context.Context, projectID, sessionID string, p Page) ([]session.Turn, bool, error) {
	if _, err := e.GetSession(ctx, projectID, sessionID); err != nil {
		return nil, false, err
	}
	if p.After != "" {
		if _, err := e.store.GetTurn(ctx, sessionID, p.After); err != nil {
			return nil, false, err
		}
	}
	return e.store.ListTurns(ctx, sessionID, p)
}

// ListItems returns one page of a Session's items (of one Turn when turnID is set) in history order. An `after`
// that is not an item id of this listing is a 400 invalid_request_error.
func (e *Engine) ListItems(ctx context.Context, projectID, sessionID, turnID string, p Page) ([]session.Item, bool, error) {
	if _, err := e.GetSession(ctx, projectID, sessionID); err != nil {
		return nil, false, err
	}
	if turnID != "" {
		if _, err := e.store.GetTurn(ctx, sessionID, turnID); err != nil {
			return nil, false, err
		}
	}
	if p.After != "" {
		if _, ok := SeqOfID(p.After); !ok {
			return nil, false, invalid("after", "Invalid session item ID in `after`.")
		}
	}
	return e.store.ListItems(ctx, sessionID, turnID, p)
}

// EventsAfter returns up to limit committed events of a Session with sequence > after, in order. The stream
// starts from the Session's current EventSeq (live only) or, as an extension, from a Last-Event-ID.
func (e *Engine) EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]session.Event, error) {
	return e.store.EventsAfter(ctx, sessionID, after, limit)
}

// withDefaultProvider fills in the deployment's default model provider when cfg selects none (Options
// .DefaultModelProvider); the snapshot then names the provider its turns use.
func (e *Engine) withDefaultProvider(cfg agent.Config) agent.Config {
	if e.defaultProvider == "" || cfg.ModelProtocol() != "" {
		return cfg
	}
	x := agent.Extension{}
	if cfg.XBaton != nil {
		x = *cfg.XBaton
	}
	mp := agent.ModelProvider{}
	if x.ModelProvider != nil {
		mp = *x.ModelProvider
	}
	mp.Protocol = e.defaultProvider
	x.ModelProvider = &mp
	cfg.XBaton = &x
	return cfg
}
