package conformance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Idempotency-Key on Session create and events POST (docs/agents-api.md §1.3, §1.4, §W2.2,
// §W2.3): same key and same body → the original response and no second turn; same key, different body → 409
// idempotency_conflict with x-should-retry: false.

func TestIdempotentSessionCreate(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	body := map[string]any{"agent_id": a.ID, "environment": map[string]any{"type": "none"}, "input": "hello"}
	key := map[string]string{"Idempotency-Key": "create-" + a.ID}

	first := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, key)
	if first.Status != http.StatusCreated {
		t.Fatalf("first create: %d %s", first.Status, first.Body)
	}
	id := decodeJSON[wireSession](t, first.Body).ID
	waitSession(t, ctx, client, id, "idle", hasStatus("idle"))

	again := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, key)
	if again.Status != http.StatusCreated || decodeJSON[wireSession](t, again.Body).ID != id {
		t.Errorf("same key, same body: %d %s, want 201 with session %s", again.Status, again.Body, id)
	}
	// Through the SDK, with retries on: the replay is the same Session.
	s, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(a.ID), Environment: noneEnvironment,
		Input: openai.BetaAgentSessionNewParamsInputUnion{OfString: openai.String("hello")}}, option.WithHeader("Idempotency-Key", "create-"+a.ID))
	if err != nil || s.ID != id {
		t.Errorf("SDK replay: %v %v, want session %s", s, describe(err), id)
	}
	if turns := listTurns(t, ctx, client, id); len(turns) != 1 {
		t.Errorf("turns after replays: %d, want 1", len(turns))
	}
	list, err := client.Beta.Agents.Sessions.List(ctx, openai.BetaAgentSessionListParams{AgentID: openai.String(a.ID)})
	if err != nil || len(list.Data) != 1 {
		t.Errorf("sessions of the agent after replays: %v %v, want exactly one", list, describe(err))
	}

	different := map[string]any{"agent_id": a.ID, "environment": map[string]any{"type": "none"}, "input": "something else"}
	r := st.Do(t, http.MethodPost, "/v1/agents/sessions", different, key)
	wantErrorBody(t, "same key, different body", r, http.StatusConflict,
		errorBody("This idempotency key was used with different input.", "conflict_error", ptr("idempotency_conflict"), nil))
	wantNoRetry(t, "same key, different body", r)

	for _, k := range []string{"   ", strings.Repeat("k", 129)} {
		bad := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, map[string]string{"Idempotency-Key": k})
		if bad.Status != 400 || bad.Error().Code == nil || *bad.Error().Code != "invalid_request" {
			t.Errorf("key %q: %d %s, want 400 invalid_request", k, bad.Status, bad.Body)
		}
	}

	// After the Session's deletion the key cannot be reused.
	if _, err := client.Beta.Agents.Sessions.Delete(ctx, id); err != nil {
		t.Fatalf("delete: %v", describe(err))
	}
	r = st.Do(t, http.MethodPost, "/v1/agents/sessions", body, key)
	wantErrorBody(t, "same key after deletion", r, http.StatusConflict,
		errorBody("This idempotency key was used with different input.", "conflict_error", ptr("idempotency_conflict"), nil))
	wantNoRetry(t, "same key after deletion", r)
}

func TestIdempotentEventsPost(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)

	t.Run("same key and batch is accepted once: no second turn", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "")
		s := newSession(t, ctx, client, a.ID, "")
		params := openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{userMessage("hello")}, IdempotencyKey: openai.String("msg-1")}
		if err := client.Beta.Agents.Sessions.Events.New(ctx, s.ID, params); err != nil {
			t.Fatalf("first post: %v", describe(err))
		}
		waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
		if err := client.Beta.Agents.Sessions.Events.New(ctx, s.ID, params); err != nil {
			t.Errorf("replay: %v", describe(err))
		}
		if got := getSession(t, ctx, client, s.ID); got.Status != "idle" {
			t.Errorf("session after the replay: %s, want idle (nothing started)", got.Status)
		}
		if turns := listTurns(t, ctx, client, s.ID); len(turns) != 1 {
			t.Errorf("turns: %d, want 1", len(turns))
		}
		// The key is scoped to the Session: the same key on another Session is a new request.
		s2 := newSession(t, ctx, client, a.ID, "")
		if err := client.Beta.Agents.Sessions.Events.New(ctx, s2.ID, params); err != nil {
			t.Errorf("same key on another session: %v", describe(err))
		}
		waitSession(t, ctx, client, s2.ID, "idle", hasStatus("idle"))
		if turns := listTurns(t, ctx, client, s2.ID); len(turns) != 1 {
			t.Errorf("turns of the other session: %d, want 1", len(turns))
		}
	})
	t.Run("same key, different batch is 409 idempotency_conflict without retry", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "")
		s := newSession(t, ctx, client, a.ID, "")
		key := map[string]string{"Idempotency-Key": "msg-2"}
		ev := func(text string) map[string]any {
			return map[string]any{"events": []any{map[string]any{"type": "agent.session.input.message",
				"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}}}}}
		}
		if r := st.Do(t, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", ev("one"), key); r.Status != 202 {
			t.Fatalf("first: %d %s", r.Status, r.Body)
		}
		waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
		r := st.Do(t, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", ev("two"), key)
		wantErrorBody(t, "different batch", r, http.StatusConflict,
			errorBody("This idempotency key was used with different input.", "conflict_error", ptr("idempotency_conflict"), nil))
		wantNoRetry(t, "different batch", r)
		err := client.Beta.Agents.Sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{
			Events: []openai.AgentSessionInputParamUnion{userMessage("three")}, IdempotencyKey: openai.String("msg-2")})
		wantSDKError(t, "SDK different batch", err, sdkError{Status: 409, Type: "conflict_error", Code: "idempotency_conflict",
			Message: "This idempotency key was used with different input."})
		if turns := listTurns(t, ctx, client, s.ID); len(turns) != 1 {
			t.Errorf("turns: %d, want 1", len(turns))
		}
	})
	t.Run("a replayed tool result batch is not applied twice", func(t *testing.T) {
		t.Parallel()
		sid, action := parkedTurn(t, ctx, client)
		params := openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{toolResult(action.TurnID, action.CallID, "sunny")},
			IdempotencyKey: openai.String("result-1")}
		for range 2 {
			if err := client.Beta.Agents.Sessions.Events.New(ctx, sid, params); err != nil {
				t.Fatalf("post result: %v", describe(err))
			}
		}
		waitSession(t, ctx, client, sid, "idle", hasStatus("idle"))
		items := listItems(t, ctx, client, sid)
		if diff := cmp.Diff(1, countItems(items, "function_call_output")); diff != "" {
			t.Errorf("function_call_output items (-want +got):\n%s", diff)
		}
	})
}
