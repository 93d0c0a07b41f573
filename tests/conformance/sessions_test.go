package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// Sessions, events, turns and items (docs/agents-api.md §1.3–§1.5, §2.2–§2.6; docs/agents-api.md §W1.2,
// §1.3, §3.4, §4; docs/decisions.md §3: a `none` Session may be created without input).

func TestSessionCreate(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	saved := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{
		"model": "scripted", "name": "saved", "instructions": "saved instructions", "metadata": map[string]string{"agent": "meta"},
		"tools":   []any{map[string]any{"type": "function", "name": "get_weather", "description": "d", "parameters": weatherParameters()}},
		"x_baton": scripted(),
	})
	if saved.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", saved.Status, saved.Body)
	}
	agentID := decodeJSON[map[string]any](t, saved.Body)["id"].(string)
	otherTool := map[string]any{"type": "function", "name": "other", "description": "o", "parameters": map[string]any{"type": "object"}}

	cases := []struct {
		name  string
		body  map[string]any
		check func(t *testing.T, s map[string]any)
	}{
		{"saved agent_id copies the saved configuration into the snapshot", map[string]any{"agent_id": agentID},
			func(t *testing.T, s map[string]any) {
				ag := s["agent"].(map[string]any)
				if ag["id"] != agentID || ag["instructions"] != "saved instructions" || len(ag["tools"].([]any)) != 1 || ag["name"] != "saved" {
					t.Errorf("snapshot %v", ag)
				}
				if _, ok := ag["metadata"]; ok {
					t.Errorf("snapshot carries the saved agent's metadata: %v", ag)
				}
				if diff := cmp.Diff(map[string]any{}, s["metadata"]); diff != "" {
					t.Errorf("session metadata (-want +got):\n%s", diff)
				}
			}},
		{"inline agent alone gets an agent id of its own (the SDK requires agent.id)", map[string]any{"agent": map[string]any{"model": "scripted", "x_baton": scripted()}},
			func(t *testing.T, s map[string]any) {
				ag := s["agent"].(map[string]any)
				id, _ := ag["id"].(string)
				if !strings.HasPrefix(id, "agent_") || ag["model"] != "scripted" {
					t.Errorf("snapshot %v, want an agent_ id and model scripted", ag)
				}
			}},
		{"inline tools replace the saved tools whole, omitted members inherit",
			map[string]any{"agent_id": agentID, "agent": map[string]any{"tools": []any{otherTool}}},
			func(t *testing.T, s map[string]any) {
				ag := s["agent"].(map[string]any)
				tools := ag["tools"].([]any)
				if len(tools) != 1 || tools[0].(map[string]any)["name"] != "other" || ag["instructions"] != "saved instructions" {
					t.Errorf("snapshot %v, want tools [other] and the saved instructions", ag)
				}
			}},
		{"inline tools null clears the saved tools", map[string]any{"agent_id": agentID, "agent": map[string]any{"tools": nil}},
			func(t *testing.T, s map[string]any) {
				if tools := s["agent"].(map[string]any)["tools"].([]any); len(tools) != 0 {
					t.Errorf("tools %v, want []", tools)
				}
			}},
		{"inline model and instructions replace the saved ones",
			map[string]any{"agent_id": agentID, "agent": map[string]any{"model": "other-model", "instructions": "inline"}},
			func(t *testing.T, s map[string]any) {
				ag := s["agent"].(map[string]any)
				if ag["model"] != "other-model" || ag["instructions"] != "inline" || ag["id"] != agentID {
					t.Errorf("snapshot %v", ag)
				}
			}},
		{"tool_search is projected out of the session's tools",
			map[string]any{"agent": map[string]any{"model": "scripted", "tools": []any{map[string]any{"type": "tool_search"},
				map[string]any{"type": "function", "name": "lazy", "description": "d", "parameters": map[string]any{"type": "object"}, "defer_loading": true}}}},
			func(t *testing.T, s map[string]any) {
				tools := s["agent"].(map[string]any)["tools"].([]any)
				if len(tools) != 1 || tools[0].(map[string]any)["type"] != "function" {
					t.Errorf("session tools %v, want only the function", tools)
				}
			}},
		{"metadata is the session's own", map[string]any{"agent_id": agentID, "metadata": map[string]string{"k": "v"}},
			func(t *testing.T, s map[string]any) {
				if diff := cmp.Diff(map[string]any{"k": "v"}, s["metadata"]); diff != "" {
					t.Errorf("metadata (-want +got):\n%s", diff)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := map[string]any{"environment": map[string]any{"type": "none"}}
			for k, v := range tc.body {
				body[k] = v
			}
			r := raw(t, st, http.MethodPost, "/v1/agents/sessions", body)
			if r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s, want 201", r.Status, r.Body)
			}
			s := decodeJSON[map[string]any](t, r.Body)
			want := map[string]any{"object": "agent.session", "status": "idle", "error": nil, "usage": nil,
				"required_actions": []any{}, "vault_ids": []any{}, "environment": map[string]any{"type": "none"}}
			for k, v := range want {
				if diff := cmp.Diff(v, s[k]); diff != "" {
					t.Errorf("member %s (-want +got):\n%s", k, diff)
				}
			}
			tc.check(t, s)
			// Retrieve answers the same resource.
			got := decodeJSON[map[string]any](t, raw(t, st, http.MethodGet, "/v1/agents/sessions/"+s["id"].(string), nil).Body)
			if diff := cmp.Diff(s, got); diff != "" {
				t.Errorf("GET differs from the create response (-create +get):\n%s", diff)
			}
		})
	}

	t.Run("string input starts a turn that completes", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, agentID, "hello there")
		if s.Status != "in_progress" {
			t.Errorf("status on create = %q, want in_progress", s.Status)
		}
		waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
		items := listItems(t, ctx, client, s.ID)
		if len(items) != 2 || items[0].Role != "user" || items[1].Role != "assistant" {
			t.Errorf("items %+v, want user then assistant message", items)
		}
	})
	t.Run("message array input starts one turn with every message in order", func(t *testing.T) {
		t.Parallel()
		msgs := []openai.AgentSessionInputMessageParam{
			{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText("first")}},
			{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText("second")}},
		}
		s, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(agentID),
			Environment: noneEnvironment, Input: openai.BetaAgentSessionNewParamsInputUnion{OfArrayOfInputMessages: msgs}})
		if err != nil {
			t.Fatalf("create: %v", describe(err))
		}
		waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
		if turns := listTurns(t, ctx, client, s.ID); len(turns) != 1 {
			t.Errorf("turns %+v, want one", turns)
		}
		r := raw(t, st, http.MethodGet, "/v1/agents/sessions/"+s.ID+"/items?order=asc", nil)
		texts := decodeJSON[struct {
			Data []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"data"`
		}](t, r.Body)
		var users []string
		for _, it := range texts.Data {
			if it.Role == "user" {
				users = append(users, it.Content[0].Text)
			}
		}
		if diff := cmp.Diff([]string{"first", "second"}, users); diff != "" {
			t.Errorf("user messages (-want +got):\n%s", diff)
		}
	})
	t.Run("an idle session without input is allowed (docs/decisions.md §3)", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, agentID, "")
		if s.Status != "idle" || len(listTurns(t, ctx, client, s.ID)) != 0 {
			t.Errorf("session %s, want idle with no turns", s.RawJSON())
		}
	})
	t.Run("without agent_id agent.model is required", func(t *testing.T) {
		t.Parallel()
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions", map[string]any{"environment": map[string]any{"type": "none"}, "agent": map[string]any{"instructions": "x"}})
		wantErrorBody(t, "create", r, 400, errorBody("Missing required parameter: 'agent.model'.", "invalid_request_error", ptr("invalid_request_error"), ptr("agent.model")))
	})
	t.Run("environment is required", func(t *testing.T) {
		t.Parallel()
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions", map[string]any{"agent_id": agentID})
		wantErrorBody(t, "create", r, 400, errorBody("Missing required parameter: 'environment'.", "invalid_request_error", ptr("invalid_request_error"), ptr("environment")))
	})
	t.Run("hosted environments are unsupported (docs/decisions.md §3)", func(t *testing.T) {
		t.Parallel()
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions", map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "openai_hosted"}})
		if e := r.Error(); r.Status != 400 || e.Code == nil || *e.Code != "unsupported_or_invalid_configuration" || e.Param != nil {
			t.Errorf("openai_hosted: %d %s, want 400 unsupported_or_invalid_configuration with a null param", r.Status, r.Body)
		}
	})
}

// TestSessionCreateStreams: `stream: true` answers 201 SSE whose first event is agent.session.created, carries the
// creation's events exactly once and ends after the first agent.session.idle.
func TestSessionCreateStreams(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")

	t.Run("SDK NewStreaming yields agent.session.created first and ends after idle", func(t *testing.T) {
		t.Parallel()
		stream := client.Beta.Agents.Sessions.NewStreaming(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(a.ID),
			Environment: noneEnvironment, Input: openai.BetaAgentSessionNewParamsInputUnion{OfString: openai.String("hello")}})
		defer stream.Close()
		var types []string
		var sessionID string
		for stream.Next() {
			ev := stream.Current()
			types = append(types, ev.Type)
			if ev.Type == "agent.session.created" {
				sessionID = ev.Session.ID
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("stream: %v", describe(err))
		}
		if len(types) == 0 || types[0] != "agent.session.created" || sessionID == "" {
			t.Fatalf("events %v, want agent.session.created first with the session", types)
		}
		if types[len(types)-1] != "agent.session.idle" || !slices.Contains(types, "agent.session.turn.completed") {
			t.Errorf("events %v, want the turn's completion and a final agent.session.idle", types)
		}
		if s := getSession(t, ctx, client, sessionID); s.Status != "idle" {
			t.Errorf("session after the stream: %s", s.Status)
		}
	})
	t.Run("raw SSE framing: 201, event/id/data lines, unique ids matching the payload", func(t *testing.T) {
		t.Parallel()
		body, _ := json.Marshal(map[string]any{"agent_id": a.ID, "environment": map[string]any{"type": "none"}, "input": "hello", "stream": true})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, st.APIURL+"/v1/agents/sessions", strings.NewReader(string(body)))
		req.Header = apiHeader(st)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "text/event-stream" ||
			!requestIDPattern.MatchString(resp.Header.Get("X-Request-Id")) {
			t.Fatalf("status %d Content-Type %q X-Request-Id %q, want 201 text/event-stream req_…", resp.StatusCode,
				resp.Header.Get("Content-Type"), resp.Header.Get("X-Request-Id"))
		}
		rd := newSSEReader(resp.Body)
		seen := map[string]bool{}
		var types []string
		for {
			f, ok := rd.next()
			if !ok {
				break
			}
			checkFrame(t, f, seen)
			if len(types) == 0 {
				// The committed Session, as the JSON 201 body would be: with input it already reads in_progress.
				if s := decodeJSON[wireEvent](t, []byte(f.Data)).Session; s == nil || s.ID == "" || s.Status != "in_progress" {
					t.Errorf("agent.session.created session %+v, want the new session in_progress", s)
				}
			}
			types = append(types, f.Event)
		}
		if len(types) == 0 || types[0] != "agent.session.created" || types[len(types)-1] != "agent.session.idle" {
			t.Errorf("frames %v, want agent.session.created … agent.session.idle", types)
		}
		if n := countOf(types, "agent.session.idle"); n != 1 {
			t.Errorf("%d agent.session.idle frames, want exactly one (the stream ends after it)", n)
		}
	})
	t.Run("same-key retry with stream:true answers 201 with only the connection comment", func(t *testing.T) {
		t.Parallel()
		key := map[string]string{"Idempotency-Key": "stream-retry-" + a.ID}
		body := map[string]any{"agent_id": a.ID, "environment": map[string]any{"type": "none"}, "input": "hello", "stream": true}
		first := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, key)
		again := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, key)
		if first.Status != 201 || again.Status != 201 || strings.Contains(string(again.Body), "data:") {
			t.Errorf("first %d, retry %d %q: want 201 and a retry without events", first.Status, again.Status, again.Body)
		}
	})
}

func keysOf(t *testing.T, body []byte) []string {
	t.Helper()
	var keys []string
	for k := range decodeJSON[map[string]any](t, body) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// checkFrame checks one SSE frame: exactly event, id and data lines; data is one JSON object whose type and
// event_id are the frame's event and id, with no top-level error key; the id is new.
func checkFrame(t *testing.T, f sseFrame, seen map[string]bool) {
	t.Helper()
	if len(f.Lines) != 3 || !strings.HasPrefix(f.Lines[0], "event: ") || !strings.HasPrefix(f.Lines[1], "id: ") || !strings.HasPrefix(f.Lines[2], "data: ") {
		t.Errorf("frame lines %q, want event:, id:, data:", f.Lines)
		return
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(f.Data), &d); err != nil {
		t.Errorf("frame data %q is not JSON: %v", f.Data, err)
		return
	}
	if d["type"] != f.Event || d["event_id"] != f.ID || f.ID == "" {
		t.Errorf("frame event %q id %q, data type %v event_id %v", f.Event, f.ID, d["type"], d["event_id"])
	}
	if _, ok := d["error"]; ok && f.Event != "error" {
		t.Errorf("frame %s has a top-level error key (the SDK would stop)", f.Event)
	}
	if seen[f.ID] {
		t.Errorf("event id %s repeated", f.ID)
	}
	seen[f.ID] = true
}

// TestEventStreamFraming opens GET …/events raw, drives a turn, and checks the frames and the keep-alive comment.
func TestEventStreamFraming(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")
	sctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(sctx, http.MethodGet, st.APIURL+"/v1/agents/sessions/"+s.ID+"/events", nil)
	req.Header = apiHeader(st)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	postEvents(t, ctx, client, s.ID, userMessage("hello"))
	rd := newSSEReader(resp.Body)
	seen := map[string]bool{}
	var types []string
	for {
		f, ok := rd.next()
		if !ok {
			t.Fatalf("stream ended after %v", types)
		}
		checkFrame(t, f, seen)
		types = append(types, f.Event)
		if f.Event == "agent.session.idle" {
			break
		}
	}
	want := []string{"agent.session.turn.created", "agent.session.turn.item.added", "agent.session.in_progress", "agent.session.turn.in_progress"}
	if len(types) < len(want) || !slices.Equal(types[:len(want)], want) {
		t.Errorf("first frames %v, want %v", types, want)
	}
	// Silence: the server writes a keep-alive comment within its 15 s interval.
	if len(rd.comments) == 0 || rd.comments[0] != ": connected" {
		t.Errorf("comments %q, want ': connected' first", rd.comments)
	}
	timer := time.AfterFunc(20*time.Second, func() { resp.Body.Close() })
	defer timer.Stop()
	for !slices.Contains(rd.comments, ": keep-alive") {
		if !rd.sc.Scan() {
			t.Fatalf("no ': keep-alive' comment within 20 s of silence (comments %q)", rd.comments)
		}
		if line := rd.sc.Text(); strings.HasPrefix(line, ":") {
			rd.comments = append(rd.comments, line)
		}
	}
}

func TestSessionUpdateIsMetadataOnly(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")

	got, err := client.Beta.Agents.Sessions.Update(ctx, s.ID, openai.BetaAgentSessionUpdateParams{Metadata: map[string]string{"a": "1"}})
	if err != nil {
		t.Fatalf("update: %v", describe(err))
	}
	if got.Metadata["a"] != "1" || got.ID != s.ID {
		t.Errorf("updated session %s", got.RawJSON())
	}
	if m := getSession(t, ctx, client, s.ID).Metadata; m["a"] != "1" {
		t.Errorf("GET after update: metadata %v", m)
	}
	r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID, map[string]any{"metadata": nil})
	if r.Status != 200 || !strings.Contains(string(r.Body), `"metadata":{}`) {
		t.Errorf("null metadata: %d %s, want 200 with metadata {}", r.Status, r.Body)
	}
	wantErrorBody(t, "empty body", raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID, map[string]any{}), 400,
		errorBody("At least one update field is required.", "invalid_request_error", ptr("invalid_request_error"), nil))
	r = raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID, map[string]any{"agent": map[string]any{"model": "x"}})
	if e := r.Error(); r.Status != 400 || e.Code == nil || *e.Code != "unsupported_or_invalid_configuration" {
		t.Errorf("agent update: %d %s, want 400 unsupported_or_invalid_configuration", r.Status, r.Body)
	}
	_, err = client.Beta.Agents.Sessions.Update(ctx, s.ID, openai.BetaAgentSessionUpdateParams{Metadata: map[string]string{"x": strings.Repeat("v", 513)}})
	wantSDKError(t, "metadata value too long", err, sdkError{Status: 400, Type: "invalid_request_error", Code: "invalid_request_error", Param: "metadata.x"})
}

// TestSessionListFiltersByAgent lists a project of its own: agent_id filters before paging; auto-paging covers
// more than one page.
func TestSessionListFiltersByAgent(t *testing.T) {
	t.Parallel()
	st, _, ctx := stackClient(t)
	client := stack.OpenAI(st.WithKey(newProjectKey(t, st, "conformance-list-sessions")))
	a1 := newAgent(t, ctx, client, "")
	a2 := newAgent(t, ctx, client, "")
	var of1 []string
	for i := range 5 {
		agentID := a1.ID
		if i%2 == 1 {
			agentID = a2.ID
		}
		s := newSession(t, ctx, client, agentID, "")
		if agentID == a1.ID {
			of1 = append(of1, s.ID)
		}
	}
	var got []string
	pager := client.Beta.Agents.Sessions.ListAutoPaging(ctx, openai.BetaAgentSessionListParams{AgentID: openai.String(a1.ID),
		Limit: openai.Int(1), Order: openai.BetaAgentSessionListParamsOrderAsc})
	for pager.Next() {
		got = append(got, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("list: %v", describe(err))
	}
	if diff := cmp.Diff(of1, got); diff != "" {
		t.Errorf("sessions of agent 1 (-want +got):\n%s", diff)
	}
	all, err := client.Beta.Agents.Sessions.List(ctx, openai.BetaAgentSessionListParams{Limit: openai.Int(100)})
	if err != nil {
		t.Fatalf("list all: %v", describe(err))
	}
	if len(all.Data) != 5 || all.HasMore {
		t.Errorf("all sessions: %d has_more %v, want 5 and false", len(all.Data), all.HasMore)
	}
}

// TestSessionDelete: only an idle or failed Session is deleted; a busy one is 409 conflict_error with
// x-should-retry: false; a deleted Session is 404 on reads and a repeat delete answers the same 200.
func TestSessionDelete(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)

	t.Run("idle session is deleted, then 404, and a repeat delete answers 200", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "")
		s := newSession(t, ctx, client, a.ID, "")
		del, err := client.Beta.Agents.Sessions.Delete(ctx, s.ID)
		if err != nil {
			t.Fatalf("delete: %v", describe(err))
		}
		if del.ID != s.ID || del.Object != "agent.session.deleted" || !del.Deleted {
			t.Errorf("delete response %s", del.RawJSON())
		}
		_, err = client.Beta.Agents.Sessions.Get(ctx, s.ID)
		wantSDKError(t, "get after delete", err, sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error", Message: "Resource not found."})
		r := raw(t, st, http.MethodDelete, "/v1/agents/sessions/"+s.ID, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"deleted":true`) {
			t.Errorf("repeat delete: %d %s, want 200 deleted", r.Status, r.Body)
		}
		err = client.Beta.Agents.Sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{userMessage("x")}})
		wantSDKError(t, "events after delete", err, sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error"})
	})
	t.Run("session waiting for a result is 409 and not retried by the SDK", func(t *testing.T) {
		t.Parallel()
		sid, _ := parkedTurn(t, ctx, client)
		r := raw(t, st, http.MethodDelete, "/v1/agents/sessions/"+sid, nil)
		wantErrorBody(t, "delete busy", r, 409, errorBody("session must be durably idle or failed without required actions before deletion",
			"conflict_error", ptr("conflict_error"), nil))
		wantNoRetry(t, "delete busy", r)
		retrying := stack.OpenAI(st, option.WithMaxRetries(2))
		start := time.Now()
		_, err := retrying.Beta.Agents.Sessions.Delete(ctx, sid)
		wantSDKError(t, "SDK delete busy", err, sdkError{Status: 409, Type: "conflict_error", Code: "conflict_error"})
		if d := time.Since(start); d > 400*time.Millisecond {
			t.Errorf("SDK took %s: it retried a deterministic 409", d)
		}
		if s := getSession(t, ctx, client, sid); s.Status != "requires_action" {
			t.Errorf("session after the refused delete: %s", s.Status)
		}
	})
	t.Run("failed session is deleted", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "")
		s := newSession(t, ctx, client, a.ID, "please fail")
		waitSession(t, ctx, client, s.ID, "failed", hasStatus("failed"))
		if _, err := client.Beta.Agents.Sessions.Delete(ctx, s.ID); err != nil {
			t.Errorf("delete failed session: %v", describe(err))
		}
	})
}

// TestEventBatches: 1–64 ordered events are admitted atomically; 65 is 400; an empty batch is a 202 no-op.
func TestEventBatches(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	msg := func(text string) map[string]any {
		return map[string]any{"type": "agent.session.input.message",
			"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}}}
	}
	batch := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = msg(fmt.Sprintf("message %02d", i))
		}
		return out
	}

	t.Run("64 messages start one turn holding them in order", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, a.ID, "")
		rec := record(t, ctx, client, s.ID)
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": batch(64)})
		if r.Status != http.StatusAccepted || len(r.Body) != 0 {
			t.Fatalf("64 events: %d %s, want 202 with an empty body", r.Status, r.Body)
		}
		rec.WaitFor(t, 0, "agent.session.idle", isType("agent.session.idle"))
		waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
		// The stream carries each user message once, in order, with unique event ids.
		ids := map[string]bool{}
		var streamed []string
		for _, e := range rec.Snapshot() {
			if ids[e.EventID] {
				t.Errorf("event id %s repeated", e.EventID)
			}
			ids[e.EventID] = true
			if e.Type == "agent.session.turn.item.added" && e.Item != nil && e.Item.Role == "user" {
				streamed = append(streamed, e.Item.ID)
			}
		}
		if len(streamed) != 64 {
			t.Errorf("%d user item.added events on the stream, want 64", len(streamed))
		}
		turns := listTurns(t, ctx, client, s.ID)
		if len(turns) != 1 {
			t.Fatalf("turns %+v, want one", turns)
		}
		rr := raw(t, st, http.MethodGet, "/v1/agents/sessions/"+s.ID+"/items?order=asc&limit=100", nil)
		items := decodeJSON[struct {
			Data []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"data"`
		}](t, rr.Body)
		var users []string
		for _, it := range items.Data {
			if it.Role == "user" {
				users = append(users, it.Content[0].Text)
			}
		}
		want := make([]string, 64)
		for i := range want {
			want[i] = fmt.Sprintf("message %02d", i)
		}
		if diff := cmp.Diff(want, users); diff != "" {
			t.Errorf("user messages (-want +got):\n%s", diff)
		}
	})
	t.Run("65 events are 400 and write nothing visible", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, a.ID, "")
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": batch(65)})
		wantErrorBody(t, "65 events", r, 400, errorBody("Invalid 'events': array too long. Expected an array with maximum length 64, but got an array with length 65 instead.",
			"invalid_request_error", ptr("invalid_request_error"), ptr("events")))
		if turns := listTurns(t, ctx, client, s.ID); len(turns) != 0 {
			t.Errorf("turns after a rejected batch: %+v", turns)
		}
	})
	t.Run("a batch with a bad last event is rejected whole", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, a.ID, "")
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{msg("ok"), map[string]any{"type": "agent.session.input.bogus"}}})
		if r.Status != 400 || r.Error().Param == nil || *r.Error().Param != "events[1].type" {
			t.Errorf("bad batch: %d %s, want 400 with param events[1].type", r.Status, r.Body)
		}
		if turns := listTurns(t, ctx, client, s.ID); len(turns) != 0 {
			t.Errorf("turns after a rejected batch: %+v", turns)
		}
	})
	t.Run("an empty batch is a 202 no-op and events null is 400", func(t *testing.T) {
		t.Parallel()
		s := newSession(t, ctx, client, a.ID, "")
		if r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{}}); r.Status != 202 {
			t.Errorf("empty batch: %d %s", r.Status, r.Body)
		}
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": nil})
		if r.Status != 400 || r.Error().Type != "invalid_request_error" {
			t.Errorf("events null: %d %s, want 400", r.Status, r.Body)
		}
	})
	t.Run("a message while a turn is active is 409 and not retried", func(t *testing.T) {
		t.Parallel()
		sid, _ := parkedTurn(t, ctx, client)
		r := raw(t, st, http.MethodPost, "/v1/agents/sessions/"+sid+"/events", map[string]any{"events": []any{msg("again")}})
		if r.Status != 409 || r.Error().Type != "conflict_error" {
			t.Errorf("busy message: %d %s, want 409 conflict_error", r.Status, r.Body)
		}
		wantNoRetry(t, "busy message", r)
	})
}

// TestTurnsAndItems reads one function round trip back: turns list/retrieve, session items (CursorPage) and turn
// items (ConversationCursorPage paged by last_id).
func TestTurnsAndItems(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	sid, action := parkedTurn(t, ctx, client)
	postEvents(t, ctx, client, sid, toolResult(action.TurnID, action.CallID, "sunny"))
	waitSession(t, ctx, client, sid, "idle", hasStatus("idle"))
	postEvents(t, ctx, client, sid, userMessage("hello again"))
	waitSession(t, ctx, client, sid, "idle after the second turn", func(s wireSession) bool {
		return s.Status == "idle" && len(listTurns(t, ctx, client, sid)) == 2
	})

	turns := listTurns(t, ctx, client, sid)
	if len(turns) != 2 || turns[0].ID != action.TurnID || turns[0].Status != "completed" || turns[1].Status != "completed" {
		t.Fatalf("turns %+v, want two completed, the first %s", turns, action.TurnID)
	}
	tr, err := client.Beta.Agents.Sessions.Turns.Get(ctx, sid, action.TurnID)
	if err != nil {
		t.Fatalf("get turn: %v", describe(err))
	}
	if tr.ID != action.TurnID || tr.SessionID != sid || tr.Object != "agent.session.turn" || tr.Status != "completed" || tr.CompletedAt == 0 {
		t.Errorf("turn %s", tr.RawJSON())
	}
	page, err := client.Beta.Agents.Sessions.Turns.List(ctx, sid, openai.BetaAgentSessionTurnListParams{Limit: openai.Int(1)})
	if err != nil {
		t.Fatalf("list turns: %v", describe(err))
	}
	if len(page.Data) != 1 || page.Data[0].ID != turns[1].ID || !page.HasMore {
		t.Errorf("first desc page of one: %s", page.RawJSON())
	}

	// Every pinned member is present, null where unknown.
	turnKeys := keysOf(t, raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+"/turns/"+action.TurnID, nil).Body)
	if diff := cmp.Diff([]string{"agent_id", "completed_at", "created_at", "error", "id", "object", "prompt_cache_options", "session_id",
		"started_at", "status", "subagent_id", "usage"}, turnKeys); diff != "" {
		t.Errorf("turn members (-want +got):\n%s", diff)
	}
	items := listItems(t, ctx, client, sid)
	var shapes []string
	for _, it := range items {
		shapes = append(shapes, it.Type+"/"+it.Role)
	}
	want := []string{"message/user", "function_call/", "function_call_output/", "message/assistant", "message/user", "message/assistant"}
	if diff := cmp.Diff(want, shapes); diff != "" {
		t.Errorf("session items (-want +got):\n%s", diff)
	}
	rawItems := decodeJSON[struct{ Data []map[string]any }](t, raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+"/items?order=asc", nil).Body)
	for _, it := range rawItems.Data {
		if it["type"] != "function_call_output" {
			continue
		}
		_, hasOutput := it["output"]
		_, hasError := it["error"]
		if !hasOutput || !hasError || it["output"] != "sunny" || it["error"] != nil || it["status"] == nil {
			t.Errorf("function_call_output %v, want output \"sunny\", error null and a status", it)
		}
	}
	// Turn items of the first turn, paged one at a time by last_id through the SDK's ConversationCursorPage.
	var turnItems []string
	pager := client.Beta.Agents.Sessions.Turns.Items.ListAutoPaging(ctx, sid, action.TurnID, openai.BetaAgentSessionTurnItemListParams{
		Limit: openai.Int(1), Order: openai.BetaAgentSessionTurnItemListParamsOrderAsc})
	for pager.Next() {
		turnItems = append(turnItems, pager.Current().ID)
		if len(turnItems) > 20 {
			t.Fatal("turn items do not end")
		}
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("turn items: %v", describe(err))
	}
	var firstTurn []string
	for _, it := range items {
		if it.TurnID == action.TurnID {
			firstTurn = append(firstTurn, it.ID)
		}
	}
	if diff := cmp.Diff(firstTurn, turnItems); diff != "" {
		t.Errorf("turn items (-session items of the turn +turn items):\n%s", diff)
	}
	// Raw: default order desc, limit clamps, a bad after is 400.
	r := raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+"/items?limit=0", nil)
	if env := decodeJSON[struct{ Data []wireItem }](t, r.Body); r.Status != 200 || len(env.Data) != 1 || env.Data[0].ID != items[len(items)-1].ID {
		t.Errorf("limit=0 (clamped to 1, desc): %d %s", r.Status, r.Body)
	}
	wantErrorBody(t, "bad after", raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+"/items?after=nope", nil), 400,
		errorBody("Invalid session item ID in `after`.", "invalid_request_error", ptr("invalid_request_error"), ptr("after")))
	wantErrorBody(t, "turns limit 0", raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+"/turns?limit=0", nil), 400,
		errorBody("limit must be between 1 and 100", "invalid_request_error", ptr("invalid_request_error"), ptr("limit")))
}
