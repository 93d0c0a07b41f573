package runtime_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/statemachine"
)

// TestRuntimeFailsATaskWhoseTurnNeedsACapabilityItDoesNotAdvertise: a turn that requires tool_search reaches a
// runtime advertising only the basics (a rolling update) → Baton.RuntimeIncapable naming the missing capability,
// which the state machine retries on another runtime; a turn whose requirements it meets completes.
func TestRuntimeFailsATaskWhoseTurnNeedsACapabilityItDoesNotAdvertise(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	store.seed("s_needs", nil, "Hello", false)
	store.seed("s_plain", nil, "Hello", false)
	needs := store.turns["s_needs/turn_s_needs"]
	needs.Requires = []string{"durable_turns", "streaming", "tool_search"}
	store.turns["s_needs/turn_s_needs"] = needs
	plain := store.turns["s_plain/turn_s_plain"]
	plain.Requires = []string{"durable_turns", "streaming"}
	store.turns["s_plain/turn_s_plain"] = plain

	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	act := newActivities()
	rt, err := runtime.New(engine.New(engine.Options{Store: store, Clock: clock}), act, runtime.Config{
		ID: "rt_test", ActivityARN: "arn:activity", Capabilities: []string{"streaming", "durable_turns"},
		TaskHeartbeat: time.Hour, RegisterEvery: time.Hour, Clock: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	act.tasks <- [2]string{"t_needs", `{"session_id":"s_needs","turn_id":"turn_s_needs","harness":"baton"}`}
	act.tasks <- [2]string{"t_plain", `{"session_id":"s_plain","turn_id":"turn_s_plain","harness":"baton"}`}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rt.Run(ctx) }()
	for range 2 {
		select {
		case <-act.got:
		case <-time.After(10 * time.Second):
			t.Fatal("timed out waiting for answers")
		}
	}
	act.mu.Lock()
	defer act.mu.Unlock()
	want := answer{Op: "failure", Error: statemachine.ErrorRuntimeIncapable, Cause: "the runtime does not advertise tool_search"}
	if diff := cmp.Diff(want, act.answers["t_needs"]); diff != "" {
		t.Errorf("t_needs (-want +got):\n%s", diff)
	}
	if got := act.answers["t_plain"].Op; got != "success" {
		t.Errorf("t_plain answered %+v, want success", act.answers["t_plain"])
	}
}

// TestRuntimeDeclinesBeforeWriting: a runtime that cannot serve a turn (a capability it does not advertise, a model
// provider protocol it does not host) fails the task with Baton.RuntimeIncapable without writing anything, so the
// runtime that takes the retried task starts from the same state.
func TestRuntimeDeclinesBeforeWriting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		x         *agent.Extension
		requires  []string
		wantCause string
	}{
		{name: "a missing capability", requires: []string{"durable_turns", "tool_search"}, wantCause: "the runtime does not advertise tool_search"},
		{name: "an unavailable provider protocol", x: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_chat", APIKey: "sk-secret"}},
			wantCause: `model provider protocol "openai_chat" is not available in this runtime`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newMemStore()
			store.seed("s_a", tc.x, "Hello", false)
			turn := store.turns["s_a/turn_s_a"]
			turn.Requires = tc.requires
			store.turns["s_a/turn_s_a"] = turn
			before := snapshot(store)

			clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
			act := newActivities()
			rt, err := runtime.New(engine.New(engine.Options{Store: store, Clock: clock}), act, runtime.Config{
				ID: "rt_test", ActivityARN: "arn:activity", Capabilities: []string{"streaming", "durable_turns"},
				TaskHeartbeat: time.Hour, RegisterEvery: time.Hour, Clock: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			got := answerOf(t, rt, act, "t_a", `{"session_id":"s_a","turn_id":"turn_s_a","harness":"baton"}`)
			if diff := cmp.Diff(answer{Op: "failure", Error: statemachine.ErrorRuntimeIncapable, Cause: tc.wantCause}, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, snapshot(store)); diff != "" {
				t.Errorf("store changed (-before +after):\n%s", diff)
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			if store.commits != 0 {
				t.Errorf("store saw %d commits, want none", store.commits)
			}
		})
	}
}

// storeState is the session data of a memStore, for before/after comparisons.
type storeState struct {
	Sessions map[string]session.Session
	Turns    map[string]session.Turn
	Items    map[string][]session.Item
	Events   map[string][]session.Event
}

func snapshot(m *memStore) storeState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := storeState{Sessions: map[string]session.Session{}, Turns: map[string]session.Turn{}, Items: map[string][]session.Item{}, Events: map[string][]session.Event{}}
	for k, v := range m.sessions {
		st.Sessions[k] = v
	}
	for k, v := range m.turns {
		st.Turns[k] = v
	}
	for k, v := range m.items {
		st.Items[k] = append([]session.Item(nil), v...)
	}
	for k, v := range m.events {
		st.Events[k] = append([]session.Event(nil), v...)
	}
	return st
}
