package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type echoIn struct {
	Message string `json:"message"`
}

// server is an in-process MCP server (the go-sdk's own) behind a recorder of Authorization headers.
type server struct {
	URL  string
	mu   sync.Mutex
	auth []string
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test-tools", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two integers"}, func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the message"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: "}, &sdk.TextContent{Text: in.Message}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "broken", Description: "Always fails"}, func(_ context.Context, _ *sdk.CallToolRequest, _ echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk on fire"}}}, nil, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	rec := &server{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.auth = append(rec.auth, r.Method+" "+r.Header.Get("Authorization"))
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rec.URL = ts.URL + "/mcp"
	return rec
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// journal records what the harness journals.
type journal struct {
	ops []string
	n   int
}

func (j *journal) StartMessage(_ context.Context, phase string) (string, error) {
	j.n++
	j.ops = append(j.ops, "message "+phase)
	return fmt.Sprintf("msg_%d", j.n), nil
}
func (j *journal) AppendText(context.Context, string, string) error { return nil }
func (j *journal) FinishMessage(_ context.Context, _, text string) error {
	j.ops = append(j.ops, "text "+text)
	return nil
}
func (j *journal) RequestCalls(_ context.Context, calls []engine.PendingCall, _ ...engine.PendingCall) (int, error) {
	for _, c := range calls {
		j.ops = append(j.ops, "function_call "+c.Name)
	}
	return 1, nil
}
func (j *journal) RecordUsage(context.Context, session.Usage) error { return nil }
func (j *journal) RecordStopReason(context.Context, string) error   { return nil }
func (j *journal) StartMCPCall(_ context.Context, c engine.MCPCall) (string, error) {
	j.n++
	j.ops = append(j.ops, fmt.Sprintf("mcp_call %s %s %s", c.ServerLabel, c.Name, c.Arguments))
	return fmt.Sprintf("mcp_%d", j.n), nil
}
func (j *journal) FinishMCPCall(_ context.Context, _ string, output, errValue json.RawMessage, failed bool) error {
	status := "completed"
	if failed {
		status = "failed"
	}
	j.ops = append(j.ops, fmt.Sprintf("mcp_done %s output=%s error=%s", status, output, errValue))
	return nil
}

const script = `{
  "chunk_size": 1000, "omit_usage": true,
  "rules": [
    {"when": {"user_contains": "add"}, "calls": [{"server_label": "calc", "name": "add", "arguments": {"a": 2, "b": 40}}]},
    {"when": {"user_contains": "both"}, "commentary": "Working.", "calls": [
      {"server_label": "calc", "name": "echo", "arguments": {"message": "hi"}},
      {"name": "lookup", "arguments": {"q": "x"}}]},
    {"when": {"user_contains": "break"}, "calls": [{"server_label": "calc", "name": "broken", "arguments": {"message": "x"}}]},
    {"when": {"user_contains": "tools"}, "reply": "{{range .ToolNames}}{{.}} {{end}}"},
    {"when": {"after_tool": "calc__add"}, "calls": [{"server_label": "calc", "name": "echo", "arguments": {"message": "{{tool_output \"calc__add\"}}"}}]},
    {"when": {"after_tool": "*"}, "reply": "done: {{range .Tools}}[{{.Name}} {{.Output}} {{.IsError}}]{{end}}"}
  ]
}`

// addThenEchoOps is the journal of the script's "add please" against the calc server: add, then echo of its
// output, then the final answer reading both results.
var addThenEchoOps = []string{
	`mcp_call calc add {"a":2,"b":40}`,
	`mcp_done completed output={"sum":42} error=`,
	`mcp_call calc echo {"message":"{\"sum\":42}"}`,
	`mcp_done completed output="Echo: {\"sum\":42}" error=`,
	"message final_answer",
	`text done: [calc__add {"sum":42} false][calc__echo Echo: {"sum":42} false]`,
}

func mcpConfig(tools ...string) agent.Config {
	cfg := agent.Config{Model: "scripted", XBaton: &agent.Extension{Script: json.RawMessage(script)},
		Tools: []json.RawMessage{json.RawMessage(`{"type":"function","name":"lookup","description":"Look up","parameters":{"type":"object"}}`)}}
	for _, t := range tools {
		cfg.Tools = append(cfg.Tools, json.RawMessage(t))
	}
	return cfg
}

func mcpTool(label, url, extra string) string {
	return fmt.Sprintf(`{"type":"mcp","server_label":%q,"transport":{"type":"http","server_url":%q,"headers":{}}%s}`, label, url, extra)
}

// run is runOn with a Connector of the plain MCP transport.
func run(t *testing.T, cfg agent.Config, text string) (harness.Outcome, []string, error) {
	t.Helper()
	return runOn(t, &mcp.Connector{}, cfg, text)
}

// runOn runs the harness on cfg's scripted model for one user message text, connecting MCP servers with c; it
// returns the outcome, what the harness journaled (journal.ops) and the run's error.
func runOn(t *testing.T, c *mcp.Connector, cfg agent.Config, text string) (harness.Outcome, []string, error) {
	t.Helper()
	model, err := scripted.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	hist := []session.Item{{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted,
		Content: []session.ContentPart{{Type: "input_text", Text: text}}}}
	out, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_t", Config: cfg, History: hist, Journal: j,
		MCP: c}, model)
	return out, j.ops, err
}

func TestHarnessRunsMCPToolsAgainstAGoSDKServer(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	unreachable := "http://127.0.0.1:1/mcp"
	tests := []struct {
		name    string
		cfg     agent.Config
		input   string
		want    harness.Outcome
		wantOps []string
		wantErr string
	}{
		{
			name:    "two MCP steps in one activity task, structured content then joined text, then the final answer",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, "")),
			input:   "add please",
			want:    harness.Outcome{Status: "completed"},
			wantOps: addThenEchoOps,
		},
		{
			name:  "an MCP call and a function call in one response: the MCP call runs, the function parks the turn",
			cfg:   mcpConfig(mcpTool("calc", srv.URL, "")),
			input: "both",
			want:  harness.Outcome{Status: "requires_action", Round: 1},
			wantOps: []string{"message commentary", "text Working.", `mcp_call calc echo {"message":"hi"}`,
				`mcp_done completed output="Echo: hi" error=`, "function_call lookup"},
		},
		{
			name:    "a tool result with isError is a failed mcp_call the model reads as an error",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, "")),
			input:   "break it",
			want:    harness.Outcome{Status: "completed"},
			wantOps: []string{`mcp_call calc broken {"message":"x"}`, `mcp_done failed output= error="disk on fire"`, "message final_answer", "text done: [calc__broken disk on fire true]"},
		},
		{
			name:    "allowed_tools null offers every tool, after the functions",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, `,"allowed_tools":null`)),
			input:   "tools",
			want:    harness.Outcome{Status: "completed"},
			wantOps: []string{"message final_answer", "text lookup calc__add calc__broken calc__echo "},
		},
		{
			name:    "allowed_tools filters the offered tools",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, `,"allowed_tools":["echo","missing"]`)),
			input:   "tools",
			want:    harness.Outcome{Status: "completed"},
			wantOps: []string{"message final_answer", "text lookup calc__echo "},
		},
		{
			name:    "allowed_tools [] offers none",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, `,"allowed_tools":[]`)),
			input:   "tools",
			want:    harness.Outcome{Status: "completed"},
			wantOps: []string{"message final_answer", "text lookup "},
		},
		{
			name:    "an optional server that cannot be reached is left out",
			cfg:     mcpConfig(mcpTool("gone", unreachable, `,"required":false`), mcpTool("calc", srv.URL, `,"allowed_tools":["add"]`)),
			input:   "tools",
			want:    harness.Outcome{Status: "completed"},
			wantOps: []string{"message final_answer", "text lookup calc__add "},
		},
		{
			name:    "a required server that cannot be reached fails the run before any output",
			cfg:     mcpConfig(mcpTool("calc", srv.URL, ""), mcpTool("gone", unreachable, `,"required":true`)),
			input:   "tools",
			wantErr: `harness configuration: required MCP server "gone" failed to initialize`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ops, err := run(t, tc.cfg, tc.input)
			if tc.wantErr != "" {
				var ce *harness.ConfigError
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || !errors.As(err, &ce) {
					t.Fatalf("error = %v, want a *ConfigError starting with %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantOps, ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBearerTokenIsSentOnEveryRequest(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cfg := mcpConfig(mcpTool("calc", srv.URL, ""))
	cfg.MCPBearerTokens = map[string]string{"calc": "s3cret-token"}
	if _, _, err := run(t, cfg, "add please"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) < 4 {
		t.Fatalf("the server saw only %d requests: %q", len(reqs), reqs)
	}
	for _, r := range reqs {
		if !strings.HasSuffix(r, " Bearer s3cret-token") {
			t.Errorf("request without the bearer token: %q (all: %q)", r, reqs)
		}
	}
}

func TestAnonymousServerGetsNoAuthorization(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	if _, _, err := run(t, mcpConfig(mcpTool("calc", srv.URL, "")), "add please"); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.requests() {
		if strings.Contains(r, "Bearer") {
			t.Errorf("anonymous request carries a token: %q", r)
		}
	}
}

func TestObserveMapsResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want harness.MCPResult
	}{
		{"text parts are joined into one string", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.ImageContent{MIMEType: "image/png"}, &sdk.TextContent{Text: "b"}}},
			harness.MCPResult{Output: json.RawMessage(`"ab"`)}},
		{"structured content wins over text", &sdk.CallToolResult{StructuredContent: map[string]any{"x": 1}, Content: []sdk.Content{&sdk.TextContent{Text: `{"x":1}`}}},
			harness.MCPResult{Output: json.RawMessage(`{"x":1}`)}},
		{"no content is the empty string", &sdk.CallToolResult{}, harness.MCPResult{Output: json.RawMessage(`""`)}},
		{"isError is kept", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad"}}},
			harness.MCPResult{Output: json.RawMessage(`"bad"`), IsError: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := mcp.Observe(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func (j *journal) StartToolExecution(_ context.Context, c engine.ToolExecution) (string, error) {
	j.n++
	j.ops = append(j.ops, fmt.Sprintf("tool %s %s", c.Name, c.Arguments))
	return fmt.Sprintf("cmd_%d", j.n), nil
}
func (j *journal) FinishToolExecution(_ context.Context, _ string, res engine.ToolExecutionResult) error {
	j.ops = append(j.ops, fmt.Sprintf("tool_done failed=%v output=%s", res.Failed, res.Output))
	return nil
}
