package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/shared/session"
)

// longTool is a server tool name of 70 characters.
var longTool = "a_very_long_tool_name_" + strings.Repeat("x", 48)

// recordingServer is an in-process go-sdk MCP server that records every HTTP request's headers and the raw
// arguments of every tools/call. Its tools: "ids" ({id: integer}), "echo" ({message: string}), "a.b/c d" and
// longTool (no arguments).
type recordingServer struct {
	URL     string
	mu      sync.Mutex
	headers []http.Header
	calls   []string
}

func newRecordingServer(t *testing.T) *recordingServer {
	t.Helper()
	rec := &recordingServer{}
	s := sdk.NewServer(&sdk.Implementation{Name: "recorder", Version: "1.0.0"}, nil)
	handler := func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		rec.mu.Lock()
		rec.calls = append(rec.calls, req.Params.Name+" "+string(req.Params.Arguments))
		rec.mu.Unlock()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "got " + string(req.Params.Arguments)}}}, nil
	}
	obj := func(props string, required ...string) json.RawMessage {
		r, _ := json.Marshal(required)
		if required == nil {
			r = []byte("[]")
		}
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s}`, props, r))
	}
	s.AddTool(&sdk.Tool{Name: "ids", Description: "Takes an integer id", InputSchema: obj(`"id":{"type":"integer"}`, "id")}, handler)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes", InputSchema: obj(`"message":{"type":"string"}`, "message")}, handler)
	s.AddTool(&sdk.Tool{Name: "a.b/c d", Description: "Awkward name", InputSchema: obj(``)}, handler)
	s.AddTool(&sdk.Tool{Name: longTool, Description: "Long name", InputSchema: obj(``)}, handler)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rec.URL = ts.URL + "/mcp"
	return rec
}

func (s *recordingServer) toolCalls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *recordingServer) requestHeaders() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// stepsModel answers step n with responses[n] (calls by model-facing name and raw arguments; an empty response
// is the final answer "done") and records the offered tool names of every request.
type stepsModel struct {
	responses [][]harness.Call
	mu        sync.Mutex
	offered   [][]string
	requests  []harness.Request
}

func (m *stepsModel) Stream(_ context.Context, req harness.Request) (harness.Stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	m.offered = append(m.offered, names)
	m.requests = append(m.requests, req)
	n := len(m.offered) - 1
	var parts []harness.Part
	if n < len(m.responses) && len(m.responses[n]) > 0 {
		for _, c := range m.responses[n] {
			parts = append(parts, harness.Part{Kind: harness.PartCall, Call: &harness.Call{Name: c.Name, Arguments: c.Arguments}})
		}
	} else {
		parts = []harness.Part{{Kind: harness.PartText, Text: "done"}}
	}
	return &partStream{parts: parts}, nil
}

type partStream struct{ parts []harness.Part }

func (s *partStream) Next() (harness.Part, error) {
	if len(s.parts) == 0 {
		return harness.Part{}, io.EOF
	}
	p := s.parts[0]
	s.parts = s.parts[1:]
	return p, nil
}
func (s *partStream) Close() error { return nil }

func calls(pairs ...string) []harness.Call {
	var out []harness.Call
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, harness.Call{Name: pairs[i], Arguments: json.RawMessage(pairs[i+1])})
	}
	return out
}

// queueJournal is journal plus the queued calls of RequestCalls.
type queueJournal struct {
	journal
	queued []engine.PendingCall
}

func (j *queueJournal) RequestCalls(ctx context.Context, c []engine.PendingCall, queued ...engine.PendingCall) (int, error) {
	j.queued = queued
	return j.journal.RequestCalls(ctx, c)
}

func toolsConfig(controls *agent.Controls, tools ...string) agent.Config {
	cfg := agent.Config{Model: "m", Controls: controls, Tools: []json.RawMessage{
		json.RawMessage(`{"type":"function","name":"lookup","description":"Look up","parameters":{"type":"object"}}`),
		json.RawMessage(`{"type":"function","name":"later","description":"Deferred","parameters":{"type":"object"},"defer_loading":true}`),
		json.RawMessage(`{"type":"tool_search"}`),
	}}
	for _, t := range tools {
		cfg.Tools = append(cfg.Tools, json.RawMessage(t))
	}
	return cfg
}

type runResult struct {
	out     harness.Outcome
	ops     []string
	queued  []engine.PendingCall
	offered [][]string
	model   *stepsModel
	logs    string
}

func runSteps(t *testing.T, job harness.Job, responses ...[]harness.Call) (runResult, error) {
	t.Helper()
	m := &stepsModel{responses: responses}
	j := &queueJournal{}
	var logs bytes.Buffer
	job.TurnID, job.Journal, job.Logger = "turn_t", j, slog.New(slog.NewTextHandler(&logs, nil))
	if job.MCP == nil {
		job.MCP = &mcp.Connector{}
	}
	if job.History == nil {
		job.History = []session.Item{{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted,
			Content: []session.ContentPart{{Type: "input_text", Text: "go"}}}}
	}
	out, err := harness.Run(context.Background(), job, m)
	return runResult{out: out, ops: j.ops, queued: j.queued, offered: m.offered, model: m, logs: logs.String()}, err
}

// lastResults are the tool results the model saw in its last request.
func lastResults(m *stepsModel) []harness.Result {
	req := m.requests[len(m.requests)-1]
	var out []harness.Result
	for _, msg := range req.Messages {
		out = append(out, msg.Results...)
	}
	return out
}

func TestArgumentsReachTheServerByteForByte(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	cfg := toolsConfig(nil, mcpTool("rec", srv.URL, ""))
	const args = `{"id":9007199254740993}`
	r, err := runSteps(t, harness.Job{Config: cfg}, calls("rec__ids", args))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ids " + args}, srv.toolCalls()); diff != "" {
		t.Errorf("tools/call arguments at the server (-want +got):\n%s", diff)
	}
	want := []string{"mcp_call rec ids " + args, `mcp_done completed output="got ` + strings.ReplaceAll(args, `"`, `\"`) + `" error=`, "message final_answer", "text done"}
	if diff := cmp.Diff(want, r.ops); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}

func TestArgumentsThatViolateTheInputSchemaAreNotForwarded(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	cfg := toolsConfig(nil, mcpTool("rec", srv.URL, ""))
	r, err := runSteps(t, harness.Job{Config: cfg}, calls("rec__ids", `{"id":3.5}`, "rec__echo", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.toolCalls(); len(got) != 0 {
		t.Errorf("the server was called: %q", got)
	}
	if len(r.ops) != 6 || r.ops[0] != `mcp_call rec ids {"id":3.5}` || !strings.HasPrefix(r.ops[1], `mcp_done failed output= error="MCP tool \"ids\" of server \"rec\" was not called: the arguments do not match the tool's input schema`) ||
		r.ops[2] != `mcp_call rec echo {}` || !strings.Contains(r.ops[3], "mcp_done failed") || !strings.Contains(r.ops[3], "message") {
		t.Fatalf("journal = %q, want two failed mcp_call items naming the schema violation", r.ops)
	}
	res := lastResults(r.model)
	if len(res) != 2 || !res[0].IsError || !res[1].IsError || !strings.Contains(res[0].Output, "integer") {
		t.Errorf("results the model saw = %+v, want two errors, the first naming the integer type", res)
	}
	if r.out.Status != "completed" {
		t.Errorf("outcome = %+v, want the loop to go on to the final answer", r.out)
	}
}

func TestCallsOfToolsThatWereNotOfferedGetAnErrorResult(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	mcpCall := func(label, name string) session.Item {
		return session.Item{Type: session.ItemMCPCall, CallID: "call_old_1", ServerLabel: label, Name: name, Arguments: json.RawMessage(`{}`),
			Status: session.ItemCompleted, Output: json.RawMessage(`"x"`)}
	}
	history := func(items ...session.Item) []session.Item {
		return append([]session.Item{{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted,
			Content: []session.ContentPart{{Type: "input_text", Text: "go"}}}}, items...)
	}
	tests := []struct {
		name    string
		job     harness.Job
		call    []harness.Call
		wantOps []string
		wantErr string
	}{
		{name: "a made-up name", job: harness.Job{Config: toolsConfig(nil)}, call: calls("no_such_tool", `{}`),
			wantOps: []string{"message final_answer", "text done"}, wantErr: `tool "no_such_tool" is not available`},
		{name: "a deferred function called before tool_search loaded it", job: harness.Job{Config: toolsConfig(nil)}, call: calls("later", `{}`),
			wantOps: []string{"message final_answer", "text done"}, wantErr: `tool "later" is not available`},
		{name: "a function allowedTools excludes", job: harness.Job{Config: toolsConfig(&agent.Controls{AllowedTools: []string{"@rec"}})}, call: calls("lookup", `{}`),
			wantOps: []string{"message final_answer", "text done"}, wantErr: `tool "lookup" is not available`},
		{name: "an MCP tool allowedTools excludes", job: harness.Job{Config: toolsConfig(&agent.Controls{AllowedTools: []string{"@rec/echo"}}, mcpTool("rec", srv.URL, ""))},
			call: calls("rec__ids", `{"id":1}`),
			wantOps: []string{`mcp_call rec ids {"id":1}`, `mcp_done failed output= error="MCP tool \"ids\" of server \"rec\" is not available: it was not offered in this request (not allowed, not listed by the server, or the server is unavailable). Call only the offered tools."`,
				"message final_answer", "text done"},
			wantErr: `MCP tool "ids" of server "rec" is not available`},
		{name: "an MCP tool of a server that is down, known from the history", job: harness.Job{Config: toolsConfig(nil, mcpTool("gone", "http://127.0.0.1:1/mcp", "")),
			History: history(mcpCall("gone", "a.b/c d"))},
			call: calls(harness.MCPToolName("gone", "a.b/c d"), `{}`),
			wantOps: []string{`mcp_call gone a.b/c d {}`, `mcp_done failed output= error="MCP tool \"a.b/c d\" of server \"gone\" is not available: it was not offered in this request (not allowed, not listed by the server, or the server is unavailable). Call only the offered tools."`,
				"message final_answer", "text done"},
			wantErr: `MCP tool "a.b/c d" of server "gone" is not available`},
		{name: "an MCP tool of a server that is down, by its label", job: harness.Job{Config: toolsConfig(nil, mcpTool("gone", "http://127.0.0.1:1/mcp", ""))},
			call: calls("gone__status", `{}`),
			wantOps: []string{`mcp_call gone status {}`, `mcp_done failed output= error="MCP tool \"status\" of server \"gone\" is not available: it was not offered in this request (not allowed, not listed by the server, or the server is unavailable). Call only the offered tools."`,
				"message final_answer", "text done"},
			wantErr: `MCP tool "status" of server "gone" is not available`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := runSteps(t, tc.job, tc.call)
			if err != nil {
				t.Fatal(err)
			}
			if r.out.Status != "completed" {
				t.Errorf("outcome = %+v, want completed (no required action)", r.out)
			}
			if diff := cmp.Diff(tc.wantOps, r.ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
			res := lastResults(r.model)
			if len(res) == 0 || !res[len(res)-1].IsError || !strings.HasPrefix(res[len(res)-1].Output, tc.wantErr) {
				t.Errorf("the model's last result = %+v, want an error starting %q", res, tc.wantErr)
			}
		})
	}
	for _, c := range srv.toolCalls() {
		if strings.HasPrefix(c, "ids ") {
			t.Errorf("a disallowed tool reached the server: %q", c)
		}
	}
}

func TestAllowedToolsPatternsFilterWhatIsOffered(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	awkward := harness.MCPToolName("rec", "a.b/c d")
	long := harness.MCPToolName("rec", longTool)
	tests := []struct {
		allowed []string
		want    []string
	}{
		{nil, []string{"lookup", "tool_search", awkward, long, "rec__echo", "rec__ids"}},
		{[]string{"*"}, []string{"lookup", "tool_search", awkward, long, "rec__echo", "rec__ids"}},
		{[]string{}, nil},
		{[]string{"lookup"}, []string{"lookup"}},
		{[]string{"@rec"}, []string{awkward, long, "rec__echo", "rec__ids"}},
		{[]string{"@rec/e*", "@builtin"}, []string{"rec__echo"}},
		{[]string{"@*/a.b*"}, []string{awkward}},
		{[]string{"@re*/ids", "look*", "tool_search"}, []string{"lookup", "tool_search", "rec__ids"}},
		{[]string{"@other"}, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%#v", tc.allowed), func(t *testing.T) {
			t.Parallel()
			controls := &agent.Controls{AllowedTools: tc.allowed}
			if tc.allowed == nil {
				controls = nil
			}
			r, err := runSteps(t, harness.Job{Config: toolsConfig(controls, mcpTool("rec", srv.URL, ""))})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.offered[0]); diff != "" {
				t.Errorf("offered (-want +got):\n%s", diff)
			}
		})
	}
	// A pattern that does not parse fails the run before anything is journaled.
	_, err := runSteps(t, harness.Job{Config: toolsConfig(&agent.Controls{AllowedTools: []string{"@a/b/c"}})})
	var ce *harness.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("bad pattern: error = %v, want a *ConfigError", err)
	}
}

func TestBuiltinToolsAreOfferedOnlyWithAnImplementation(t *testing.T) {
	t.Parallel()
	r, err := runSteps(t, harness.Job{Config: toolsConfig(&agent.Controls{BuiltinTools: true})}, calls("shell", `{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range r.offered[0] {
		if n == "shell" || n == "file_operations" {
			t.Errorf("builtin %q offered without an implementation", n)
		}
	}
	if res := lastResults(r.model); len(res) != 1 || !res[0].IsError {
		t.Errorf("a call of the unimplemented builtin = %+v, want an error result", res)
	}
	r, err = runSteps(t, harness.Job{Config: toolsConfig(&agent.Controls{BuiltinTools: true, AllowedTools: []string{"@builtin/shell"}}),
		Builtins: map[string]harness.BuiltinTool{"shell": echoBuiltin{}, "file_operations": echoBuiltin{}}}, calls("shell", `{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shell"}, r.offered[0]); diff != "" {
		t.Errorf("offered with implementations and @builtin/shell (-want +got):\n%s", diff)
	}
	if res := lastResults(r.model); len(res) != 1 || res[0].IsError || res[0].Output != `ran {"command":"ls"}` {
		t.Errorf("shell result = %+v", res)
	}
}

type echoBuiltin struct{}

func (echoBuiltin) Definition() harness.Tool {
	return harness.Tool{Description: "test builtin", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (echoBuiltin) Call(_ context.Context, args json.RawMessage) (harness.BuiltinResult, error) {
	return harness.BuiltinResult{Output: "ran " + string(args)}, nil
}

func TestMCPToolNamesSatisfyProviderRulesAndItemsKeepTheOriginals(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	cfg := toolsConfig(nil, mcpTool("my.server", srv.URL, ""))
	awkward := harness.MCPToolName("my.server", "a.b/c d")
	long := harness.MCPToolName("my.server", longTool)
	r, err := runSteps(t, harness.Job{Config: cfg}, calls(awkward, `{}`, long, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range r.offered[0] {
		if !harness.ProviderToolName.MatchString(n) {
			t.Errorf("offered name %q breaks the provider rule", n)
		}
	}
	if awkward == long || !strings.HasPrefix(awkward, "my_server__a_b_c_d_") || len(long) != 64 {
		t.Errorf("mapped names %q, %q", awkward, long)
	}
	want := []string{"a.b/c d {}", longTool + " {}"}
	if diff := cmp.Diff(want, srv.toolCalls()); diff != "" {
		t.Errorf("server calls (-want +got):\n%s", diff)
	}
	if r.ops[0] != "mcp_call my.server a.b/c d {}" || r.ops[2] != "mcp_call my.server "+longTool+" {}" {
		t.Errorf("mcp_call items keep the original names: %q", r.ops)
	}
	// The name is stable: the history's items map back to the same model-facing names.
	again := harness.Conversation([]session.Item{{Type: session.ItemMCPCall, CallID: "c", ServerLabel: "my.server", Name: "a.b/c d", Status: session.ItemCompleted}})
	if again[0].Calls[0].Name != awkward {
		t.Errorf("Conversation names the call %q, want %q", again[0].Calls[0].Name, awkward)
	}
}

// vault is a CredentialResolver over a map.
type vault map[string]string

func (v vault) ResolveAPIKey(_ context.Context, arn string) (string, error) {
	k, ok := v[arn]
	if !ok {
		return "", fmt.Errorf("no API key credential provider %s", arn)
	}
	return k, nil
}

const keyARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-key"

func headerTool(label, url string) string {
	return fmt.Sprintf(`{"type":"mcp","server_label":%q,"transport":{"type":"http","server_url":%q},"headers":{"x-api-key":"${%s}","X-Team":"blue","Authorization":"Key ${%s}"}}`, label, url, keyARN, keyARN)
}

func TestHeadersAndVaultReferencesAreSentOnEveryRequest(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	r, err := runSteps(t, harness.Job{Config: toolsConfig(nil, headerTool("rec", srv.URL)), Credentials: vault{keyARN: "sk-resolved-1234"}},
		calls("rec__echo", `{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.requestHeaders()
	if len(hs) < 4 {
		t.Fatalf("the server saw %d requests, want initialize, initialized, tools/list, tools/call, DELETE", len(hs))
	}
	for i, h := range hs {
		if h.Get("X-Api-Key") != "sk-resolved-1234" || h.Get("X-Team") != "blue" || h.Get("Authorization") != "Key sk-resolved-1234" {
			t.Errorf("request %d headers: x-api-key %q, x-team %q, authorization %q", i, h.Get("X-Api-Key"), h.Get("X-Team"), h.Get("Authorization"))
		}
	}
	if strings.Contains(r.logs, "sk-resolved") || strings.Contains(strings.Join(r.ops, "\n"), "sk-resolved") {
		t.Errorf("the resolved key leaked into logs or items")
	}
}

func TestVaultReferencesWithoutAResolverFailTheServer(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	// Optional server: its tools are not offered, the run goes on, the log names the reason (not a key).
	r, err := runSteps(t, harness.Job{Config: toolsConfig(nil, headerTool("rec", srv.URL))})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"lookup", "tool_search"}, r.offered[0]); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.logs, "no token vault") {
		t.Errorf("log does not explain the failure: %s", r.logs)
	}
	if len(srv.requestHeaders()) != 0 {
		t.Errorf("the server was contacted without its headers")
	}
	// Required server: the run fails with a *ConfigError wrapping ErrNoCredentialResolver.
	req := strings.Replace(headerTool("rec", srv.URL), `"headers"`, `"required":true,"headers"`, 1)
	_, err = runSteps(t, harness.Job{Config: toolsConfig(nil, req)})
	var ce *harness.ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, harness.ErrNoCredentialResolver) {
		t.Errorf("required server without a resolver: %v", err)
	}
	// A resolver that does not know the reference: the error names the reference, never a key.
	_, err = runSteps(t, harness.Job{Config: toolsConfig(nil, req), Credentials: vault{}})
	if err == nil || !strings.Contains(err.Error(), keyARN) {
		t.Errorf("unknown reference: %v", err)
	}
}

func TestToolOrderPausesOnTheFirstFunctionAndQueuesTheRest(t *testing.T) {
	t.Parallel()
	srv := newRecordingServer(t)
	cfg := toolsConfig(nil, mcpTool("rec", srv.URL, ""))
	// [MCP A, function B, function B2, MCP C, function D]: A runs, the turn parks on B and B2, C and D are queued.
	r, err := runSteps(t, harness.Job{Config: cfg},
		calls("rec__echo", `{"message":"A"}`, "lookup", `{"q":"B"}`, "lookup", `{"q":"B2"}`, "rec__echo", `{"message":"C"}`, "lookup", `{"q":"D"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.out.Status != "requires_action" {
		t.Fatalf("outcome %+v", r.out)
	}
	wantOps := []string{`mcp_call rec echo {"message":"A"}`, `mcp_done completed output="got {\"message\":\"A\"}" error=`, "function_call lookup", "function_call lookup"}
	if diff := cmp.Diff(wantOps, r.ops); diff != "" {
		t.Errorf("first task journal (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`echo {"message":"A"}`}, srv.toolCalls()); diff != "" {
		t.Errorf("server calls before the results (-want +got):\n%s", diff)
	}
	if len(r.queued) != 2 || r.queued[0].Name != "rec__echo" || string(r.queued[0].Arguments) != `{"message":"C"}` || r.queued[1].Name != "lookup" {
		t.Fatalf("queued = %+v, want C then D", r.queued)
	}
	// The results of B and B2 arrive: the resumed task runs C, then parks on D with nothing queued.
	hist := []session.Item{
		{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted, Content: []session.ContentPart{{Type: "input_text", Text: "go"}}},
		{Type: session.ItemMCPCall, CallID: "call_t_1", ServerLabel: "rec", Name: "echo", Arguments: json.RawMessage(`{"message":"A"}`), Status: session.ItemCompleted, Output: json.RawMessage(`"got"`)},
		{Type: session.ItemFunctionCall, CallID: "call_t_2", Name: "lookup", Arguments: json.RawMessage(`{"q":"B"}`), Status: session.ItemCompleted},
		{Type: session.ItemFunctionCall, CallID: "call_t_3", Name: "lookup", Arguments: json.RawMessage(`{"q":"B2"}`), Status: session.ItemCompleted},
		{Type: session.ItemFunctionCallOutput, CallID: "call_t_2", Output: json.RawMessage(`"b"`), Status: session.ItemCompleted},
		{Type: session.ItemFunctionCallOutput, CallID: "call_t_3", Output: json.RawMessage(`"b2"`), Status: session.ItemCompleted},
	}
	r2, err := runSteps(t, harness.Job{Config: cfg, History: hist, Queued: r.queued})
	if err != nil {
		t.Fatal(err)
	}
	wantOps = []string{`mcp_call rec echo {"message":"C"}`, `mcp_done completed output="got {\"message\":\"C\"}" error=`, "function_call lookup"}
	if diff := cmp.Diff(wantOps, r2.ops); diff != "" {
		t.Errorf("resumed task journal (-want +got):\n%s", diff)
	}
	if r2.out.Status != "requires_action" || len(r2.queued) != 0 || len(r2.offered) != 0 {
		t.Errorf("resumed task: outcome %+v, queued %+v, model asked %d times (want parked on D, no model step)", r2.out, r2.queued, len(r2.offered))
	}
	// A queue whose calls all run in the harness continues with a model step that sees C's call and result.
	r3, err := runSteps(t, harness.Job{Config: cfg, History: hist, Queued: r.queued[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if r3.out.Status != "completed" || len(r3.model.requests) != 1 {
		t.Fatalf("outcome %+v after %d model requests", r3.out, len(r3.model.requests))
	}
	msgs := r3.model.requests[0].Messages
	last := msgs[len(msgs)-2:]
	if last[0].Role != harness.RoleAssistant || last[0].Calls[0].ID != r.queued[0].CallID || last[1].Role != harness.RoleTool || last[1].Results[0].Output != `got {"message":"C"}` {
		t.Errorf("the model's conversation ends with %+v", last)
	}
	// A retried task does not call C again when its mcp_call item is already in the history.
	before := len(srv.toolCalls())
	done := append(append([]session.Item(nil), hist...), session.Item{Type: session.ItemMCPCall, CallID: r.queued[0].CallID, ServerLabel: "rec", Name: "echo",
		Arguments: json.RawMessage(`{"message":"C"}`), Status: session.ItemCompleted, Output: json.RawMessage(`"got"`)})
	if _, err := runSteps(t, harness.Job{Config: cfg, History: done, Queued: r.queued[:1]}); err != nil {
		t.Fatal(err)
	}
	if after := len(srv.toolCalls()); after != before {
		t.Errorf("the retried task called the server %d more times", after-before)
	}
}

func TestARejectedCallIsShownToTheProviderUnderASafeName(t *testing.T) {
	t.Parallel()
	r, err := runSteps(t, harness.Job{Config: toolsConfig(nil)}, calls("functions.lookup", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	req := r.model.requests[len(r.model.requests)-1]
	var names []string
	for _, m := range req.Messages {
		for _, c := range m.Calls {
			names = append(names, c.Name)
		}
		for _, res := range m.Results {
			names = append(names, res.Name)
			if !strings.HasPrefix(res.Output, `tool "functions.lookup" is not available`) {
				t.Errorf("result %q does not name the original tool", res.Output)
			}
		}
	}
	if len(names) != 2 || names[0] != names[1] || !harness.ProviderToolName.MatchString(names[0]) {
		t.Errorf("names in the next request = %q, want one provider-safe name for the call and its result", names)
	}
}

// TestBuiltinCallsKeepModelOrderAroundAnInlineCall: in one response [builtin A, function B, declared code
// interpreter C], A runs and is journaled as a command_execution, the turn parks on B with C queued, and C runs only
// in the task that resumes after B's result (docs/tools.md "Order of tool calls"); a retried resume does not run C
// again once its item is in the history.
func TestBuiltinCallsKeepModelOrderAroundAnInlineCall(t *testing.T) {
	t.Parallel()
	ci := &countingBuiltin{}
	cfg := toolsConfig(&agent.Controls{BuiltinTools: true}, `{"type":"agentcore_code_interpreter","name":"code"}`)
	builtins := map[string]harness.BuiltinTool{"shell": echoBuiltin{}, "code": ci}
	r, err := runSteps(t, harness.Job{Config: cfg, Builtins: builtins},
		calls("shell", `{"command":"echo A"}`, "lookup", `{"q":"B"}`, "code", `{"code":"print(1)"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantOps := []string{`tool shell {"command":"echo A"}`, `tool_done failed=false output=ran {"command":"echo A"}`, "function_call lookup"}
	if diff := cmp.Diff(wantOps, r.ops); diff != "" {
		t.Errorf("first task journal (-want +got):\n%s", diff)
	}
	if ci.n != 0 || len(r.queued) != 1 || r.queued[0].Name != "code" {
		t.Fatalf("before B's result: code interpreter ran %d times, queued %+v", ci.n, r.queued)
	}
	if diff := cmp.Diff([]string{"lookup", "tool_search", "shell", "code"}, r.offered[0]); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	hist := []session.Item{
		{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted, Content: []session.ContentPart{{Type: "input_text", Text: "go"}}},
		{Type: session.ItemCommandExecution, CallID: "call_t_1", Name: "shell", Arguments: json.RawMessage(`{"command":"echo A"}`), Status: session.ItemCompleted, Output: json.RawMessage(`"A"`)},
		{Type: session.ItemFunctionCall, CallID: "call_t_2", Name: "lookup", Arguments: json.RawMessage(`{"q":"B"}`), Status: session.ItemCompleted},
		{Type: session.ItemFunctionCallOutput, CallID: "call_t_2", Output: json.RawMessage(`"b"`), Status: session.ItemCompleted},
	}
	r2, err := runSteps(t, harness.Job{Config: cfg, Builtins: builtins, History: hist, Queued: r.queued})
	if err != nil {
		t.Fatal(err)
	}
	if ci.n != 1 || r2.out.Status != "completed" {
		t.Fatalf("resumed task: code interpreter ran %d times, outcome %+v", ci.n, r2.out)
	}
	msgs := r2.model.requests[0].Messages
	if len(msgs) < 5 || msgs[1].Calls[0].Name != "shell" || msgs[2].Results[0].Output != "A" || msgs[3].Calls[0].Name != "lookup" || msgs[4].Results[0].Output != "b" {
		t.Errorf("history = %+v, want shell's call and result, then lookup's", msgs)
	}
	last := msgs[len(msgs)-2:]
	if last[0].Calls[0].Name != "code" || last[1].Results[0].Output != `ran 1 {"code":"print(1)"}` {
		t.Errorf("the model's conversation ends with %+v", last)
	}
	done := append(append([]session.Item(nil), hist...), session.Item{Type: session.ItemCommandExecution, CallID: r.queued[0].CallID,
		Name: "code", Arguments: json.RawMessage(`{"code":"print(1)"}`), Status: session.ItemCompleted, Output: json.RawMessage(`"1"`)})
	if _, err := runSteps(t, harness.Job{Config: cfg, Builtins: builtins, History: done, Queued: r.queued}); err != nil {
		t.Fatal(err)
	}
	if ci.n != 1 {
		t.Errorf("a retried resume ran the code interpreter again (%d runs)", ci.n)
	}
}

// TestADeclaredHostedToolTheRuntimeLacksFailsTheRun: a declared browser the runtime cannot supply is a
// configuration error, not a silently missing tool; arguments that break a builtin's schema are refused unrun.
func TestADeclaredHostedToolTheRuntimeLacksFailsTheRun(t *testing.T) {
	t.Parallel()
	cfg := toolsConfig(nil, `{"type":"agentcore_browser","name":"browser"}`)
	_, err := runSteps(t, harness.Job{Config: cfg}, calls("browser", `{}`))
	var ce *harness.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Cause, `agentcore_browser tool "browser"`) {
		t.Fatalf("error = %v, want a *ConfigError naming the browser tool", err)
	}
	ci := &countingBuiltin{}
	cfg = toolsConfig(nil, `{"type":"agentcore_code_interpreter","name":"code"}`)
	r, err := runSteps(t, harness.Job{Config: cfg, Builtins: map[string]harness.BuiltinTool{"code": ci}}, calls("code", `{"code":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if ci.n != 0 {
		t.Errorf("the tool ran with arguments that break its schema")
	}
	if res := lastResults(r.model); len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Output, "was not run") {
		t.Errorf("result = %+v, want an error saying the tool was not run", res)
	}
	if len(r.ops) < 2 || !strings.HasPrefix(r.ops[1], "tool_done failed=true") {
		t.Errorf("journal = %q, want a failed command_execution", r.ops)
	}
}

// countingBuiltin is a code-interpreter-shaped builtin that counts its runs.
type countingBuiltin struct{ n int }

func (*countingBuiltin) Definition() harness.Tool {
	return harness.Tool{Description: "run code", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)}
}
func (c *countingBuiltin) Call(_ context.Context, args json.RawMessage) (harness.BuiltinResult, error) {
	c.n++
	return harness.BuiltinResult{Output: fmt.Sprintf("ran %d %s", c.n, args)}, nil
}
