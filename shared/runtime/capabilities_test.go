package runtime_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/runtime"
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
	want := answer{Op: "failure", Error: runtime.ErrorRuntimeIncapable, Cause: "the runtime does not advertise tool_search"}
	if diff := cmp.Diff(want, act.answers["t_needs"]); diff != "" {
		t.Errorf("t_needs (-want +got):\n%s", diff)
	}
	if got := act.answers["t_plain"].Op; got != "success" {
		t.Errorf("t_plain answered %+v, want success", act.answers["t_plain"])
	}
}
