package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/baton-run/baton/tests/stack"
)

// Capability-gated dispatch (issue 4 Deliver 1; docs/agents-api.md §3: "Before dispatch, the selected Runtime must
// also advertise the operation's capability"), on a stack of its own with no runtime of baton-local's.
//
// Step 1: the only live runtime lacks function_tools, which a message to an agent with a function needs → 503
// execution_unavailable and the table unchanged but for runtime heartbeat items. Step 2: a runtime that advertises
// it is started → the same request is accepted and its turn completes.
func TestDispatchNeedsALiveRuntimeThatAdvertisesEveryCapability(t *testing.T) {
	st := stack.Start(t, stack.Options{Runtimes: -1})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client := stack.OpenAI(st)

	restricted := stack.StartRuntime(t, st, stack.RuntimeOptions{
		Env: []string{"BATON_RUNTIME_CAPABILITIES=streaming,environment_none,durable_turns"}})
	a := newWeatherAgent(t, ctx, client)
	s := newIdleSession(t, ctx, client, a.ID) // an idle Session dispatches nothing: admitted
	body := map[string]any{"events": []any{map[string]any{"type": "agent.session.input.message",
		"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hello"}}}}}}}
	path := "/v1/agents/sessions/" + s.ID + "/events"

	// Step 1: refused, nothing written.
	before := stack.Snapshot(t, st)
	r := st.Do(t, http.MethodPost, path, body, nil)
	code := "execution_unavailable"
	want := stack.APIError{Type: "server_error", Code: &code,
		Message: "No live runtime can execute this request: no live baton runtime advertises function_tools."}
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("POST events with only %s live: %d %s, want 503", restricted.ID, r.Status, r.Body)
	}
	if diff := cmp.Diff(want, r.Error()); diff != "" {
		t.Errorf("error body (-want +got):\n%s", diff)
	}
	// The official SDK sees the same refusal.
	err := client.Beta.Agents.Sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{userMessage("hello")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable || apiErr.Code != "execution_unavailable" {
		t.Errorf("SDK events.new = %v, want 503 execution_unavailable", describe(err))
	}
	// A Session created with input is refused the same way, before anything is written.
	r = st.Do(t, http.MethodPost, "/v1/agents/sessions", map[string]any{"agent_id": a.ID, "environment": map[string]any{"type": "none"}, "input": "hello"}, nil)
	if r.Status != http.StatusServiceUnavailable || r.Error().Code == nil || *r.Error().Code != "execution_unavailable" {
		t.Errorf("POST sessions with input: %d %s, want 503 execution_unavailable", r.Status, r.Body)
	}
	stack.AssertUnchanged(t, before, stack.Snapshot(t, st))
	if got := getSession(t, ctx, client, s.ID).Status; got != "idle" {
		t.Errorf("session status after the refusal = %q, want idle", got)
	}

	// Step 2: a runtime that advertises everything the baton harness serves; the restricted one stops.
	capable := stack.StartRuntime(t, st, stack.RuntimeOptions{})
	restricted.Stop(t)
	rec := record(t, ctx, client, s.ID)
	r = st.Do(t, http.MethodPost, path, body, nil)
	if r.Status != http.StatusAccepted && r.Status != http.StatusOK {
		t.Fatalf("POST events with %s live: %d %s", capable.ID, r.Status, r.Body)
	}
	i := rec.WaitFor(t, 0, "turn.completed", isType("agent.session.turn.completed"))
	if got := getSession(t, ctx, client, s.ID).Status; got != "idle" {
		t.Errorf("session status after the turn = %q, want idle", got)
	}
	if text := finalText(rec.Snapshot()[:i+1]); text != "You said: hello" {
		t.Errorf("final answer = %q, want %q", text, "You said: hello")
	}
	found := false
	for _, rt := range st.Runtimes(t) {
		if rt.ID == capable.ID {
			found = rt.Kind == "baton" && rt.HeartbeatAt > 0 && len(rt.Capabilities) > 0
		}
	}
	if !found {
		t.Errorf("GET /admin/v1/runtimes does not list %s with kind, capabilities and heartbeat: %+v", capable.ID, st.Runtimes(t))
	}
}
