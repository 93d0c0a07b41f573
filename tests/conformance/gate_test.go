package conformance_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// The request gate (docs/agents-api.md §1.1; docs/decisions.md §4): the beta header, bearer keys bound to a
// project, identical 404s, 405 with Allow, unknown routes, X-Request-Id, and the JSON body gate.

const betaMessage = "To access the Agents API, set the 'OpenAI-Beta' header to 'agents=v1'."

func TestBetaHeaderMustBeExactlyAgentsV1(t *testing.T) {
	t.Parallel()
	st, _, ctx := stackClient(t)
	want := errorBody(betaMessage, "invalid_beta", ptr("invalid_beta"), nil)
	cases := []struct {
		name string
		beta []string
	}{
		{"missing header is 400 invalid_beta", nil},
		{"agents=v0 is 400 invalid_beta", []string{"agents=v0"}},
		{"repeated header is 400 invalid_beta", []string{"agents=v1", "agents=v1"}},
		{"empty value is 400 invalid_beta", []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{"Authorization": {"Bearer " + st.APIKey}}
			if tc.beta != nil {
				h["Openai-Beta"] = tc.beta
			}
			for _, path := range []string{"/v1/agents", "/v1/agents/sessions", "/v1/agents/agent_x"} {
				r := rawRequest(t, st, http.MethodGet, path, nil, h)
				wantErrorBody(t, "GET "+path, r, http.StatusBadRequest, want)
			}
			// The beta check runs before authentication: a bad key with a bad header is still invalid_beta.
			h.Set("Authorization", "Bearer wrong")
			r := rawRequest(t, st, http.MethodGet, "/v1/agents", nil, h)
			wantErrorBody(t, "GET /v1/agents with a bad key", r, http.StatusBadRequest, want)
		})
	}
	t.Run("the SDK sees invalid_beta as *openai.Error", func(t *testing.T) {
		t.Parallel()
		client := stack.OpenAI(st, option.WithHeader("OpenAI-Beta", "agents=v0"))
		_, err := client.Beta.Agents.List(ctx, openai.BetaAgentListParams{})
		wantSDKError(t, "list agents", err, sdkError{Status: 400, Type: "invalid_beta", Code: "invalid_beta", Message: betaMessage})
	})
}

func TestBearerKeyIsRequired(t *testing.T) {
	t.Parallel()
	st, _, ctx := stackClient(t)
	want := errorBody("A valid Agents API bearer key is required.", "invalid_request_error", nil, nil)
	cases := []struct {
		name          string
		authorization string
	}{
		{"missing Authorization is 401", ""},
		{"unknown key is 401", "Bearer sk-unknown-key-000000"},
		{"another scheme is 401", "Basic " + st.APIKey},
		{"empty bearer is 401", "Bearer "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{"Openai-Beta": {"agents=v1"}}
			if tc.authorization != "" {
				h.Set("Authorization", tc.authorization)
			}
			r := rawRequest(t, st, http.MethodGet, "/v1/agents", nil, h)
			wantErrorBody(t, "GET /v1/agents", r, http.StatusUnauthorized, want)
			if got := r.Header.Get("WWW-Authenticate"); got != "Bearer" {
				t.Errorf("WWW-Authenticate = %q, want Bearer", got)
			}
		})
	}
	t.Run("the SDK with an unknown key gets 401", func(t *testing.T) {
		t.Parallel()
		client := stack.OpenAI(st, option.WithAPIKey("sk-unknown-key-000000"))
		_, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted"})
		wantSDKError(t, "create agent", err, sdkError{Status: 401, Type: "invalid_request_error", Message: "A valid Agents API bearer key is required."})
	})
}

// TestMissingMalformedAndForeignResourcesAnswerTheIdenticalNotFound replays every route that names a resource with
// a missing id, a malformed id and another project's id, and requires byte-identical 404 bodies that name nothing.
func TestMissingMalformedAndForeignResourcesAnswerTheIdenticalNotFound(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)

	// Project B owns an agent and a session with a finished turn; project A (the stack's key) owns its own.
	keyB := newProjectKey(t, st, "conformance-foreign")
	stB := st.WithKey(keyB)
	clientB := stack.OpenAI(stB)
	agentB := newAgent(t, ctx, clientB, "")
	sessB := newSession(t, ctx, clientB, agentB.ID, "hello")
	waitSession(t, ctx, clientB, sessB.ID, "idle", hasStatus("idle"))
	turnB := listTurns(t, ctx, clientB, sessB.ID)[0].ID

	agentA := newAgent(t, ctx, client, "")
	sessA := newSession(t, ctx, client, agentA.ID, "hello")
	waitSession(t, ctx, client, sessA.ID, "idle", hasStatus("idle"))

	reference := []byte(`{"error":{"message":"Resource not found.","type":"not_found_error","code":"not_found_error","param":null}}`)
	message := map[string]any{"events": []any{map[string]any{"type": "agent.session.input.message",
		"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}}}}}
	type route struct {
		method, path string
		body         any
	}
	routes := func(agentID, sessionID, turnID string) []route {
		s := "/v1/agents/sessions/" + sessionID
		return []route{
			{http.MethodPost, "/v1/agents/sessions", map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"}}},
			{http.MethodGet, "/v1/agents/" + agentID, nil},
			{http.MethodPost, "/v1/agents/" + agentID, map[string]any{"name": "x"}},
			{http.MethodDelete, "/v1/agents/" + agentID, nil},
			{http.MethodGet, s, nil},
			{http.MethodPost, s, map[string]any{"metadata": map[string]string{"k": "v"}}},
			{http.MethodDelete, s, nil},
			{http.MethodPost, s + "/events", message},
			{http.MethodPost, s + "/events", map[string]any{"events": []any{}}},
			{http.MethodGet, s + "/events", nil},
			{http.MethodGet, s + "/turns", nil},
			{http.MethodGet, s + "/turns/" + turnID, nil},
			{http.MethodGet, s + "/items", nil},
			{http.MethodGet, s + "/turns/" + turnID + "/items", nil},
		}
	}
	ids := []struct {
		name                       string
		agentID, sessionID, turnID string
	}{
		{"missing ids", "agent_0000000000000000000000000000", "sess_0000000000000000000000000000", "turn_0000000000000000000000000000"},
		{"malformed ids", "not-an-id", "x", "%2E%2E"},
		{"another project's ids", agentB.ID, sessB.ID, turnB},
	}
	for _, id := range ids {
		t.Run(id.name+" answer the identical 404 on every route", func(t *testing.T) {
			t.Parallel()
			for _, rt := range routes(id.agentID, id.sessionID, id.turnID) {
				r := raw(t, st, rt.method, rt.path, rt.body)
				if r.Status != http.StatusNotFound || !bytes.Equal(r.Body, reference) {
					t.Errorf("%s %s: %d %s, want 404 %s", rt.method, rt.path, r.Status, r.Body, reference)
				}
			}
		})
	}
	t.Run("own session with a missing, malformed or other session's turn answers the identical 404", func(t *testing.T) {
		t.Parallel()
		otherA := newSession(t, ctx, client, agentA.ID, "")
		for _, turnID := range []string{"turn_0000000000000000000000000000", "bad", turnB} {
			for _, sid := range []string{sessA.ID, otherA.ID} {
				for _, path := range []string{"/turns/" + turnID, "/turns/" + turnID + "/items"} {
					r := raw(t, st, http.MethodGet, "/v1/agents/sessions/"+sid+path, nil)
					if r.Status != http.StatusNotFound || !bytes.Equal(r.Body, reference) {
						t.Errorf("GET %s%s: %d %s, want 404 %s", sid, path, r.Status, r.Body, reference)
					}
				}
			}
		}
	})
	t.Run("the SDK sees not_found_error", func(t *testing.T) {
		t.Parallel()
		_, err := client.Beta.Agents.Get(ctx, agentB.ID)
		wantSDKError(t, "get foreign agent", err, sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error", Message: "Resource not found."})
		_, err = client.Beta.Agents.Sessions.Get(ctx, sessB.ID)
		wantSDKError(t, "get foreign session", err, sdkError{Status: 404, Type: "not_found_error", Code: "not_found_error", Message: "Resource not found."})
	})
	t.Run("project B still sees its own resources", func(t *testing.T) {
		t.Parallel()
		if _, err := clientB.Beta.Agents.Sessions.Turns.Get(ctx, sessB.ID, turnB); err != nil {
			t.Errorf("project B GET own turn: %v", describe(err))
		}
	})
}

func TestUnsupportedMethodIs405WithAllow(t *testing.T) {
	t.Parallel()
	st, _, _ := stackClient(t)
	cases := []struct {
		name, method, path, allow string
	}{
		{"PUT on agents", http.MethodPut, "/v1/agents", "GET, HEAD, POST"},
		{"PATCH on an agent", http.MethodPatch, "/v1/agents/agent_x", "GET, HEAD, POST, DELETE"},
		{"DELETE on sessions", http.MethodDelete, "/v1/agents/sessions", "GET, HEAD, POST"},
		{"PUT on a session", http.MethodPut, "/v1/agents/sessions/sess_x", "GET, HEAD, POST, DELETE"},
		{"HEAD on the event stream", http.MethodHead, "/v1/agents/sessions/sess_x/events", "GET, POST"},
		{"DELETE on the event stream", http.MethodDelete, "/v1/agents/sessions/sess_x/events", "GET, POST"},
		{"POST on turns", http.MethodPost, "/v1/agents/sessions/sess_x/turns", "GET, HEAD"},
		{"DELETE on a turn", http.MethodDelete, "/v1/agents/sessions/sess_x/turns/turn_x", "GET, HEAD"},
		{"POST on items", http.MethodPost, "/v1/agents/sessions/sess_x/items", "GET, HEAD"},
		{"POST on turn items", http.MethodPost, "/v1/agents/sessions/sess_x/turns/turn_x/items", "GET, HEAD"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is 405 with Allow "+tc.allow, func(t *testing.T) {
			t.Parallel()
			r := rawRequest(t, st, tc.method, tc.path, nil, apiHeader(st))
			if got := r.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
			if tc.method == http.MethodHead {
				if r.Status != http.StatusMethodNotAllowed {
					t.Errorf("status %d, want 405", r.Status)
				}
				return
			}
			wantErrorBody(t, tc.method+" "+tc.path, r, http.StatusMethodNotAllowed,
				errorBody("This API method is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil))
		})
	}
}

func TestHeadRunsTheGetWithoutABody(t *testing.T) {
	t.Parallel()
	st, _, _ := stackClient(t)
	for _, path := range []string{"/v1/agents", "/v1/agents/sessions"} {
		r := rawRequest(t, st, http.MethodHead, path, nil, apiHeader(st))
		if r.Status != http.StatusOK || len(r.Body) != 0 || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("HEAD %s: %d %q %q, want 200 application/json without a body", path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
}

// TestKeysAreStoredHashed: no item of the table holds a project API key in clear (docs/decisions.md §4).
func TestKeysAreStoredHashed(t *testing.T) {
	t.Parallel()
	st, _, _ := stackClient(t)
	key := newProjectKey(t, st, "conformance-hashed")
	for k, v := range stack.Snapshot(t, st) {
		if strings.Contains(v, key) || strings.Contains(v, st.APIKey) || strings.Contains(k, key) || strings.Contains(k, st.APIKey) {
			t.Errorf("item %s holds an API key in clear", k)
		}
	}
}

func TestUnknownRouteIs404UnsupportedOperation(t *testing.T) {
	t.Parallel()
	st, _, _ := stackClient(t)
	want := errorBody("This API route is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil)
	for _, path := range []string{
		"/v1/agents/sessions/sess_x/unknown",
		"/v1/agents/sessions/sess_x/turns/turn_x/items/extra",
		"/v1/agents/",
		"/v1/agents/sessions/",
		"/v1/unknown",
		"/v2/agents",
	} {
		t.Run(path+" is 404 unsupported_operation", func(t *testing.T) {
			t.Parallel()
			r := rawRequest(t, st, http.MethodGet, path, nil, apiHeader(st))
			wantErrorBody(t, "GET "+path, r, http.StatusNotFound, want)
		})
	}
}

// TestEveryResponseCarriesAFreshRequestID checks X-Request-Id on success, error, 202 and SSE responses; it never
// echoes a caller's value.
func TestEveryResponseCarriesAFreshRequestID(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")
	seen := map[string]bool{}
	check := func(what string, h http.Header) {
		t.Helper()
		if h.Get("OpenAI-Version") != "2020-10-01" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("OpenAI-Processing-Ms") == "" {
			t.Errorf("%s: OpenAI-Version %q, X-Content-Type-Options %q, OpenAI-Processing-Ms %q", what, h.Get("OpenAI-Version"),
				h.Get("X-Content-Type-Options"), h.Get("OpenAI-Processing-Ms"))
		}
		if h.Get("Content-Type") == "application/json" && h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: JSON response with Cache-Control %q, want no-store", what, h.Get("Cache-Control"))
		}
		id := h.Get("X-Request-Id")
		if !requestIDPattern.MatchString(id) {
			t.Errorf("%s: X-Request-Id %q, want req_<32 lowercase hex>", what, id)
		}
		if seen[id] {
			t.Errorf("%s: X-Request-Id %q repeated", what, id)
		}
		seen[id] = true
	}
	callerID := map[string]string{"X-Request-Id": "req_0123456789abcdef0123456789abcdef"}
	check("200 GET agent", st.Do(t, http.MethodGet, "/v1/agents/"+a.ID, nil, callerID).Header)
	check("404 GET agent", st.Do(t, http.MethodGet, "/v1/agents/agent_missing", nil, callerID).Header)
	check("401", st.Do(t, http.MethodGet, "/v1/agents", nil, map[string]string{"Authorization": ""}).Header)
	check("400 beta", st.Do(t, http.MethodGet, "/v1/agents", nil, map[string]string{"OpenAI-Beta": "agents=v0"}).Header)
	check("405", st.Do(t, http.MethodPut, "/v1/agents", nil, nil).Header)
	check("404 route", st.Do(t, http.MethodGet, "/v1/nothing", nil, nil).Header)
	check("201 POST agent", st.Do(t, http.MethodPost, "/v1/agents", map[string]any{"model": "m"}, nil).Header)
	r := st.Do(t, http.MethodPost, "/v1/agents/sessions/"+s.ID+"/events", map[string]any{"events": []any{}}, nil)
	if r.Status != http.StatusAccepted || len(r.Body) != 0 {
		t.Errorf("empty batch: %d %q, want 202 with an empty body", r.Status, r.Body)
	}
	check("202 POST events", r.Header)

	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(sctx, http.MethodGet, st.APIURL+"/v1/agents/sessions/"+s.ID+"/events", nil)
	req.Header = apiHeader(st)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("open stream: %v", err)
	}
	resp.Body.Close()
	check("200 SSE", resp.Header)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("SSE Content-Type %q, want text/event-stream", ct)
	}
}

// TestJSONBodyGate runs the body gate cases of docs/agents-api.md §1.1 in their documented order; each is
// 400 invalid_request_error (413 request_too_large for sizes) with a null param.
func TestJSONBodyGate(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")
	const (
		mib             = 1 << 20
		contentType     = "The request body must be JSON: set the Content-Type header to application/json."
		invalidUTF8     = "The request body is not valid UTF-8."
		malformed       = "We could not parse the JSON body of your request. The body must be exactly one valid JSON value."
		notObject       = "The request body must be a JSON object."
		agentsPath      = "/v1/agents"
		sessionsPath    = "/v1/agents/sessions"
		missingModel    = "Missing required parameter: 'model'."
		noUpdateField   = "At least one update field is required."
		tooLargeDefault = "The request body exceeds the maximum size of 1048576 bytes."
		tooLargeSession = "The request body exceeds the maximum size of 16777216 bytes."
	)
	pad := func(prefix string, n int) []byte { // a JSON object of exactly n bytes, padded with spaces
		b := []byte(prefix)
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	bad := func(msg string) map[string]any {
		return errorBody(msg, "invalid_request_error", ptr("invalid_request_error"), nil)
	}
	badParam := func(msg, param string) map[string]any { // a validation error after the gate names its member
		return errorBody(msg, "invalid_request_error", ptr("invalid_request_error"), ptr(param))
	}
	tooLarge := func(msg string) map[string]any {
		return errorBody(msg, "invalid_request_error", ptr("request_too_large"), nil)
	}
	cases := []struct {
		name        string
		path        string
		contentType string // "-" = none
		body        []byte
		status      int
		want        map[string]any // nil: only status is checked
	}{
		{"missing Content-Type with a body is rejected", agentsPath, "-", []byte(`{"model":"m"}`), 400, bad(contentType)},
		{"text/plain is rejected", agentsPath, "text/plain", []byte(`{"model":"m"}`), 400, bad(contentType)},
		{"Content-Type is checked before size", agentsPath, "text/plain", pad(`{}`, mib+1), 400, bad(contentType)},
		{"application/*+json is accepted", agentsPath, "application/merge-patch+json", []byte(`{"model":"m"}`), 201, nil},
		{"Content-Type is case-insensitive with parameters", agentsPath, "Application/JSON; charset=utf-8", []byte(`{"model":"m"}`), 201, nil},
		{"1 MiB is accepted", agentsPath, "", pad(`{"model":"m"}`, mib), 201, nil},
		{"1 MiB + 1 is 413", agentsPath, "", pad(`{"model":"m"}`, mib+1), 413, tooLarge(tooLargeDefault)},
		{"size is checked before UTF-8", agentsPath, "", append(pad(`{"model":"m"}`, mib), 0xff), 413, tooLarge(tooLargeDefault)},
		{"session create accepts more than 1 MiB", sessionsPath, "", pad(`{"environment":{"type":"none"},"agent":{"model":"m"},"bogus":1}`, 2*mib), 400,
			badParam("Unknown parameter: 'bogus'.", "bogus")},
		{"session create 16 MiB + 1 is 413", sessionsPath, "", pad(`{"environment":{"type":"none"},"agent":{"model":"m"}}`, 16*mib+1), 413, tooLarge(tooLargeSession)},
		{"events POST 1 MiB + 1 is 413", "/v1/agents/sessions/" + s.ID + "/events", "", pad(`{"events":[]}`, mib+1), 413, tooLarge(tooLargeDefault)},
		{"invalid UTF-8 is rejected", agentsPath, "", []byte("{\"model\":\"\xff\"}"), 400, bad(invalidUTF8)},
		{"UTF-8 is checked before syntax", agentsPath, "", []byte("{\"model\":\"\xff\""), 400, bad(invalidUTF8)},
		{"trailing data is malformed", agentsPath, "", []byte(`{"model":"m"} x`), 400, bad(malformed)},
		{"two values are malformed", agentsPath, "", []byte(`{"model":"m"}{"model":"n"}`), 400, bad(malformed)},
		{"a BOM is malformed", agentsPath, "", []byte("\xef\xbb\xbf{\"model\":\"m\"}"), 400, bad(malformed)},
		{"whitespace only is malformed", agentsPath, "", []byte("  \n "), 400, bad(malformed)},
		{"a lone surrogate escape is malformed", agentsPath, "", []byte(`{"model":"\ud800"}`), 400, bad(malformed)},
		{"a truncated document is malformed", agentsPath, "", []byte(`{"model":`), 400, bad(malformed)},
		{"syntax is checked before duplicates", agentsPath, "", []byte(`{"model":"m","model":"n"`), 400, bad(malformed)},
		{"a duplicate key at the root names it", agentsPath, "", []byte(`{"model":"m","model":"n"}`), 400, bad("Duplicate parameter: 'model'.")},
		{"a duplicate key at depth names its path", agentsPath, "",
			[]byte(`{"model":"m","tools":[{"type":"function","name":"a","description":"d","parameters":{"type":"object","properties":{"x":{},"x":{}}}}]}`),
			400, bad("Duplicate parameter: 'tools[0].parameters.properties.x'.")},
		{"duplicates are checked before the root kind", agentsPath, "", []byte(`[{"a":1,"a":2}]`), 400, bad("Duplicate parameter: '[0].a'.")},
		{"an array root is rejected", agentsPath, "", []byte(`[]`), 400, bad(notObject)},
		{"a string root is rejected", agentsPath, "", []byte(`"x"`), 400, bad(notObject)},
		{"a number root is rejected", agentsPath, "", []byte(`1`), 400, bad(notObject)},
		{"an empty body is {}", agentsPath, "", nil, 400, badParam(missingModel, "model")},
		{"an empty body without Content-Type is {}", agentsPath, "-", nil, 400, badParam(missingModel, "model")},
		{"null is {}", agentsPath, "", []byte(`null`), 400, badParam(missingModel, "model")},
		{"an empty session update body is {}", "/v1/agents/sessions/" + s.ID, "", nil, 400, bad(noUpdateField)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := apiHeader(st)
			switch tc.contentType {
			case "-":
				h.Del("Content-Type")
			case "":
			default:
				h.Set("Content-Type", tc.contentType)
			}
			body := tc.body
			if body == nil {
				body = []byte{}
			}
			r := rawRequest(t, st, http.MethodPost, tc.path, body, h)
			if tc.want == nil {
				if r.Status != tc.status {
					t.Errorf("status %d %s, want %d", r.Status, truncate(r.Body), tc.status)
				}
				return
			}
			wantErrorBody(t, "POST "+tc.path, r, tc.status, tc.want)
		})
	}
}

func truncate(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return strings.TrimSpace(s)
}
