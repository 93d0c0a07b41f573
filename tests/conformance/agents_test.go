package conformance_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// Saved Agents (docs/agents-api.md §1.2, §2.1; docs/agents-api.md §W1.1, §W3.1–§W3.3).

func TestAgentCreateAndRetrieve(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)

	t.Run("create returns 201 with every member resolved to its default", func(t *testing.T) {
		t.Parallel()
		r := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{"model": "scripted"})
		if r.Status != http.StatusCreated {
			t.Fatalf("POST /v1/agents: %d %s, want 201", r.Status, r.Body)
		}
		got := decodeJSON[map[string]any](t, r.Body)
		for _, k := range []string{"id", "created_at", "updated_at"} {
			if got[k] == nil {
				t.Errorf("member %s missing in %s", k, r.Body)
			}
			delete(got, k)
		}
		want := map[string]any{
			"object": "agent", "name": nil, "model": "scripted", "instructions": nil, "metadata": map[string]any{},
			"tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}, "verbosity": "medium"},
			"reasoning": map[string]any{"effort": nil, "summary": nil}, "service_tier": "auto",
			"multi_agent":  map[string]any{"enabled": false, "max_concurrent_subagents": float64(0)},
			"compaction":   map[string]any{"async": true},
			"experimental": map[string]any{"time_awareness": false},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("created agent (-want +got):\n%s", diff)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	})

	t.Run("SDK create and retrieve round-trip the typed fields", func(t *testing.T) {
		t.Parallel()
		a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
			Model:        "scripted",
			Name:         openai.String("weather"),
			Instructions: openai.String("Answer weather questions."),
			Metadata:     map[string]string{"team": "core"},
			Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
				"Current weather", "get_weather", weatherParameters())},
		}, option.WithJSONSet("x_baton", scripted()))
		if err != nil {
			t.Fatalf("create: %v", describe(err))
		}
		got, err := client.Beta.Agents.Get(ctx, a.ID)
		if err != nil {
			t.Fatalf("get: %v", describe(err))
		}
		if got.ID != a.ID || got.Object != "agent" || got.Name != "weather" || got.Model != "scripted" ||
			got.Instructions != "Answer weather questions." || got.Metadata["team"] != "core" {
			t.Errorf("retrieved agent %s differs from the created one", got.RawJSON())
		}
		if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Name != "get_weather" || got.Tools[0].DeferLoading {
			t.Errorf("tools %s, want get_weather with defer_loading false", got.RawJSON())
		}
		xb := decodeJSON[map[string]any](t, []byte(got.RawJSON()))["x_baton"]
		if xb == nil {
			t.Errorf("x_baton missing from %s", got.RawJSON())
		}
	})

	t.Run("metadata limits name the member", func(t *testing.T) {
		t.Parallel()
		many := map[string]string{}
		for i := range 17 {
			many[strings.Repeat("k", i+1)] = "v"
		}
		cases := []struct {
			name     string
			metadata any
			param    string
			message  string
		}{
			{"17 pairs", many, "metadata", "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead."},
			{"a 65-character key", map[string]string{strings.Repeat("k", 65): "v"}, "metadata", "Invalid 'metadata': key too long. Expected a key with maximum length 64, but got a key with length 65 instead."},
			{"a 513-character value", map[string]string{"k": strings.Repeat("v", 513)}, "metadata.k", "Invalid 'metadata.k': string too long. Expected a string with maximum length 512, but got a string with length 513 instead."},
			{"a non-string value", map[string]any{"k": 1}, "metadata.k", "Invalid type for 'metadata.k': expected a string, but got an integer instead."},
		}
		for _, c := range cases {
			r := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{"model": "scripted", "metadata": c.metadata})
			wantErrorBody(t, c.name, r, 400, errorBody(c.message, "invalid_request_error", ptr("invalid_request_error"), ptr(c.param)))
		}
	})

	t.Run("model is required", func(t *testing.T) {
		t.Parallel()
		r := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{"name": "x"})
		wantErrorBody(t, "create without model", r, 400,
			errorBody("Missing required parameter: 'model'.", "invalid_request_error", ptr("invalid_request_error"), ptr("model")))
	})
}

// TestAgentUpdateIsAPartialReplacement: supplied members replace the whole member; null name/instructions clear
// them; null or {} metadata clears it; an empty body changes nothing; validation runs before the lookup.
func TestAgentUpdateIsAPartialReplacement(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	create := func(t *testing.T) map[string]any {
		t.Helper()
		r := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{
			"model": "scripted", "name": "n", "instructions": "i", "metadata": map[string]string{"a": "1", "b": "2"},
			"tools": []any{map[string]any{"type": "function", "name": "f", "description": "d", "parameters": map[string]any{"type": "object"}},
				map[string]any{"type": "web_search", "mode": "disabled"}},
			"text": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object"}}, "verbosity": "low"},
		})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		return decodeJSON[map[string]any](t, r.Body)
	}
	update := func(t *testing.T, id string, body any) map[string]any {
		t.Helper()
		r := raw(t, st, http.MethodPost, "/v1/agents/"+id, body)
		if r.Status != http.StatusOK {
			t.Fatalf("update %v: %d %s, want 200", body, r.Status, r.Body)
		}
		got := decodeJSON[map[string]any](t, r.Body)
		get := decodeJSON[map[string]any](t, raw(t, st, http.MethodGet, "/v1/agents/"+id, nil).Body)
		if diff := cmp.Diff(got, get); diff != "" {
			t.Errorf("update response and a later GET differ (-update +get):\n%s", diff)
		}
		return got
	}
	cases := []struct {
		name   string
		body   any
		change func(m map[string]any) // applied to the created agent to give the expected one
	}{
		{"empty body changes nothing", map[string]any{}, func(map[string]any) {}},
		{"null name clears it", map[string]any{"name": nil}, func(m map[string]any) { m["name"] = nil }},
		{"null instructions clears them", map[string]any{"instructions": nil}, func(m map[string]any) { m["instructions"] = nil }},
		{"null metadata clears it", map[string]any{"metadata": nil}, func(m map[string]any) { m["metadata"] = map[string]any{} }},
		{"{} metadata clears it", map[string]any{"metadata": map[string]any{}}, func(m map[string]any) { m["metadata"] = map[string]any{} }},
		{"metadata replaces the whole map", map[string]any{"metadata": map[string]string{"c": "3"}},
			func(m map[string]any) { m["metadata"] = map[string]any{"c": "3"} }},
		{"tools replace the whole list", map[string]any{"tools": []any{map[string]any{"type": "programmatic_tool_calling", "enabled": false}}},
			func(m map[string]any) {
				m["tools"] = []any{map[string]any{"type": "programmatic_tool_calling", "enabled": false}}
			}},
		{"null tools clears them", map[string]any{"tools": nil}, func(m map[string]any) { m["tools"] = []any{} }},
		{"text replaces the nested object whole", map[string]any{"text": map[string]any{"verbosity": "high"}},
			func(m map[string]any) {
				m["text"] = map[string]any{"format": map[string]any{"type": "text"}, "verbosity": "high"}
			}},
		{"model and name change, the rest stays", map[string]any{"model": "other", "name": "renamed"},
			func(m map[string]any) { m["model"], m["name"] = "other", "renamed" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := create(t)
			id := before["id"].(string)
			got := update(t, id, tc.body)
			want := decodeJSON[map[string]any](t, mustJSON(t, before))
			tc.change(want)
			if got["updated_at"].(float64) < before["updated_at"].(float64) {
				t.Errorf("updated_at went back: %v → %v", before["updated_at"], got["updated_at"])
			}
			delete(got, "updated_at")
			delete(want, "updated_at")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("updated agent (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("model cannot be cleared", func(t *testing.T) {
		t.Parallel()
		id := create(t)["id"].(string)
		wantErrorBody(t, "model null", raw(t, st, http.MethodPost, "/v1/agents/"+id, map[string]any{"model": nil}), 400,
			errorBody("Invalid type for 'model': expected a string, but got null instead.", "invalid_request_error", ptr("invalid_request_error"), ptr("model")))
	})
	t.Run("SDK update replaces the supplied fields", func(t *testing.T) {
		t.Parallel()
		a := newAgent(t, ctx, client, "before")
		got, err := client.Beta.Agents.Update(ctx, a.ID, openai.BetaAgentUpdateParams{Name: openai.String("after"), Metadata: map[string]string{"k": "v"}})
		if err != nil {
			t.Fatalf("update: %v", describe(err))
		}
		if got.Name != "after" || got.Metadata["k"] != "v" || len(got.Tools) != 1 {
			t.Errorf("updated agent %s", got.RawJSON())
		}
		got, err = client.Beta.Agents.Update(ctx, a.ID, openai.BetaAgentUpdateParams{}, option.WithJSONSet("name", nil))
		if err != nil {
			t.Fatalf("update name null: %v", describe(err))
		}
		if n := decodeJSON[map[string]any](t, []byte(got.RawJSON()))["name"]; n != nil {
			t.Errorf("name after null = %v, want null", n)
		}
	})
	t.Run("validation runs before the lookup: owned, foreign and missing ids give the same 400", func(t *testing.T) {
		t.Parallel()
		owned := newAgent(t, ctx, client, "")
		foreign := newAgent(t, ctx, stack.OpenAI(st.WithKey(newProjectKey(t, st, "conformance-update"))), "")
		body := map[string]any{"tools": []any{map[string]any{"type": "function", "name": "f", "description": "d"}}}
		want := errorBody("Missing required parameter: 'tools[0].parameters'.", "invalid_request_error", ptr("invalid_request_error"), ptr("tools[0].parameters"))
		for _, id := range []string{owned.ID, foreign.ID, "agent_missing", "bad id"} {
			wantErrorBody(t, "update "+id, raw(t, st, http.MethodPost, "/v1/agents/"+id, body), 400, want)
		}
		_, err := client.Beta.Agents.Update(ctx, "agent_missing", openai.BetaAgentUpdateParams{Name: openai.String("x")})
		wantSDKError(t, "SDK update of a missing agent", err, sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error"})
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAgentListPagesByCursor lists agents of a project of its own (so the count is exact) with limit, after and
// order, and through the SDK's auto-pager over more than one page.
func TestAgentListPagesByCursor(t *testing.T) {
	t.Parallel()
	st, _, ctx := stackClient(t)
	own := st.WithKey(newProjectKey(t, st, "conformance-list-agents"))
	client := stack.OpenAI(own)
	var ids []string
	for range 5 {
		a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted"})
		if err != nil {
			t.Fatalf("create: %v", describe(err))
		}
		ids = append(ids, a.ID)
	}
	// Every agent of the project, ascending, two per page through the auto-pager (3 pages).
	var asc []string
	pager := client.Beta.Agents.ListAutoPaging(ctx, openai.BetaAgentListParams{Limit: openai.Int(2), Order: openai.BetaAgentListParamsOrderAsc})
	for pager.Next() {
		asc = append(asc, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("auto-paging: %v", describe(err))
	}
	if diff := cmp.Diff(ids, asc); diff != "" {
		t.Errorf("ascending auto-paged ids (-created +listed):\n%s", diff)
	}
	// Default order is desc.
	page, err := client.Beta.Agents.List(ctx, openai.BetaAgentListParams{})
	if err != nil {
		t.Fatalf("list: %v", describe(err))
	}
	var desc []string
	for _, a := range page.Data {
		desc = append(desc, a.ID)
	}
	want := slices.Clone(ids)
	slices.Reverse(want)
	if diff := cmp.Diff(want, desc); diff != "" || page.HasMore {
		t.Errorf("default list (desc) has_more=%v (-want +got):\n%s", page.HasMore, diff)
	}
	// A raw page: the envelope with first_id/last_id, has_more and after.
	r := own.Do(t, http.MethodGet, "/v1/agents?limit=2&order=asc&after="+ids[1], nil, nil)
	env := decodeJSON[struct {
		Object  string `json:"object"`
		Data    []struct{ ID string }
		FirstID *string `json:"first_id"`
		LastID  *string `json:"last_id"`
		HasMore bool    `json:"has_more"`
	}](t, r.Body)
	if env.Object != "list" || len(env.Data) != 2 || env.Data[0].ID != ids[2] || env.Data[1].ID != ids[3] ||
		env.FirstID == nil || *env.FirstID != ids[2] || env.LastID == nil || *env.LastID != ids[3] || !env.HasMore {
		t.Errorf("page after %s: %s", ids[1], r.Body)
	}
	// An empty page has null ids.
	r = own.Do(t, http.MethodGet, "/v1/agents?order=asc&after="+ids[4], nil, nil)
	var empty map[string]any
	_ = json.Unmarshal(r.Body, &empty)
	if diff := cmp.Diff(map[string]any{"object": "list", "data": []any{}, "first_id": nil, "last_id": nil, "has_more": false}, empty); diff != "" {
		t.Errorf("empty page (-want +got):\n%s", diff)
	}
	// List query errors.
	bad := func(msg, param string) map[string]any {
		return errorBody(msg, "invalid_request_error", ptr("invalid_request_error"), ptr(param))
	}
	wantErrorBody(t, "limit 0", own.Do(t, http.MethodGet, "/v1/agents?limit=0", nil, nil), 400, bad("limit must be between 1 and 100", "limit"))
	wantErrorBody(t, "limit 101", own.Do(t, http.MethodGet, "/v1/agents?limit=101", nil, nil), 400, bad("limit must be between 1 and 100", "limit"))
	wantErrorBody(t, "repeated limit", own.Do(t, http.MethodGet, "/v1/agents?limit=1&limit=2", nil, nil), 400,
		bad("Failed to deserialize query string: duplicate field `limit`", "limit"))
	wantErrorBody(t, "bad order", own.Do(t, http.MethodGet, "/v1/agents?order=up", nil, nil), 400,
		bad("Failed to deserialize query string: order: unknown variant `up`, expected `asc` or `desc`", "order"))
	if r := own.Do(t, http.MethodGet, "/v1/agents?unknown=1", nil, nil); r.Status != http.StatusOK {
		t.Errorf("unknown query key: %d %s, want 200 (ignored)", r.Status, r.Body)
	}
}

// TestAgentDelete: delete answers agent.deleted; the agent is then 404 everywhere; Sessions created from it keep
// working; a new Session naming it is 404.
func TestAgentDelete(t *testing.T) {
	t.Parallel()
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "doomed")
	s := newSession(t, ctx, client, a.ID, "")

	del, err := client.Beta.Agents.Delete(ctx, a.ID)
	if err != nil {
		t.Fatalf("delete: %v", describe(err))
	}
	if del.ID != a.ID || del.Object != "agent.deleted" || !del.Deleted {
		t.Errorf("delete response %s", del.RawJSON())
	}
	notFound := sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error", Message: "Resource not found."}
	_, err = client.Beta.Agents.Get(ctx, a.ID)
	wantSDKError(t, "get after delete", err, notFound)
	_, err = client.Beta.Agents.Delete(ctx, a.ID)
	wantSDKError(t, "delete again", err, notFound)
	_, err = client.Beta.Agents.Update(ctx, a.ID, openai.BetaAgentUpdateParams{Name: openai.String("x")})
	wantSDKError(t, "update after delete", err, notFound)
	_, err = client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(a.ID), Environment: noneEnvironment})
	wantSDKError(t, "new session naming it", err, notFound)

	// The existing Session keeps its snapshot and still runs turns.
	got := getSession(t, ctx, client, s.ID)
	if got.Agent["id"] != a.ID || got.Agent["name"] != "doomed" {
		t.Errorf("session snapshot after the agent's deletion: %+v", got.Agent)
	}
	postEvents(t, ctx, client, s.ID, userMessage("hello after delete"))
	waitSession(t, ctx, client, s.ID, "idle after a turn", func(s wireSession) bool { return s.Status == "idle" })
	if turns := listTurns(t, ctx, client, s.ID); len(turns) != 1 || turns[0].Status != "completed" {
		t.Errorf("turns of the session after the agent's deletion: %+v, want one completed", turns)
	}
}
