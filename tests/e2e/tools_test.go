package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/tests/stack"
)

// recordingProxy is a reverse proxy in front of an MCP server that records every request's headers and body,
// and answers 503 while down.
type recordingProxy struct {
	URL  string
	down atomic.Bool
	mu   sync.Mutex
	reqs []proxied
}

type proxied struct {
	method string
	header http.Header
	body   string
}

func newRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
		FlushInterval: -1,
	}
	p := &recordingProxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.mu.Lock()
		p.reqs = append(p.reqs, proxied{method: r.Method, header: r.Header.Clone(), body: string(body)})
		p.mu.Unlock()
		if p.down.Load() {
			http.Error(w, "down for the test", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + u.Path
	return p
}

func (p *recordingProxy) requests() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proxied(nil), p.reqs...)
}

// toolCalls are the bodies of the tools/call requests the proxy forwarded or refused.
func (p *recordingProxy) toolCalls() []string {
	var out []string
	for _, r := range p.requests() {
		if strings.Contains(r.body, `"method":"tools/call"`) {
			out = append(out, r.body)
		}
	}
	return out
}

// resultsReply lists every tool result the model saw since the user message: [name isError output].
const resultsReply = "results:{{range .Tools}} [{{.Name}} {{.IsError}} {{.Output}}]{{end}}"

func itemsOfType(events []wireEvent, typ, event string) []wireItem {
	var out []wireItem
	for _, e := range events {
		if e.Type == event && e.Item != nil && e.Item.Type == typ {
			out = append(out, *e.Item)
		}
	}
	return out
}

// TestUnofferedToolCallsGetAnErrorResultAndTheLoopGoesOn reproduces what a new user saw: a made-up tool name, a
// deferred function called before tool_search loaded it, and an MCP tool of a server that went down all became
// function_call required actions. Now each gets an error tool result the model reads, and the turn completes
// without a required action (docs/tools.md "Calls of tools that were not offered").
func TestUnofferedToolCallsGetAnErrorResultAndTheLoopGoesOn(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	lookup := map[string]any{"type": "function", "name": "lookup", "description": "Look up", "parameters": map[string]any{"type": "object"}}
	later := map[string]any{"type": "function", "name": "later", "description": "Deferred", "parameters": map[string]any{"type": "object"}, "defer_loading": true}
	script := func(call map[string]any) map[string]any {
		return map[string]any{"chunk_size": 64, "rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "go"}, "calls": []any{call}},
			map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": resultsReply},
		}}
	}
	tests := []struct {
		name   string
		tools  []any
		call   map[string]any
		result string
	}{
		{name: "a made-up tool name", tools: []any{lookup}, call: map[string]any{"name": "no_such_tool"},
			result: `[no_such_tool true tool "no_such_tool" is not available: it was not offered in this request`},
		{name: "a deferred function called before tool_search loaded it", tools: []any{lookup, later, map[string]any{"type": "tool_search"}},
			call: map[string]any{"name": "later"}, result: `[later true tool "later" is not available: it was not offered in this request`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			sid := newInlineSession(t, st, tc.tools, nil, script(tc.call), nil)
			rec := record(t, ctx, client, sid)
			_, end, events := endedTurn(t, ctx, client, rec, sid, "go")
			if end != "agent.session.turn.completed" {
				t.Fatalf("turn ended with %s:\n%s", end, dump(events))
			}
			if n := count(events, isType("agent.session.requires_action")) + len(itemsOfType(events, "function_call", "agent.session.turn.item.added")); n != 0 {
				t.Errorf("the unoffered call reached the caller:\n%s", dump(events))
			}
			if got := finalText(events); !strings.HasPrefix(got, "results: "+tc.result) {
				t.Errorf("final answer = %q, want the error result %q", got, tc.result)
			}
		})
	}

	t.Run("an MCP tool of a server that went down", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		proxy := newRecordingProxy(t, server)
		sid := newInlineSession(t, st, []any{mcpDecl("everything", proxy.URL, nil)}, nil, everythingScript(), nil)
		rec := record(t, ctx, client, sid)
		if _, end, events := endedTurn(t, ctx, client, rec, sid, "call both"); end != "agent.session.turn.completed" {
			t.Fatalf("first turn (server up) ended with %s:\n%s", end, dump(events))
		}
		calls := len(proxy.toolCalls())
		proxy.down.Store(true)
		_, end, events := endedTurn(t, ctx, client, rec, sid, "call both")
		if end != "agent.session.turn.completed" {
			t.Fatalf("turn with the server down ended with %s:\n%s", end, dump(events))
		}
		if n := count(events, isType("agent.session.requires_action")) + len(itemsOfType(events, "function_call", "agent.session.turn.item.added")); n != 0 {
			t.Errorf("the MCP call reached the caller:\n%s", dump(events))
		}
		done := itemsOfType(events, "mcp_call", "agent.session.turn.item.done")
		if len(done) != 2 {
			t.Fatalf("mcp_call items done: %d, want 2:\n%s", len(done), dump(events))
		}
		for _, e := range events {
			if e.Type != "agent.session.turn.item.done" || e.Item == nil || e.Item.Type != "mcp_call" {
				continue
			}
			it := decode[struct {
				Item mcpItem `json:"item"`
			}](t, e.raw).Item
			if it.Status != "failed" || string(it.Output) != "null" || !strings.Contains(string(it.Error), "is not available") || it.ServerLabel != "everything" {
				t.Errorf("mcp_call item = %+v, want failed with a not-available error", it)
			}
		}
		want := `results: [everything__echo: MCP tool "echo" of server "everything" is not available`
		if got := finalText(events); !strings.HasPrefix(got, want) {
			t.Errorf("final answer = %q, want it to start %q", got, want)
		}
		if n := len(proxy.toolCalls()); n != calls {
			t.Errorf("tools/call requests while down: %d", n-calls)
		}
	})
}

// TestMCPArgumentsReachTheServerByteForByte sends an integer beyond 2^53 through the scripted model to
// server-everything's get-sum and reads the tools/call body at a recording proxy; arguments that violate the
// tool's input schema are not forwarded.
func TestMCPArgumentsReachTheServerByteForByte(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	proxy := newRecordingProxy(t, server)
	script := map[string]any{"chunk_size": 64, "rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "big"}, "calls": []any{
			map[string]any{"server_label": "everything", "name": "get-sum", "arguments": json.RawMessage(`{"a":9007199254740993,"b":0}`)}}},
		map[string]any{"when": map[string]any{"user_contains": "bad"}, "calls": []any{
			map[string]any{"server_label": "everything", "name": "get-sum", "arguments": map[string]any{"a": "two", "b": 1}}}},
		map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": resultsReply},
	}}
	sid := newInlineSession(t, st, []any{mcpDecl("everything", proxy.URL, nil)}, nil, script, nil)
	rec := record(t, ctx, client, sid)

	_, end, events := endedTurn(t, ctx, client, rec, sid, "big")
	if end != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", end, dump(events))
	}
	calls := proxy.toolCalls()
	if len(calls) != 1 || !regexp.MustCompile(`"arguments":\{"a":9007199254740993,"b":0\}`).MatchString(calls[0]) {
		t.Errorf("tools/call bodies at the server = %q, want the arguments byte for byte", calls)
	}
	items := listItems(t, ctx, client, sid)
	var stored []string
	for _, it := range items {
		if it.Type == "mcp_call" {
			stored = append(stored, string(it.Arguments))
		}
	}
	if len(stored) != 1 || stored[0] != `{"a":9007199254740993,"b":0}` {
		t.Errorf("stored mcp_call arguments = %q", stored)
	}

	_, end, events = endedTurn(t, ctx, client, rec, sid, "bad")
	if end != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", end, dump(events))
	}
	if n := len(proxy.toolCalls()); n != 1 {
		t.Errorf("schema-violating arguments were forwarded (%d tools/call requests)", n)
	}
	want := `results: [everything__get-sum true MCP tool "get-sum" of server "everything" was not called: the arguments do not match the tool's input schema`
	if got := finalText(events); !strings.HasPrefix(got, want) {
		t.Errorf("final answer = %q, want it to start %q", got, want)
	}
}

// TestToolOrderMCPInlineMCP: for a response [MCP tool A, inline B, MCP tool C], A's mcp_call item precedes B's
// function_call, and C runs only after B's tool result (docs/tools.md "Order of tool calls").
func TestToolOrderMCPInlineMCP(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	proxy := newRecordingProxy(t, server)
	script := map[string]any{"chunk_size": 64, "rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "order"}, "calls": []any{
			map[string]any{"server_label": "everything", "name": "echo", "arguments": map[string]any{"message": "A"}},
			map[string]any{"name": "lookup", "arguments": map[string]any{"q": "B"}},
			map[string]any{"server_label": "everything", "name": "echo", "arguments": map[string]any{"message": "C"}},
		}},
		map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": resultsReply},
	}}
	lookup := map[string]any{"type": "function", "name": "lookup", "description": "Look up", "parameters": map[string]any{"type": "object"}}
	sid := newInlineSession(t, st, []any{mcpDecl("everything", proxy.URL, nil), lookup}, nil, script, nil)
	rec := record(t, ctx, client, sid)
	postEvents(t, ctx, client, sid, userMessage("order"))
	at := rec.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	ev := rec.Snapshot()[at]
	if ev.Session == nil || len(ev.Session.RequiredActions) != 1 || ev.Session.RequiredActions[0].Name != "lookup" {
		t.Fatalf("requires_action = %s", ev.raw)
	}
	if calls := proxy.toolCalls(); len(calls) != 1 || !strings.Contains(calls[0], `"message":"A"`) {
		t.Fatalf("tools/call before B's result = %q, want only A", calls)
	}
	ra := ev.Session.RequiredActions[0]
	postEvents(t, ctx, client, sid, toolResult(ra.TurnID, ra.CallID, "b-result"))
	done := rec.WaitFor(t, at, "turn.completed", isTurnEvent("agent.session.turn.completed", ra.TurnID))
	rec.WaitFor(t, done, "agent.session.idle", isType("agent.session.idle"))
	events := turnWindow(t, rec.Snapshot(), ra.TurnID)
	order := regexp.MustCompile(`^turn\.created item\.added\(message/user\) in_progress turn\.in_progress ` +
		`item\.added\(mcp_call\) item\.done\(mcp_call\) item\.added\(function_call\) item\.done\(function_call\) requires_action ` +
		`item\.added\(function_call_output\) (in_progress )?turn\.in_progress item\.added\(mcp_call\) item\.done\(mcp_call\) ` +
		assistantMessage("final_answer") + `turn\.completed idle $`)
	if !order.MatchString(tokens(events)) {
		t.Errorf("event order:\n  got  %s\n  want %s", tokens(events), order)
	}
	if calls := proxy.toolCalls(); len(calls) != 2 || !strings.Contains(calls[1], `"message":"C"`) {
		t.Errorf("tools/call after B's result = %q, want A then C", calls)
	}
	want := "results: [everything__echo false Echo: A] [lookup false b-result] [everything__echo false Echo: C]"
	if got := finalText(events); got != want {
		t.Errorf("final answer = %q, want %q", got, want)
	}
}

// memJournal is an in-memory harness.Journal for running the harness directly.
type memJournal struct {
	mu  sync.Mutex
	ops []string
	n   int
}

func (j *memJournal) add(s string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.n++
	j.ops = append(j.ops, s)
	return fmt.Sprintf("item_%d", j.n)
}
func (j *memJournal) StartMessage(_ context.Context, phase string) (string, error) {
	return j.add("message " + phase), nil
}
func (j *memJournal) AppendText(context.Context, string, string) error { return nil }
func (j *memJournal) FinishMessage(_ context.Context, _, text string) error {
	j.add("text " + text)
	return nil
}
func (j *memJournal) RequestCalls(_ context.Context, calls []engine.PendingCall, _ ...engine.PendingCall) (int, error) {
	j.add(fmt.Sprintf("calls %d", len(calls)))
	return 1, nil
}
func (j *memJournal) RecordUsage(context.Context, session.Usage) error { return nil }
func (j *memJournal) RecordStopReason(context.Context, string) error   { return nil }
func (j *memJournal) StartMCPCall(_ context.Context, c engine.MCPCall) (string, error) {
	return j.add("mcp_call " + c.ServerLabel + " " + c.Name), nil
}
func (j *memJournal) FinishMCPCall(_ context.Context, _ string, output, errValue json.RawMessage, failed bool) error {
	j.add(fmt.Sprintf("mcp_done failed=%v output=%s error=%s", failed, output, errValue))
	return nil
}
func (j *memJournal) StartToolExecution(_ context.Context, c engine.ToolExecution) (string, error) {
	return j.add("tool " + c.Name), nil
}
func (j *memJournal) FinishToolExecution(_ context.Context, _ string, res engine.ToolExecutionResult) error {
	j.add(fmt.Sprintf("tool_done failed=%v output=%s", res.Failed, res.Output))
	return nil
}

type mapVault map[string]string

func (v mapVault) ResolveAPIKey(_ context.Context, arn string) (string, error) {
	if k, ok := v[arn]; ok {
		return k, nil
	}
	return "", fmt.Errorf("no API key credential provider %s", arn)
}

// TestMCPHeadersAndVaultReferencesReachEveryRequest runs the harness (the runtime's code path, with the go-sdk
// connector) against server-everything behind a recording proxy: configured headers, with a token-vault
// reference resolved at invocation time, are on every HTTP request; the resolved key is in no log line and no
// item. (The Agents API does not admit MCP headers; the AgentCore front door sets them.)
func TestMCPHeadersAndVaultReferencesReachEveryRequest(t *testing.T) {
	t.Parallel()
	server := stack.Everything(t)
	proxy := newRecordingProxy(t, server)
	const arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/everything-key"
	const key = "ek-0f9e8d7c6b5a"
	decl, _ := json.Marshal(map[string]any{"type": "mcp", "server_label": "everything", "required": true,
		"transport": map[string]any{"type": "http", "server_url": proxy.URL},
		"headers":   map[string]string{"x-api-key": "${" + arn + "}", "X-Team": "blue"}})
	script := `{"chunk_size":64,"rules":[{"when":{"user_contains":"sum"},"calls":[{"server_label":"everything","name":"get-sum","arguments":{"a":2,"b":40}}]},` +
		`{"when":{"after_tool":"*"},"reply":"` + resultsReply + `"}]}`
	cfg := agent.Config{Model: "scripted", Tools: []json.RawMessage{decl}, XBaton: &agent.Extension{Script: json.RawMessage(script)}}
	model, err := harness.Providers{harness.ProtocolScripted: scripted.New}.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	j := &memJournal{}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	out, err := harness.Run(ctx, harness.Job{TurnID: "turn_h", Config: cfg, Journal: j, MCP: &mcp.Connector{},
		Credentials: mapVault{arn: key}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		History: []session.Item{{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted,
			Content: []session.ContentPart{{Type: "input_text", Text: "sum"}}}}}, model)
	if err != nil || out.Status != "completed" {
		t.Fatalf("run: %+v %v", out, err)
	}
	if got := strings.Join(j.ops, "\n"); !strings.Contains(got, "The sum of 2 and 40 is 42.") || strings.Contains(got, key) {
		t.Errorf("journal:\n%s", got)
	}
	reqs := proxy.requests()
	if len(reqs) < 4 {
		t.Fatalf("the proxy saw %d requests, want initialize, initialized, tools/list, tools/call…", len(reqs))
	}
	for i, r := range reqs {
		if r.header.Get("X-Api-Key") != key || r.header.Get("X-Team") != "blue" {
			t.Errorf("request %d (%s) headers: x-api-key %q, x-team %q", i, r.method, r.header.Get("X-Api-Key"), r.header.Get("X-Team"))
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the resolved key is in the log:\n%s", logs.String())
	}
}
