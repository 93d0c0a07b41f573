package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/baton-run/baton/tests/stack"
)

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// mcpDecl is an HTTP MCP tool declaration.
func mcpDecl(label, serverURL string, extra map[string]any) map[string]any {
	d := map[string]any{"type": "mcp", "server_label": label, "transport": map[string]any{"type": "http", "server_url": serverURL}}
	for k, v := range extra {
		d[k] = v
	}
	return d
}

// newInlineSession creates an idle Session (environment none) with an inline scripted agent through raw HTTP and
// returns its id. extra members (e.g. vault_ids) join the body.
func newInlineSession(t *testing.T, st *stack.Stack, tools []any, text any, script map[string]any, extra map[string]any) string {
	t.Helper()
	ag := map[string]any{"model": "scripted", "tools": tools, "x_baton": map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": script}}
	if text != nil {
		ag["text"] = text
	}
	body := map[string]any{"environment": map[string]any{"type": "none"}, "agent": ag}
	for k, v := range extra {
		body[k] = v
	}
	r := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var s struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Body, &s); err != nil || s.ID == "" {
		t.Fatalf("create session: %s", r.Body)
	}
	return s.ID
}

// endedTurn posts a user message and waits for the turn it starts to end and for the Session event that follows
// (idle or failed). It returns the turn id, its terminal event type and the turn's events.
func endedTurn(t *testing.T, ctx context.Context, client openai.Client, rec *recorder, sessionID, text string) (string, string, []wireEvent) {
	t.Helper()
	from := len(rec.Snapshot())
	postEvents(t, ctx, client, sessionID, userMessage(text))
	at := rec.WaitFor(t, from, "turn.created", isType("agent.session.turn.created"))
	turnID := rec.Snapshot()[at].TurnID
	end := rec.WaitFor(t, at, "the end of turn "+turnID, func(e wireEvent) bool {
		return e.TurnID == turnID && (e.Type == "agent.session.turn.completed" || e.Type == "agent.session.turn.failed")
	})
	last := rec.WaitFor(t, end, "agent.session.idle or failed", func(e wireEvent) bool {
		return e.Type == "agent.session.idle" || e.Type == "agent.session.failed"
	})
	events := rec.Snapshot()
	return turnID, events[end].Type, events[at : last+1]
}

// mcpItem is an mcp_call item as the wire shows it.
type mcpItem struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Status      string          `json:"status"`
	ServerLabel string          `json:"server_label"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Output      json.RawMessage `json:"output"`
	Error       json.RawMessage `json:"error"`
}

// finalText is the text of the turn's final_answer message in events ("" when there is none).
func finalText(events []wireEvent) string {
	for _, e := range events {
		if e.Type == "agent.session.turn.item.done" && e.Item != nil && e.Item.Type == "message" && e.Item.Phase == "final_answer" {
			return e.Item.text()
		}
	}
	return ""
}

// everythingScript: "tools" lists the offered tool names; "call both" calls echo and get-sum in one response; the
// tool stage answers with every result.
func everythingScript() map[string]any {
	return map[string]any{
		"chunk_size": 16,
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "tools"}, "reply": "offered:{{range .ToolNames}} {{.}}{{end}}"},
			map[string]any{"when": map[string]any{"user_contains": "call both"}, "calls": []any{
				map[string]any{"server_label": "everything", "name": "echo", "arguments": map[string]any{"message": "hello from baton"}},
				map[string]any{"server_label": "everything", "name": "get-sum", "arguments": map[string]any{"a": 2, "b": 40}},
			}},
			map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": "results:{{range .Tools}} [{{.Name}}: {{.Output}}]{{end}}"},
		},
	}
}

func TestMCPEverythingListsAndCallsEchoAndGetSum(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sid := newInlineSession(t, st, []any{mcpDecl("everything", server, nil)}, nil, everythingScript(), nil)
	rec := record(t, ctx, client, sid)

	_, end, events := endedTurn(t, ctx, client, rec, sid, "which tools?")
	if end != "agent.session.turn.completed" {
		t.Fatalf("listing turn ended with %s:\n%s", end, dump(events))
	}
	offered := strings.Fields(strings.TrimPrefix(finalText(events), "offered:"))
	for _, want := range []string{"everything__echo", "everything__get-sum"} {
		if !contains(offered, want) {
			t.Errorf("offered tools %q lack %s", offered, want)
		}
	}

	turnID, end, events := endedTurn(t, ctx, client, rec, sid, "call both")
	if end != "agent.session.turn.completed" {
		t.Fatalf("calling turn ended with %s:\n%s", end, dump(events))
	}
	order := regexp.MustCompile(`^turn\.created item\.added\(message/user\) in_progress turn\.in_progress ` +
		`item\.added\(mcp_call\) item\.done\(mcp_call\) item\.added\(mcp_call\) item\.done\(mcp_call\) ` +
		assistantMessage("final_answer") + `turn\.completed idle $`)
	if !order.MatchString(tokens(events)) {
		t.Errorf("event order:\n  got  %s\n  want %s", tokens(events), order)
	}
	// item.added carries the call in_progress with null output and error; item.done the result; output_index
	// counts the mcp_call items as output items (0, 1) before the final message (2).
	var added, done []mcpItem
	var indexes []int
	for _, e := range events {
		if e.Item == nil || (e.Type != "agent.session.turn.item.added" && e.Type != "agent.session.turn.item.done") {
			continue
		}
		if e.OutputIndex != nil && e.Type == "agent.session.turn.item.added" {
			indexes = append(indexes, *e.OutputIndex)
		}
		if e.Item.Type != "mcp_call" {
			continue
		}
		var ev struct {
			Item mcpItem `json:"item"`
		}
		if err := json.Unmarshal([]byte(e.raw), &ev); err != nil {
			t.Fatal(err)
		}
		if e.Type == "agent.session.turn.item.added" {
			added = append(added, ev.Item)
		} else {
			done = append(done, ev.Item)
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2}, indexes); diff != "" {
		t.Errorf("output_index of the output items (-want +got):\n%s", diff)
	}
	if len(added) != 2 || len(done) != 2 {
		t.Fatalf("mcp_call events: added %d, done %d, want 2 each", len(added), len(done))
	}
	for _, it := range added {
		if it.Status != "in_progress" || string(it.Output) != "null" || string(it.Error) != "null" {
			t.Errorf("item.added mcp_call = %+v, want in_progress with output and error null", it)
		}
	}
	wantDone := []mcpItem{
		{ID: added[0].ID, Type: "mcp_call", Status: "completed", ServerLabel: "everything", Name: "echo",
			Arguments: json.RawMessage(`{"message":"hello from baton"}`), Output: json.RawMessage(`"Echo: hello from baton"`), Error: json.RawMessage("null")},
		{ID: added[1].ID, Type: "mcp_call", Status: "completed", ServerLabel: "everything", Name: "get-sum",
			Arguments: json.RawMessage(`{"a":2,"b":40}`), Output: json.RawMessage(`"The sum of 2 and 40 is 42."`), Error: json.RawMessage("null")},
	}
	if diff := cmp.Diff(wantDone, done); diff != "" {
		t.Errorf("item.done mcp_call items (-want +got):\n%s", diff)
	}
	want := "results: [everything__echo: Echo: hello from baton] [everything__get-sum: The sum of 2 and 40 is 42.]"
	if got := finalText(events); got != want {
		t.Errorf("final answer = %q, want %q", got, want)
	}
	// The durable items match the stream's final state.
	r := st.Do(t, http.MethodGet, "/v1/agents/sessions/"+sid+"/turns/"+turnID+"/items?order=asc", nil, nil)
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &page); err != nil {
		t.Fatalf("turn items %d %s", r.Status, r.Body)
	}
	var stored []mcpItem
	for _, raw := range page.Data {
		var it mcpItem
		_ = json.Unmarshal(raw, &it)
		if it.Type == "mcp_call" {
			stored = append(stored, it)
		}
	}
	if diff := cmp.Diff(wantDone, stored); diff != "" {
		t.Errorf("stored mcp_call items (-want +got):\n%s", diff)
	}
}

func TestMCPAllowedToolsFilter(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	tests := []struct {
		name    string
		allowed any
		want    []string
	}{
		{name: "a list offers only the listed tools", allowed: []string{"echo"}, want: []string{"everything__echo"}},
		{name: "[] offers none", allowed: []string{}, want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			sid := newInlineSession(t, st, []any{mcpDecl("everything", server, map[string]any{"allowed_tools": tc.allowed})}, nil, everythingScript(), nil)
			rec := record(t, ctx, client, sid)
			_, end, events := endedTurn(t, ctx, client, rec, sid, "which tools?")
			if end != "agent.session.turn.completed" {
				t.Fatalf("turn ended with %s:\n%s", end, dump(events))
			}
			got := strings.Fields(strings.TrimPrefix(finalText(events), "offered:"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("offered tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMCPRequiredServerFailureFailsTheTurnAndKeepsHistory(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	proxy := newRecordingProxy(t, server)
	sid := newInlineSession(t, st, []any{mcpDecl("everything", proxy.URL, map[string]any{"required": true})}, nil, everythingScript(), nil)
	rec := record(t, ctx, client, sid)

	_, end, _ := endedTurn(t, ctx, client, rec, sid, "which tools?")
	if end != "agent.session.turn.completed" {
		t.Fatalf("first turn (server up) ended with %s", end)
	}
	before := listItems(t, ctx, client, sid)

	proxy.down.Store(true)
	failedTurn, end, events := endedTurn(t, ctx, client, rec, sid, "call both")
	if end != "agent.session.turn.failed" {
		t.Fatalf("turn with the required server down ended with %s:\n%s", end, dump(events))
	}
	if last := events[len(events)-1]; last.Type != "agent.session.failed" {
		t.Errorf("last event = %s, want agent.session.failed", last.Type)
	}
	if s := getSession(t, ctx, client, sid); s.Status != "failed" {
		t.Errorf("session status = %q, want failed", s.Status)
	}
	turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, sid, failedTurn)
	if err != nil {
		t.Fatalf("GET turn: %v", describe(err))
	}
	if turn.Status != "failed" || turn.Error.Code != "internal_error" {
		t.Errorf("failed turn = status %q error %+v, want failed internal_error", turn.Status, turn.Error)
	}
	// History is intact: the earlier items stay, the failed turn added only its user message.
	after := listItems(t, ctx, client, sid)
	if len(after) != len(before)+1 {
		t.Fatalf("items after the failure: %d, want %d (+ the user message)", len(after), len(before)+1)
	}
	for i := range before {
		if before[i].ID != after[i].ID || before[i].Status != after[i].Status {
			t.Errorf("item %d changed: %+v → %+v", i, before[i], after[i])
		}
	}
	if it := after[len(after)-1]; it.Type != "message" || it.Role != "user" || it.TurnID != failedTurn {
		t.Errorf("last item = %+v, want the failed turn's user message", it)
	}

	// The next input starts a new turn, which completes once the server is back.
	proxy.down.Store(false)
	nextTurn, end, events := endedTurn(t, ctx, client, rec, sid, "call both")
	if nextTurn == failedTurn || end != "agent.session.turn.completed" {
		t.Fatalf("next turn %s ended with %s:\n%s", nextTurn, end, dump(events))
	}
	if s := getSession(t, ctx, client, sid); s.Status != "idle" {
		t.Errorf("session status after the new turn = %q, want idle", s.Status)
	}
}

func TestMCPOptionalServerFailureLeavesItsToolsOut(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	gone := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	sid := newInlineSession(t, st, []any{mcpDecl("gone", gone, map[string]any{"required": false}),
		mcpDecl("everything", server, map[string]any{"allowed_tools": []string{"get-sum"}})}, nil, everythingScript(), nil)
	rec := record(t, ctx, client, sid)
	_, end, events := endedTurn(t, ctx, client, rec, sid, "which tools?")
	if end != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", end, dump(events))
	}
	if got := finalText(events); got != "offered: everything__get-sum" {
		t.Errorf("final answer = %q, want only the reachable server's allowed tool", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// createBearerCredential creates a vault with one static_bearer credential for serverURL and returns the vault id
// and the credential id.
func createBearerCredential(t *testing.T, st *stack.Stack, token, serverURL string) (string, string) {
	t.Helper()
	r := st.Do(t, http.MethodPost, "/v1/vaults", map[string]any{"name": "mcp creds"}, nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("create vault: %d %s", r.Status, r.Body)
	}
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(r.Body, &v)
	auth := map[string]any{"type": "static_bearer", "token": token}
	if serverURL != "" {
		auth["mcp_server_url"] = serverURL
	}
	r = st.Do(t, http.MethodPost, "/v1/vaults/"+v.ID+"/credentials", map[string]any{"auth": auth}, nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("create credential: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), token) {
		t.Errorf("the credential response shows the token: %s", r.Body)
	}
	var c struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(r.Body, &c)
	return v.ID, c.ID
}

func TestMCPBearerAuthIsSentOnEveryRequest(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	const token = "baton-test-token.AbC~123"
	tests := []struct {
		name     string
		explicit bool
	}{
		{name: "a credential selected by credential_id", explicit: true},
		{name: "a credential selected by its mcp_server_url", explicit: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			proxy := newRecordingProxy(t, server)
			credURL := proxy.URL
			if tc.explicit {
				credURL = ""
			}
			vaultID, credID := createBearerCredential(t, st, token, credURL)
			extra := map[string]any{"required": true}
			if tc.explicit {
				extra["credential_id"] = credID
			}
			sid := newInlineSession(t, st, []any{mcpDecl("everything", proxy.URL, extra)}, nil, everythingScript(),
				map[string]any{"vault_ids": []string{vaultID}})
			r := st.Do(t, http.MethodGet, "/v1/agents/sessions/"+sid, nil, nil)
			if strings.Contains(string(r.Body), token) {
				t.Errorf("the Session shows the token: %s", r.Body)
			}
			if !strings.Contains(string(r.Body), credID) {
				t.Errorf("the Session's MCP tool does not show the selected credential_id %s: %s", credID, r.Body)
			}
			rec := record(t, ctx, client, sid)
			_, end, events := endedTurn(t, ctx, client, rec, sid, "call both")
			if end != "agent.session.turn.completed" {
				t.Fatalf("turn ended with %s:\n%s", end, dump(events))
			}
			if !strings.Contains(finalText(events), "The sum of 2 and 40 is 42.") {
				t.Errorf("final answer %q lacks the get-sum result", finalText(events))
			}
			reqs := proxy.requests()
			if len(reqs) < 4 {
				t.Fatalf("the proxy saw %d requests, want initialize, initialized, tools/list, tools/call…: %+v", len(reqs), reqs)
			}
			for i, req := range reqs {
				if req.header.Get("Authorization") != "Bearer "+token {
					t.Errorf("request %d (%s) lacks the bearer token", i, req.method)
				}
			}
		})
	}
}

func TestMCPCredentialSelectionErrors(t *testing.T) {
	t.Parallel()
	st, _ := stackClient(t)
	const serverURL = "http://127.0.0.1:9/mcp"
	vaultID, credID := createBearerCredential(t, st, "token-c-2d8", "http://127.0.0.1:8/other")
	twoURL := "http://127.0.0.1:7/mcp"
	vaultA, _ := createBearerCredential(t, st, "token-a-7f3", twoURL)
	vaultB, _ := createBearerCredential(t, st, "token-b-9e1", twoURL)
	tests := []struct {
		name       string
		url        string
		credential any
		vaults     any
		status     int
		message    string
	}{
		{"credential_id without a vault", serverURL, credID, nil, 400, "MCP credential_id requires an attached vault"},
		{"credential_id not in an attached vault", serverURL, "cred_missing", []string{vaultID}, 400, "MCP credential_id cred_missing was not found in an attached vault"},
		{"credential for another URL", serverURL, credID, []string{vaultID}, 400, "MCP credential_id " + credID + " does not match server_url " + serverURL},
		{"two matching credentials", twoURL, nil, []string{vaultA, vaultB}, 409, "multiple attached vault credentials match MCP server_url " + twoURL + "; specify credential_id"},
		{"an unknown vault", serverURL, nil, []string{"vault_nope"}, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			extra := map[string]any{}
			if tc.credential != nil {
				extra["credential_id"] = tc.credential
			}
			body := map[string]any{"environment": map[string]any{"type": "none"}, "agent": map[string]any{"model": "scripted",
				"tools": []any{mcpDecl("srv", tc.url, extra)}}}
			if tc.vaults != nil {
				body["vault_ids"] = tc.vaults
			}
			r := st.Do(t, http.MethodPost, "/v1/agents/sessions", body, nil)
			if r.Status != tc.status || (tc.message != "" && r.Error().Message != tc.message) {
				t.Errorf("status %d %s, want %d %q", r.Status, r.Body, tc.status, tc.message)
			}
		})
	}
}
