package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
)

// TestHarnessRunsTheDeclaredBrowserInModelOrder runs the harness loop with the scripted model on a configuration
// that declares an agentcore_browser tool named "web", supplied by Pool.Tools: the model's four calls of one
// response (navigate, type, click, get_text) run in order in the same page, each journaled with its command, and
// the model's reply reads the page text the last one returned.
func TestHarnessRunsTheDeclaredBrowserInModelOrder(t *testing.T) {
	t.Parallel()
	srv := site(t)
	p := localPool(t, Config{})
	call := func(args string) string { return `{"name":"web","arguments":` + args + `}` }
	script := `{"rules":[{"when":{"user_contains":"greet"},"calls":[` +
		call(`{"action":"navigate","url":"`+srv.URL+`/","timeout_seconds":120}`) + `,` +
		call(`{"action":"type","selector":"#name","text":"Grace","timeout_seconds":120}`) + `,` +
		call(`{"action":"click","selector":"#go","timeout_seconds":120}`) + `,` +
		call(`{"action":"get_text","timeout_seconds":120}`) + `]},` +
		`{"when":{"after_tool":"web"},"reply":"{{range .Tools}}[{{.IsError}} {{.Output}}]{{end}}"}]}`
	cfg := agent.Config{Model: "scripted",
		Tools:  []json.RawMessage{json.RawMessage(`{"type":"agentcore_browser","name":"web"}`)},
		XBaton: &agent.Extension{Script: json.RawMessage(script)}}
	model, err := harness.Providers{harness.ProtocolScripted: scripted.New}.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := harness.Run(ctx, harness.Job{TurnID: "turn_browser", Config: cfg, Journal: j,
		Builtins: p.Tools("sesn_harness", cfg),
		History: []session.Item{{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted,
			Content: []session.ContentPart{{Type: "input_text", Text: "greet Grace"}}}}}, model)
	if err != nil || out.Status != harness.StatusCompleted {
		t.Fatalf("run: %+v, %v", out, err)
	}
	want := []string{
		"start web",
		"done browser navigate " + srv.URL + "/ failed=false",
		"start web",
		`done browser type #name "Grace" failed=false`,
		"start web",
		"done browser click #go failed=false",
		"start web",
		"done browser get_text failed=false",
	}
	if diff := cmp.Diff(want, j.tools()); diff != "" {
		t.Errorf("command_execution items (-want +got):\n%s", diff)
	}
	if reply := j.reply(); !strings.Contains(reply, "Hello, Grace!") || strings.Contains(reply, "[true") {
		t.Errorf("the model's reply %q does not show the page text after the click", reply)
	}
}

// journal records what the harness journals: the builtin tool executions and the final message.
type journal struct {
	mu   sync.Mutex
	ops  []string
	text string
	n    int
}

func (j *journal) next() string {
	j.n++
	return fmt.Sprintf("item_%d", j.n)
}

func (j *journal) tools() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.ops...)
}

func (j *journal) reply() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.text
}

func (j *journal) StartMessage(context.Context, string) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next(), nil
}
func (j *journal) AppendText(context.Context, string, string) error { return nil }
func (j *journal) FinishMessage(_ context.Context, _, text string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.text = text
	return nil
}
func (j *journal) RequestCalls(context.Context, []engine.PendingCall, ...engine.PendingCall) (int, error) {
	return 0, fmt.Errorf("no function is declared, so nothing may park the turn")
}
func (j *journal) RecordUsage(context.Context, session.Usage) error { return nil }
func (j *journal) RecordStopReason(context.Context, string) error   { return nil }
func (j *journal) StartToolExecution(_ context.Context, c engine.ToolExecution) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ops = append(j.ops, "start "+c.Name)
	return j.next(), nil
}
func (j *journal) FinishToolExecution(_ context.Context, _ string, r engine.ToolExecutionResult) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ops = append(j.ops, fmt.Sprintf("done %s failed=%v", r.Command, r.Failed))
	return nil
}
func (j *journal) StartMCPCall(context.Context, engine.MCPCall) (string, error) {
	return "", fmt.Errorf("no MCP server is declared")
}
func (j *journal) FinishMCPCall(context.Context, string, json.RawMessage, json.RawMessage, bool) error {
	return fmt.Errorf("no MCP server is declared")
}
