package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/metrics/emf/emfcheck"
	"github.com/baton-run/baton/tests/procnet"
	"github.com/baton-run/baton/tests/stack"
)

// Operability (docs/operations.md), on a stack of its own so that its log holds only this test's requests: health
// routes without credentials, one JSON access log line per request, EMF metrics for the engine's signals, and
// every listener of the stack on loopback.
func TestOperability(t *testing.T) {
	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	client := stack.OpenAI(st)
	noAuth := map[string]string{"Authorization": "", "OpenAI-Beta": ""}

	t.Run("every listener of the stack is on loopback", func(t *testing.T) {
		for name, raw := range map[string]string{"API": st.APIURL, "Step Functions": st.SFNURL, "Lambda": st.LambdaURL, "DynamoDB Local": st.DynamoDBURL} {
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			port, _ := strconv.Atoi(u.Port())
			socks, err := procnet.Listening(port)
			if err != nil {
				t.Fatal(err)
			}
			if len(socks) == 0 {
				t.Errorf("%s (%s): no listening socket on port %d", name, raw, port)
			}
			for _, s := range socks {
				if !s.Loopback() {
					t.Errorf("%s listens on %s, want loopback only", name, s.Addr)
				}
			}
		}
	})

	t.Run("health routes answer without credentials and name no configuration", func(t *testing.T) {
		live := st.Do(t, http.MethodGet, "/healthz", nil, noAuth)
		if live.Status != http.StatusOK || string(live.Body) != `{"status":"ok"}` {
			t.Errorf("GET /healthz: %d %s, want 200 {\"status\":\"ok\"}", live.Status, live.Body)
		}
		ready := st.Do(t, http.MethodGet, "/readyz", nil, noAuth)
		if ready.Status != http.StatusOK || string(ready.Body) != `{"status":"ready","checks":{"state_machine":"ok","table":"ok"}}` {
			t.Errorf("GET /readyz: %d %s, want 200 ready with both checks ok", ready.Status, ready.Body)
		}
		for _, r := range []stack.Response{live, ready} {
			if ct := r.Header.Get("Content-Type"); ct != "application/json" || r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Content-Type %q Cache-Control %q", ct, r.Header.Get("Cache-Control"))
			}
			for _, secret := range []string{st.Table, st.DynamoDBURL, st.SFNURL, st.StateMachineARN("baton")} {
				if bytes.Contains(r.Body, []byte(secret)) {
					t.Errorf("health body %s reveals %q", r.Body, secret)
				}
			}
		}
		if r := st.Do(t, http.MethodPost, "/healthz", map[string]any{}, noAuth); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("POST /healthz: %d Allow %q, want 405 with Allow: GET, HEAD", r.Status, r.Header.Get("Allow"))
		}
		// The front doors' own gates are untouched: /v1 still needs a key.
		if r := st.Do(t, http.MethodGet, "/v1/agents", nil, map[string]string{"Authorization": ""}); r.Status != http.StatusUnauthorized {
			t.Errorf("GET /v1/agents without a key: %d, want 401", r.Status)
		}
	})

	t.Run("readiness names the failing dependency and reveals nothing else", func(t *testing.T) {
		closed, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		deadSFN := "http://" + closed.Addr().String()
		closed.Close()
		for _, tc := range []struct {
			name, table, sfn, want string
		}{
			{"both answer", st.Table, st.SFNURL, `{"status":"ready","checks":{"state_machine":"ok","table":"ok"}}`},
			{"no table", "no-such-table", st.SFNURL, `{"status":"unavailable","checks":{"state_machine":"ok","table":"unavailable"}}`},
			{"no Step Functions endpoint", st.Table, deadSFN, `{"status":"unavailable","checks":{"state_machine":"unavailable","table":"ok"}}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				other := *st
				other.Table, other.SFNURL = tc.table, tc.sfn
				var access bytes.Buffer
				h := httpapi.New(stack.Deps(&other, nil).Engine, httpapi.Options{
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), AccessLog: slog.New(slog.NewJSONHandler(&access, nil))})
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
				wantStatus := http.StatusOK
				if strings.Contains(tc.want, "unavailable") {
					wantStatus = http.StatusServiceUnavailable
				}
				if w.Code != wantStatus || w.Body.String() != tc.want {
					t.Errorf("GET /readyz: %d %s, want %d %s", w.Code, w.Body, wantStatus, tc.want)
				}
				var line map[string]any
				if err := json.Unmarshal(access.Bytes(), &line); err != nil {
					t.Fatalf("access log %q: %v", access.String(), err)
				}
				wantLevel := "INFO"
				if wantStatus >= 500 {
					wantLevel = "ERROR"
				}
				if line["route"] != "/readyz" || line["status"] != float64(wantStatus) || line["level"] != wantLevel {
					t.Errorf("access line %v, want route /readyz status %d level %s", line, wantStatus, wantLevel)
				}
			})
		}
	})

	t.Run("a stream's access line is written when the stream ends, with its status and duration", func(t *testing.T) {
		a := newWeatherAgent(t, ctx, client)
		s := newIdleSession(t, ctx, client, a.ID)
		var access bytes.Buffer
		h := httpapi.New(stack.Deps(st, nil).Engine, httpapi.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			AccessLog: slog.New(slog.NewJSONHandler(&access, nil)), MaxStreamDuration: 300 * time.Millisecond})
		req := httptest.NewRequest(http.MethodGet, "/v1/agents/sessions/"+s.ID+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+st.APIKey)
		req.Header.Set("OpenAI-Beta", "agents=v1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req) // returns when MaxStreamDuration ends the stream
		var line map[string]any
		if err := json.Unmarshal(access.Bytes(), &line); err != nil {
			t.Fatalf("access log %q: %v", access.String(), err)
		}
		if line["route"] != "/v1/agents/sessions/{session_id}/events" || line["method"] != "GET" || line["status"] != float64(200) ||
			line["session_id"] != s.ID || line["bytes"] != float64(w.Body.Len()) || w.Body.Len() == 0 {
			t.Errorf("stream access line %v (body %d bytes)", line, w.Body.Len())
		}
		if ms, _ := line["latency_ms"].(float64); ms < 300 {
			t.Errorf("stream latency_ms = %v, want the stream's whole duration (≥ 300)", line["latency_ms"])
		}
	})

	// One inline round trip with a conflicting result, a failing turn, and a refused dispatch.
	sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
	eventsPath := "/v1/agents/sessions/" + sid + "/events"
	result := func(output string) map[string]any {
		return map[string]any{"events": []any{map[string]any{"type": "agent.session.input.tool_result", "turn_id": turnID,
			"call_id": actions[0].CallID, "success": true, "output": output}}}
	}
	if r := st.Do(t, http.MethodPost, eventsPath, result("sunny"), map[string]string{"X-Request-Id": "client-trace-1"}); r.Status != http.StatusAccepted {
		t.Fatalf("tool result: %d %s", r.Status, r.Body)
	}
	conflict := st.Do(t, http.MethodPost, eventsPath, result("rainy"), nil)
	if conflict.Status != http.StatusConflict {
		t.Fatalf("different tool result: %d %s, want 409", conflict.Status, conflict.Body)
	}
	rec.WaitFor(t, 0, "turn.completed", isTurnEvent("agent.session.turn.completed", turnID))

	text := map[string]any{"format": map[string]any{"type": "json_schema", "schema": rawJSON(citySchema)}}
	failSID := newInlineSession(t, st, []any{}, text, map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "prose"}, "reply": "It is cold in Oslo."}}}, nil)
	failRec := record(t, ctx, client, failSID)
	failTurn, end, _ := endedTurn(t, ctx, client, failRec, failSID, "prose please")
	if end != "agent.session.turn.failed" {
		t.Fatalf("the structured-output turn ended with %s, want turn.failed", end)
	}

	refused := st.Do(t, http.MethodPost, "/v1/agents/sessions", map[string]any{"environment": map[string]any{"type": "none"}, "input": "hello",
		"agent": map[string]any{"model": "scripted", "x_baton": map[string]any{"harness": "codex", "model_provider": map[string]any{"protocol": "scripted"}}}}, nil)
	if refused.Status != http.StatusServiceUnavailable {
		t.Fatalf("session of a harness without a runtime: %d %s, want 503", refused.Status, refused.Body)
	}

	t.Run("the engine's signals are EMF lines CloudWatch can extract", func(t *testing.T) {
		type key struct{ Metric, Session, Turn string }
		want := map[key]int64{
			{"TurnsStarted", sid, turnID}:          1,
			{"RequiredActionsIssued", sid, turnID}: 1,
			{"ToolResultsAccepted", sid, ""}:       1,
			{"ResultConflicts", sid, ""}:           1,
			{"TurnsStarted", failSID, failTurn}:    1,
			{"TurnFailures", failSID, failTurn}:    1,
			{"DispatchRefusals", "", ""}:           1, // any session: a refused create names an id it never wrote
		}
		var lines []map[string]any
		// The log is written by another process: read until every expected line is there (the settle of the failed
		// turn has committed before its events were streamed, so its line is already written).
		deadline := time.Now().Add(10 * time.Second)
		for {
			lines = emfLines(t, st)
			got := map[key]int64{}
			for _, l := range lines {
				for k := range want {
					if v, ok := l[k.Metric].(float64); ok && (k.Session == "" || l["session_id"] == k.Session) && (k.Turn == "" || l["turn_id"] == k.Turn) {
						got[k] += int64(v)
					}
				}
			}
			diff := cmp.Diff(want, got)
			if diff == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("EMF metrics by (metric, session, turn) (-want +got):\n%s", diff)
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, l := range lines {
			if l["session_id"] == failSID && l["TurnFailures"] != nil {
				if cause, _ := l["Cause"].(string); cause == "" || cause == "Unknown" {
					t.Errorf("TurnFailures line without a cause: %v", l)
				}
			}
			if l["DispatchRefusals"] != nil && l["Harness"] != "codex" {
				t.Errorf("DispatchRefusals line with Harness %v, want codex", l["Harness"])
			}
		}
	})

	t.Run("one access log line per request, 4xx included, with the response's request id", func(t *testing.T) {
		lines := accessLines(t, st)
		byID := map[string]map[string]any{}
		for _, l := range lines {
			id, _ := l["request_id"].(string)
			if _, dup := byID[id]; dup {
				t.Errorf("two access lines with request_id %s", id)
			}
			byID[id] = l
		}
		id := conflict.Header.Get("X-Request-Id")
		l, ok := byID[id]
		if !ok {
			t.Fatalf("no access line with request_id %s (the 409's X-Request-Id)", id)
		}
		for k, v := range map[string]any{"msg": "request", "level": "INFO", "method": "POST", "route": "/v1/agents/sessions/{session_id}/events",
			"status": float64(409), "bytes": float64(len(conflict.Body)), "project_id": st.ProjectID, "session_id": sid} {
			if l[k] != v {
				t.Errorf("access line %s = %v, want %v (line %v)", k, l[k], v, l)
			}
		}
		if ms, ok := l["latency_ms"].(float64); !ok || ms < 0 {
			t.Errorf("latency_ms = %v", l["latency_ms"])
		}
		var traced, unauthorized, health int
		for _, l := range lines {
			if l["client_request_id"] == "client-trace-1" && l["status"] == float64(202) {
				traced++
			}
			if l["route"] == "unmatched" || l["status"] == float64(401) {
				unauthorized++
			}
			if l["route"] == "/healthz" || l["route"] == "/readyz" {
				health++
			}
		}
		if traced != 1 {
			t.Errorf("%d access lines carry the caller's X-Request-Id client-trace-1 on the 202, want 1", traced)
		}
		if unauthorized == 0 {
			t.Error("no access line for the 401")
		}
		if health < 3 {
			t.Errorf("%d access lines for the health routes, want at least 3", health)
		}
	})
}

// emfLines returns every EMF line of the stack's log, each checked by emfcheck.
func emfLines(t *testing.T, st *stack.Stack) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range logLines(t, st) {
		if !bytes.Contains(line, []byte(`"_aws"`)) {
			continue
		}
		obj, err := emfcheck.Check(line)
		if err != nil {
			t.Fatalf("EMF line %s: %v", line, err)
		}
		out = append(out, obj)
	}
	return out
}

// accessLines returns the access log lines (JSON with msg "request") of the stack's log.
func accessLines(t *testing.T, st *stack.Stack) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range logLines(t, st) {
		var obj map[string]any
		if json.Unmarshal(line, &obj) != nil || obj["msg"] != "request" {
			continue
		}
		out = append(out, obj)
	}
	return out
}

func logLines(t *testing.T, st *stack.Stack) [][]byte {
	t.Helper()
	b, err := os.ReadFile(st.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	return out
}

// TestAPortClashFailsStartUpNamingThePort: a port of a local component that another process holds makes
// baton-local exit non-zero with an error naming the component and the port, without the "Baton is running"
// banner, before anything else starts.
func TestAPortClashFailsStartUpNamingThePort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		component string
		flag      func(port int) []string
	}{
		{"DynamoDB Local", func(p int) []string { return []string{"-dynamodb-port", strconv.Itoa(p)} }},
		{"the Step Functions endpoint", func(p int) []string { return []string{"-sfn", "127.0.0.1:" + strconv.Itoa(p)} }},
		{"the Lambda invoke endpoint", func(p int) []string { return []string{"-lambda", "127.0.0.1:" + strconv.Itoa(p)} }},
		{"the API", func(p int) []string { return []string{"-api", "127.0.0.1:" + strconv.Itoa(p)} }},
	} {
		t.Run(tc.component, func(t *testing.T) {
			t.Parallel()
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			port := l.Addr().(*net.TCPAddr).Port
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			p, err := stackproc.Start(ctx, stackproc.Options{ExtraArgs: tc.flag(port), ReadyTimeout: testTimeout, WorkDir: t.TempDir()})
			if errors.Is(err, stackproc.ErrNoBinary) {
				if os.Getenv("CI") == "true" {
					t.Fatal(err)
				}
				t.Skip(err)
			}
			if err == nil {
				_ = p.Stop()
				t.Fatalf("baton-local started although port %d was taken", port)
			}
			msg := err.Error()
			want := tc.component + ": 127.0.0.1:" + strconv.Itoa(port) + " is already in use"
			if !strings.Contains(msg, want) {
				t.Errorf("start-up error does not say %q:\n%s", want, msg)
			}
			if !strings.Contains(msg, "exited before it was ready (exit status 1)") {
				t.Errorf("baton-local did not exit with status 1:\n%s", msg)
			}
			if strings.Contains(msg, "Baton is running") {
				t.Errorf("baton-local printed its banner against another process's port:\n%s", msg)
			}
		})
	}
}
