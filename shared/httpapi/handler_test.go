package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

const (
	testKey      = "sk-test-key-1"
	testAdminKey = "admin-key-1"
)

type fixture struct {
	store *fakeStore
	eng   *engine.Engine
	h     http.Handler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := newFakeStore()
	eng := engine.New(engine.Options{Store: st})
	if err := eng.ProvisionKey(context.Background(), "proj_1", testKey); err != nil {
		t.Fatal(err)
	}
	h := New(eng, Options{
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		PollInterval:      5 * time.Millisecond,
		KeepAliveInterval: 20 * time.Millisecond,
		MaxStreamDuration: 2 * time.Second,
		AdminKey:          testAdminKey,
	})
	return &fixture{store: st, eng: eng, h: h}
}

// do sends an Agents API request with the beta header and the test key unless headers override them.
func (f *fixture) do(method, path, body string, headers ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	r.Header.Set("OpenAI-Beta", "agents=v1")
	r.Header.Set("Authorization", "Bearer "+testKey)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
		} else {
			r.Header.Add(headers[i], headers[i+1])
		}
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

type wireError struct {
	Status  int
	Message string
	Type    string
	Code    *string
	Param   *string
}

func errorOf(t *testing.T, w *httptest.ResponseRecorder) wireError {
	t.Helper()
	var body struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
			Param   *string `json:"param"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	e := body.Error
	return wireError{w.Code, e.Message, e.Type, e.Code, e.Param}
}

func ptr(s string) *string { return &s }

var requestIDPattern = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

func TestRequestGate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	beta := wireError{400, "To access the Agents API, set the 'OpenAI-Beta' header to 'agents=v1'.", "invalid_beta", ptr("invalid_beta"), nil}
	unauth := wireError{401, "A valid Agents API bearer key is required.", "invalid_request_error", nil, nil}
	cases := []struct {
		name    string
		method  string
		path    string
		headers []string
		want    wireError
	}{
		{"missing beta header is invalid_beta", "GET", "/v1/agents", []string{"OpenAI-Beta", ""}, beta},
		{"other beta version is invalid_beta", "GET", "/v1/agents", []string{"OpenAI-Beta", "", "OpenAI-Beta", "agents=v0"}, beta},
		{"repeated beta header is invalid_beta", "GET", "/v1/agents", []string{"OpenAI-Beta", "agents=v1"}, beta},
		{"beta is checked before authentication", "GET", "/v1/agents", []string{"OpenAI-Beta", "", "Authorization", ""}, beta},
		{"missing key is 401", "GET", "/v1/agents", []string{"Authorization", ""}, unauth},
		{"unknown key is 401", "GET", "/v1/agents", []string{"Authorization", "", "Authorization", "Bearer nope"}, unauth},
		{"unknown agents route is 404 unsupported_operation", "GET", "/v1/agents/sessions/s/bogus", nil, wireError{404, "This API route is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil}},
		{"trailing slash is an unknown route", "GET", "/v1/agents/", nil, wireError{404, "This API route is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil}},
		{"other v1 route is 404 unsupported_operation", "GET", "/v1/responses", []string{"OpenAI-Beta", ""}, wireError{404, "This API route is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil}},
		{"wrong method is 405", "PUT", "/v1/agents", nil, wireError{405, "This API method is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil}},
		{"HEAD on the event stream is 405", "HEAD", "/v1/agents/sessions/s/events", nil, wireError{405, "This API method is not supported.", "invalid_request_error", ptr("unsupported_operation"), nil}},
		{"missing agent is 404 not_found_error", "GET", "/v1/agents/agent_nope", nil, wireError{404, "Resource not found.", "not_found_error", ptr("not_found_error"), nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := f.do(tc.method, tc.path, "", tc.headers...)
			if tc.method == "HEAD" {
				// HEAD responses carry no body; check status and Allow only.
				if w.Code != tc.want.Status || w.Header().Get("Allow") != "GET, POST" {
					t.Errorf("HEAD: status %d Allow %q", w.Code, w.Header().Get("Allow"))
				}
				return
			}
			if diff := cmp.Diff(tc.want, errorOf(t, w)); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			h := w.Header()
			if !requestIDPattern.MatchString(h.Get("X-Request-Id")) {
				t.Errorf("X-Request-Id = %q", h.Get("X-Request-Id"))
			}
			for k, v := range map[string]string{"OpenAI-Version": openAIVersion, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Content-Type": "application/json"} {
				if h.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, h.Get(k), v)
				}
			}
			if tc.want.Status == 401 && h.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("WWW-Authenticate = %q", h.Get("WWW-Authenticate"))
			}
			if tc.want.Status == 405 && h.Get("Allow") != "GET, HEAD, POST" {
				t.Errorf("Allow = %q", h.Get("Allow"))
			}
		})
	}
}

func TestKeyStoreFailureIsAuthenticationUnavailable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.store.failAuth = errors.New("table unreachable")
	got := errorOf(t, f.do("GET", "/v1/agents", ""))
	want := wireError{503, "Authentication is temporarily unavailable.", "server_error", ptr("authentication_unavailable"), nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorWriter(t *testing.T) {
	t.Parallel()
	a := New(nil, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).(*api)
	cases := []struct {
		name      string
		err       error
		want      wireError
		wantRetry string
	}{
		{"engine error keeps its fields", &engine.Error{Status: 400, Code: "invalid_request_error", Message: "m", Param: "tools[0]"}, wireError{400, "m", "invalid_request_error", ptr("invalid_request_error"), ptr("tools[0]")}, ""},
		{"wrapped engine error is unwrapped", fmt.Errorf("x: %w", &engine.Error{Status: 400, Code: "unsupported_or_invalid_configuration", Message: "m"}), wireError{400, "m", "invalid_request_error", ptr("unsupported_or_invalid_configuration"), nil}, ""},
		{"409 is conflict_error and not retried", &engine.Error{Status: 409, Code: "idempotency_conflict", Message: "m", NoRetry: true}, wireError{409, "m", "conflict_error", ptr("idempotency_conflict"), nil}, "false"},
		{"5xx is server_error", &engine.Error{Status: 503, Code: "execution_unavailable", Message: "m"}, wireError{503, "m", "server_error", ptr("execution_unavailable"), nil}, ""},
		{"not found sentinel is not_found_error", fmt.Errorf("get: %w", engine.ErrNotFound), wireError{404, "Resource not found.", "not_found_error", ptr("not_found_error"), nil}, ""},
		{"internal error is generic", errors.New("dynamodb: secret table arn"), wireError{500, messageInternal, "server_error", ptr("internal_error"), nil}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			a.writeError(w, httptest.NewRequest("GET", "/", nil), tc.err)
			if diff := cmp.Diff(tc.want, errorOf(t, w)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got := w.Header().Get("x-should-retry"); got != tc.wantRetry {
				t.Errorf("x-should-retry = %q, want %q", got, tc.wantRetry)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		query   string
		clamp   bool
		want    engine.Page
		wantErr string
	}{
		{"defaults", "", false, engine.Page{Limit: 20, Order: "desc"}, ""},
		{"all parameters", "after=agent_1&limit=100&order=asc&foo=1&foo=2", false, engine.Page{After: "agent_1", Limit: 100, Order: "asc"}, ""},
		{"limit 0 is rejected", "limit=0", false, engine.Page{}, "limit must be between 1 and 100"},
		{"limit 101 is rejected", "limit=101", false, engine.Page{}, "limit must be between 1 and 100"},
		{"items clamp limit 0 to 1", "limit=0", true, engine.Page{Limit: 1, Order: "desc"}, ""},
		{"items clamp limit 500 to 100", "limit=500", true, engine.Page{Limit: 100, Order: "desc"}, ""},
		{"non-integer limit is rejected", "limit=ten", true, engine.Page{}, "Failed to deserialize query string: limit: invalid digit found in string"},
		{"bad order is rejected", "order=up", false, engine.Page{}, "Failed to deserialize query string: order: unknown variant `up`, expected `asc` or `desc`"},
		{"repeated key is rejected", "limit=1&limit=2", false, engine.Page{}, "Failed to deserialize query string: duplicate field `limit`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := parseList(httptest.NewRequest("GET", "/v1/agents?"+tc.query, nil), tc.clamp)
			if tc.wantErr != "" {
				var e *engine.Error
				if !errors.As(err, &e) || e.Status != 400 || e.Message != tc.wantErr || e.Code != "invalid_request_error" {
					t.Fatalf("err = %v, want 400 %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, q.page); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
	return v
}

func TestAgentRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.do("POST", "/v1/agents", `{"model":"m","name":"n","tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object"}}]}`)
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	ag := decode[map[string]any](t, w)
	id := ag["id"].(string)
	if ag["object"] != "agent" || ag["name"] != "n" {
		t.Errorf("created agent: %v", ag)
	}
	if w := f.do("POST", "/v1/agents/"+id, `{"name":null}`); w.Code != 200 || decode[map[string]any](t, w)["name"] != nil {
		t.Errorf("update: %d %s", w.Code, w.Body)
	}
	list := decode[map[string]any](t, f.do("GET", "/v1/agents?limit=1", ""))
	if list["object"] != "list" || list["first_id"] != id || list["last_id"] != id || list["has_more"] != false {
		t.Errorf("list: %v", list)
	}
	if w := f.do("POST", "/v1/agents/"+id, `{"tools":[{"type":"nope"}]}`); w.Code != 400 {
		t.Errorf("invalid update: %d", w.Code)
	}
	if w := f.do("POST", "/v1/agents/agent_missing", `{"tools":[{"type":"nope"}]}`); w.Code != 400 {
		t.Errorf("invalid update of a missing agent is validated first: %d", w.Code)
	}
	if w := f.do("DELETE", "/v1/agents/"+id, ""); w.Code != 200 || w.Body.String() != `{"id":"`+id+`","object":"agent.deleted","deleted":true}` {
		t.Errorf("delete: %d %s", w.Code, w.Body)
	}
	if w := f.do("DELETE", "/v1/agents/"+id, ""); w.Code != 404 {
		t.Errorf("second delete: %d", w.Code)
	}
	empty := f.do("GET", "/v1/agents", "").Body.String()
	if empty != `{"object":"list","data":[],"first_id":null,"last_id":null,"has_more":false}` {
		t.Errorf("empty list: %s", empty)
	}
}

func TestSessionRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"m"},"environment":{"type":"none"},"metadata":{"a":"b"}}`, "Idempotency-Key", "k1")
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	s := decode[map[string]any](t, w)
	id := s["id"].(string)
	if s["status"] != "idle" || s["object"] != "agent.session" {
		t.Errorf("session: %v", s)
	}
	if w := f.do("POST", "/v1/agents/sessions", `{"environment":{"type":"none"},"agent":{"model":"m"},"metadata":{"a":"b"}}`, "Idempotency-Key", "k1"); w.Code != 201 || decode[map[string]any](t, w)["id"] != id {
		t.Errorf("same-key retry with reordered members: %d %s", w.Code, w.Body)
	}
	if got := errorOf(t, f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"other"},"environment":{"type":"none"}}`, "Idempotency-Key", "k1")); got.Status != 409 || *got.Code != "idempotency_conflict" {
		t.Errorf("same key, different body: %+v", got)
	}
	if got := errorOf(t, f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"m"},"environment":{"type":"none"}}`, "Idempotency-Key", strings.Repeat("k", 129))); got.Status != 400 {
		t.Errorf("long key: %+v", got)
	}
	if w := f.do("POST", "/v1/agents/sessions/"+id, `{"metadata":null}`); w.Code != 200 || fmt.Sprint(decode[map[string]any](t, w)["metadata"]) != "map[]" {
		t.Errorf("update: %d %s", w.Code, w.Body)
	}
	if w := f.do("POST", "/v1/agents/sessions/"+id+"/events", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}]}`); w.Code != 202 || w.Body.Len() != 0 {
		t.Errorf("post events: %d %q", w.Code, w.Body)
	}
	turns := decode[map[string]any](t, f.do("GET", "/v1/agents/sessions/"+id+"/turns", ""))
	data := turns["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("turns: %v", turns)
	}
	turnID := data[0].(map[string]any)["id"].(string)
	if w := f.do("GET", "/v1/agents/sessions/"+id+"/turns/"+turnID, ""); w.Code != 200 {
		t.Errorf("get turn: %d", w.Code)
	}
	items := decode[map[string]any](t, f.do("GET", "/v1/agents/sessions/"+id+"/turns/"+turnID+"/items?order=asc&limit=0", ""))
	if len(items["data"].([]any)) != 1 || items["last_id"] == nil {
		t.Errorf("turn items: %v", items)
	}
	if got := errorOf(t, f.do("DELETE", "/v1/agents/sessions/"+id, "")); got.Status != 409 || got.Type != "conflict_error" {
		t.Errorf("delete busy session: %+v", got)
	}
	if got := errorOf(t, f.do("POST", "/v1/agents/sessions/"+id+"/events", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"`+turnID+`","call_id":"call_x","success":true}]}`)); got.Status != 400 || got.Message != "Unknown pending tool call: call_x" || *got.Code != "invalid_request_error" {
		t.Errorf("unknown call: %+v", got)
	}
	if w := f.do("POST", "/v1/agents/sessions/"+id+"/events", `{"events":[{"type":"agent.session.input.cancel"}]}`); w.Code != 202 {
		t.Errorf("cancel: %d %s", w.Code, w.Body)
	}
	if w := f.do("DELETE", "/v1/agents/sessions/"+id, ""); w.Code != 200 {
		t.Errorf("delete: %d %s", w.Code, w.Body)
	}
	if w := f.do("GET", "/v1/agents/sessions/"+id, ""); w.Code != 404 {
		t.Errorf("get deleted: %d", w.Code)
	}
}

// sseEvent is one parsed SSE frame.
type sseEvent struct {
	Event, ID, Data string
}

func readSSE(t *testing.T, body io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			cur.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func types(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

func TestCreationStreamEndsAfterIdle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/agents/sessions", strings.NewReader(`{"agent":{"model":"m"},"environment":{"type":"none"},"input":"hi","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("OpenAI-Beta", "agents=v1")
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// Cancel the queued turn from the side: the stream then carries the cancel sequence and ends at idle.
	done := make(chan []sseEvent)
	go func() { done <- readSSE(t, resp.Body) }()
	var sid string
	deadline := time.Now().Add(time.Second)
	for sid == "" && time.Now().Before(deadline) {
		for id := range snapshotSessions(f.store) {
			sid = id
		}
		time.Sleep(5 * time.Millisecond)
	}
	if w := f.do("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[{"type":"agent.session.input.cancel"}]}`); w.Code != 202 {
		t.Fatalf("cancel: %d %s", w.Code, w.Body)
	}
	select {
	case evs := <-done:
		want := []string{session.EventSessionCreated, session.EventTurnCreated, session.EventItemAdded, session.EventSessionInProgress,
			session.EventSessionInProgress, session.EventTurnCancelled, session.EventSessionIdle}
		if diff := cmp.Diff(want, types(evs)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		for _, e := range evs {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(e.Data), &m); err != nil {
				t.Fatal(err)
			}
			if _, bad := m["error"]; bad {
				t.Errorf("event %s has a top-level error key", e.Event)
			}
			if string(m["event_id"]) != `"`+e.ID+`"` {
				t.Errorf("id line %q does not match event_id %s", e.ID, m["event_id"])
			}
		}
	case <-time.After(3 * time.Second):
		t.Fatal("creation stream did not end after idle")
	}
}

func snapshotSessions(st *fakeStore) map[string]bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[string]bool{}
	for id := range st.sessions {
		out[id] = true
	}
	return out
}

func TestEventStreamIsLiveAndResumesFromLastEventID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"m"},"environment":{"type":"none"},"input":"hi"}`)
	sid := decode[map[string]any](t, w)["id"].(string)
	srv := httptest.NewServer(f.h)
	defer srv.Close()

	open := func(lastEventID string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/agents/sessions/"+sid+"/events", nil)
		req.Header.Set("OpenAI-Beta", "agents=v1")
		req.Header.Set("Authorization", "Bearer "+testKey)
		if lastEventID != "" {
			req.Header.Set("Last-Event-ID", lastEventID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("stream status %d", resp.StatusCode)
		}
		return resp, cancel
	}

	// Live: the creation events are not replayed; the cancel's three events are.
	resp, cancel := open("")
	got := make(chan []sseEvent, 1)
	go func() { got <- readSSE(t, resp.Body) }()
	time.Sleep(30 * time.Millisecond)
	if w := f.do("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[{"type":"agent.session.input.cancel"}]}`); w.Code != 202 {
		t.Fatalf("cancel: %d", w.Code)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	evs := <-got
	resp.Body.Close()
	want := []string{session.EventSessionInProgress, session.EventTurnCancelled, session.EventSessionIdle}
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("live events (-want +got):\n%s", diff)
	}

	// Resume after the first of them: exactly the other two.
	resp, cancel = open(evs[0].ID)
	go func() { got <- readSSE(t, resp.Body) }()
	time.Sleep(80 * time.Millisecond)
	cancel()
	resumed := <-got
	resp.Body.Close()
	if diff := cmp.Diff(want[1:], types(resumed)); diff != "" {
		t.Errorf("resumed events (-want +got):\n%s", diff)
	}
}

func TestStreamWritesKeepAlivesAndEndsAtMaxDuration(t *testing.T) {
	t.Parallel()
	st := newFakeStore()
	eng := engine.New(engine.Options{Store: st})
	_ = eng.ProvisionKey(context.Background(), "proj_1", testKey)
	h := New(eng, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PollInterval: 5 * time.Millisecond,
		KeepAliveInterval: 10 * time.Millisecond, MaxStreamDuration: 60 * time.Millisecond})
	f := &fixture{store: st, eng: eng, h: h}
	sid := decode[map[string]any](t, f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"m"},"environment":{"type":"none"}}`))["id"].(string)
	start := time.Now()
	w := f.do("GET", "/v1/agents/sessions/"+sid+"/events", "")
	if time.Since(start) > time.Second {
		t.Errorf("stream did not end at its max duration")
	}
	body := w.Body.String()
	if !strings.HasPrefix(body, ": connected\n\n") || !strings.Contains(body, ": keep-alive\n\n") {
		t.Errorf("body = %q", body)
	}
}

func TestAdminAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	admin := func(method, path, body, key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		return w
	}
	if w := admin("GET", "/admin/v1/runtimes", "", "wrong"); w.Code != 401 {
		t.Errorf("wrong admin key: %d", w.Code)
	}
	if w := admin("GET", "/admin/v1/runtimes", "", testKey); w.Code != 401 {
		t.Errorf("project key on admin API: %d", w.Code)
	}
	w := admin("POST", "/admin/v1/projects/proj_2/keys", "", testAdminKey)
	if w.Code != 201 {
		t.Fatalf("generate key: %d %s", w.Code, w.Body)
	}
	key := decode[projectKey](t, w).Key
	if !strings.HasPrefix(key, "sk-baton-") {
		t.Fatalf("generated key %q", key)
	}
	if p, err := f.eng.Authenticate(context.Background(), key); err != nil || p != "proj_2" {
		t.Errorf("generated key authenticates as %q, %v", p, err)
	}
	if w := admin("POST", "/admin/v1/projects/proj_3/keys", `{"key":"my-own-key-123"}`, testAdminKey); w.Code != 201 || strings.Contains(w.Body.String(), "my-own-key") {
		t.Errorf("provided key: %d %s", w.Code, w.Body)
	}
	if w := admin("POST", "/admin/v1/projects/proj_3/keys", `{"key":"short"}`, testAdminKey); w.Code != 400 {
		t.Errorf("short key: %d", w.Code)
	}
	now := time.Now().Unix()
	_ = f.eng.RegisterRuntime(context.Background(), engine.RuntimeInfo{ID: "rt_1", Kind: "baton", Capabilities: []string{"function_tools"}, HeartbeatAt: now, ExpiresAt: now + 60})
	_ = f.eng.RegisterRuntime(context.Background(), engine.RuntimeInfo{ID: "rt_old", Kind: "baton", HeartbeatAt: now - 600, ExpiresAt: now - 1})
	w = admin("GET", "/admin/v1/runtimes", "", testAdminKey)
	want := `{"data":[{"id":"rt_1","object":"admin.runtime","kind":"baton","capabilities":["function_tools"],"version":"","heartbeat_at":` + fmt.Sprint(now) + `}],"object":"list"}`
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("runtimes: %d %s", w.Code, w.Body)
	}
}
