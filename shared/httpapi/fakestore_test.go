package httpapi

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// fakeStore is an in-memory engine.Store for handler tests: enough of the conditional-write semantics (versions,
// create-only records) for the engine's use cases. Pages ignore order and cursors beyond a simple slice.
type fakeStore struct {
	mu       sync.Mutex
	keys     map[string]string
	agents   map[string]agent.Agent
	sessions map[string]session.Session
	turns    map[string]session.Turn // session/turn
	items    map[string][]session.Item
	events   map[string][]session.Event
	calls    map[string]session.Call // session/call
	results  map[string]session.ToolResult
	idem     map[string]engine.Idempotency
	runtimes []engine.RuntimeInfo
	failAuth error
	// eventReads counts EventsAfter calls.
	eventReads int
}

var _ engine.Store = (*fakeStore)(nil)

func newFakeStore() *fakeStore {
	return &fakeStore{
		keys: map[string]string{}, agents: map[string]agent.Agent{}, sessions: map[string]session.Session{},
		turns: map[string]session.Turn{}, items: map[string][]session.Item{}, events: map[string][]session.Event{},
		calls: map[string]session.Call{}, results: map[string]session.ToolResult{}, idem: map[string]engine.Idempotency{},
	}
}

func notFound(what string) error { return fmt.Errorf("%s: %w", what, engine.ErrNotFound) }

func (f *fakeStore) ProjectForKey(_ context.Context, h string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAuth != nil {
		return "", f.failAuth
	}
	p, ok := f.keys[h]
	if !ok {
		return "", notFound("key")
	}
	return p, nil
}

func (f *fakeStore) PutProjectKey(_ context.Context, p, h string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[h] = p
	return nil
}

func (f *fakeStore) CreateAgent(_ context.Context, a agent.Agent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.agents[a.ID] = a
	return nil
}

func (f *fakeStore) GetAgent(_ context.Context, id string) (agent.Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.agents[id]
	if !ok {
		return agent.Agent{}, notFound("agent")
	}
	return a, nil
}

func (f *fakeStore) ReplaceAgent(ctx context.Context, a agent.Agent) error {
	return f.CreateAgent(ctx, a)
}

func (f *fakeStore) DeleteAgent(_ context.Context, _, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.agents, id)
	return nil
}

func page[T any](all []T, id func(T) string, p engine.Page) ([]T, bool) {
	if p.Order == "desc" {
		slices.Reverse(all)
	}
	if p.After != "" {
		for i, x := range all {
			if id(x) == p.After {
				all = all[i+1:]
				break
			}
		}
	}
	if len(all) > p.Limit {
		return all[:p.Limit], true
	}
	return all, false
}

func (f *fakeStore) ListAgents(_ context.Context, project string, p engine.Page) ([]agent.Agent, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []agent.Agent
	for _, a := range f.agents {
		if a.ProjectID == project {
			all = append(all, a)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	out, more := page(all, func(a agent.Agent) string { return a.ID }, p)
	return out, more, nil
}

func (f *fakeStore) GetSession(_ context.Context, id string) (session.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[id]
	if !ok {
		return session.Session{}, notFound("session")
	}
	return s, nil
}

func (f *fakeStore) ListSessions(_ context.Context, project, agentID string, p engine.Page) ([]session.Session, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []session.Session
	for _, s := range f.sessions {
		if s.ProjectID == project && !s.Deleted && (agentID == "" || s.Snapshot.AgentID == agentID) {
			all = append(all, s)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	out, more := page(all, func(s session.Session) string { return s.ID }, p)
	return out, more, nil
}

func (f *fakeStore) GetTurn(_ context.Context, sid, tid string) (session.Turn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.turns[sid+"/"+tid]
	if !ok {
		return session.Turn{}, notFound("turn")
	}
	return t, nil
}

func (f *fakeStore) ListTurns(_ context.Context, sid string, p engine.Page) ([]session.Turn, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []session.Turn
	for _, t := range f.turns {
		if t.SessionID == sid {
			all = append(all, t)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	out, more := page(all, func(t session.Turn) string { return t.ID }, p)
	return out, more, nil
}

func (f *fakeStore) ListItems(_ context.Context, sid, tid string, p engine.Page) ([]session.Item, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []session.Item
	for _, it := range f.items[sid] {
		if tid == "" || it.TurnID == tid {
			all = append(all, it)
		}
	}
	out, more := page(all, func(it session.Item) string { return it.ID }, p)
	return out, more, nil
}

func (f *fakeStore) ItemsOfSession(_ context.Context, sid string) ([]session.Item, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.items[sid]), nil
}

func (f *fakeStore) EventsAfter(_ context.Context, sid string, after int64, limit int) ([]session.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.eventReads++
	var out []session.Event
	for _, e := range f.events[sid] {
		if e.Seq > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeStore) GetCalls(_ context.Context, sid string, ids []string) (map[string]session.Call, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]session.Call{}
	for _, id := range ids {
		if c, ok := f.calls[sid+"/"+id]; ok {
			out[id] = c
		}
	}
	return out, nil
}

func (f *fakeStore) GetResults(_ context.Context, sid string, ids []string) (map[string]session.ToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]session.ToolResult{}
	for _, id := range ids {
		if r, ok := f.results[sid+"/"+id]; ok {
			out[id] = r
		}
	}
	return out, nil
}

// ReadInputs reads the Session, then the turns, then the calls and results: a Commit applies a result and its
// turn under one lock, so turns read before results are never ahead of them (what the interface requires).
func (f *fakeStore) ReadInputs(ctx context.Context, sid string, turnIDs, callIDs []string) (engine.InputState, error) {
	s, err := f.GetSession(ctx, sid)
	if err != nil {
		return engine.InputState{}, err
	}
	st := engine.InputState{Session: s, Turns: map[string]session.Turn{}}
	for _, id := range turnIDs {
		if t, err := f.GetTurn(ctx, sid, id); err == nil {
			st.Turns[id] = t
		}
	}
	st.Calls, _ = f.GetCalls(ctx, sid, callIDs)
	st.Results, _ = f.GetResults(ctx, sid, callIDs)
	return st, nil
}

func (f *fakeStore) GetIdempotency(_ context.Context, key string) (engine.Idempotency, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.idem[key]
	if !ok {
		return engine.Idempotency{}, notFound("idempotency")
	}
	return r, nil
}

func (f *fakeStore) MarkedTurns(context.Context, session.Mark, func(session.Turn) error) error {
	return nil
}

func (f *fakeStore) Commit(_ context.Context, c engine.Commit) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	conflict := fmt.Errorf("commit: %w", engine.ErrConflict)
	if c.Session != nil {
		if cur, ok := f.sessions[c.Session.ID]; ok != (c.SessionVersion != 0) || ok && cur.Version != c.SessionVersion {
			return conflict
		}
	}
	for _, tw := range c.Turns {
		if cur, ok := f.turns[tw.Turn.SessionID+"/"+tw.Turn.ID]; ok != (tw.Version != 0) || ok && cur.Version != tw.Version {
			return conflict
		}
	}
	if c.Idempotency != nil {
		if _, ok := f.idem[c.Idempotency.Key]; ok {
			return conflict
		}
		f.idem[c.Idempotency.Key] = *c.Idempotency
	}
	if c.Session != nil {
		s := *c.Session
		s.Version = c.SessionVersion + 1
		f.sessions[s.ID] = s
	}
	for _, tw := range c.Turns {
		t := tw.Turn
		t.Version = tw.Version + 1
		f.turns[t.SessionID+"/"+t.ID] = t
	}
	for _, iw := range c.Items {
		f.items[iw.SessionID] = append(f.items[iw.SessionID], iw.Item)
	}
	for _, e := range c.Events {
		sid := ""
		if c.Session != nil {
			sid = c.Session.ID
		}
		f.events[sid] = append(f.events[sid], e)
	}
	for _, cl := range c.Calls {
		f.calls[c.Session.ID+"/"+cl.CallID] = cl
	}
	for _, r := range c.Results {
		for k, t := range f.turns {
			if t.ID == r.TurnID {
				f.results[t.SessionID+"/"+r.CallID] = r
				_ = k
			}
		}
	}
	return nil
}

func (f *fakeStore) PutRuntime(_ context.Context, r engine.RuntimeInfo) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runtimes = append(f.runtimes, r)
	return nil
}

func (f *fakeStore) ListRuntimes(context.Context) ([]engine.RuntimeInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.runtimes), nil
}
