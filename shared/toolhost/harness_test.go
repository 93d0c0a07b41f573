package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/workspace"
	"github.com/baton-run/baton/shared/workspace/workspacetest"
)

// stepModel answers each request with the next scripted response (calls, or a final text) and records the
// requests. It stands in for a model provider.
type stepModel struct {
	mu        sync.Mutex
	responses [][]harness.Part
	requests  []harness.Request
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

func (m *stepModel) Stream(_ context.Context, req harness.Request) (harness.Stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	if len(m.responses) == 0 {
		return nil, fmt.Errorf("no scripted response left")
	}
	r := m.responses[0]
	m.responses = m.responses[1:]
	return &partStream{parts: r}, nil
}

// execJournal records the command_execution items; the harness's other output is accepted and dropped.
type execJournal struct {
	started  []engine.ToolExecution
	finished []engine.ToolExecutionResult
	final    string
}

func (j *execJournal) StartMessage(context.Context, string) (string, error) { return "msg", nil }
func (j *execJournal) AppendText(context.Context, string, string) error     { return nil }
func (j *execJournal) FinishMessage(_ context.Context, _, text string) error {
	j.final = text
	return nil
}
func (j *execJournal) RequestCalls(context.Context, []engine.PendingCall, ...engine.PendingCall) (int, error) {
	return 0, fmt.Errorf("no function call expected")
}
func (j *execJournal) RecordUsage(context.Context, session.Usage) error { return nil }
func (j *execJournal) RecordStopReason(context.Context, string) error   { return nil }
func (j *execJournal) StartToolExecution(_ context.Context, c engine.ToolExecution) (string, error) {
	j.started = append(j.started, c)
	return fmt.Sprint(len(j.started)), nil
}
func (j *execJournal) FinishToolExecution(_ context.Context, _ string, r engine.ToolExecutionResult) error {
	r.DurationMs = 0
	j.finished = append(j.finished, r)
	return nil
}
func (j *execJournal) StartMCPCall(context.Context, engine.MCPCall) (string, error) {
	return "", fmt.Errorf("no MCP call expected")
}
func (j *execJournal) FinishMCPCall(context.Context, string, json.RawMessage, json.RawMessage, bool) error {
	return fmt.Errorf("no MCP call expected")
}

func call(name, args string) harness.Part {
	return harness.Part{Kind: harness.PartCall, Call: &harness.Call{Name: name, Arguments: json.RawMessage(args)}}
}

// The harness offers the host's tools, checks arguments against their definitions, runs them in the Session's
// workspace and journals each as a command_execution item.
func TestTheHarnessRunsTheHostsToolsInOneWorkspace(t *testing.T) {
	t.Parallel()
	m := workspacetest.NewManager(t, workspace.Limits{})
	cfg := config(true, `{"type":"agentcore_code_interpreter","name":"code"}`)
	cfg.Model = "m"
	tools, release, err := New(m, nil).Tools(context.Background(), "sess-h", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	model := &stepModel{responses: [][]harness.Part{
		{call("file_operations", `{"command":"create","path":"app/main.py","file_text":"print('hi from main')\n"}`),
			call("shell", `{"command":"python3 app/main.py"}`),
			call("shell", `{"command":5}`),
			call("code", `{"code":"open('app/out.txt','w').write('x')","language":"python"}`)},
		{{Kind: harness.PartText, Text: "done"}},
	}}
	j := &execJournal{}
	job := harness.Job{TurnID: "turn_1", Config: cfg, Journal: j, Builtins: tools,
		History: []session.Item{{Type: session.ItemMessage, Role: "user", Content: []session.ContentPart{{Type: "input_text", Text: "go"}}}}}
	out, err := harness.Run(context.Background(), job, model)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != harness.StatusCompleted || j.final != "done" {
		t.Fatalf("outcome %+v, final %q", out, j.final)
	}
	var offered []string
	for _, tool := range model.requests[0].Tools {
		offered = append(offered, tool.Name)
	}
	if diff := cmp.Diff([]string{"shell", "file_operations", "code"}, offered); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	want := []engine.ToolExecutionResult{
		{Command: "file_operations create app/main.py", Cwd: "/workspace", Output: "Created /workspace/app/main.py (1 lines, 22 bytes)."},
		{Command: "python3 app/main.py", Cwd: "/workspace", Output: "exit_code: 0\nstdout:\nhi from main"},
		{Output: `tool "shell" was not run: the arguments do not match the tool's input schema: ` +
			"jsonschema validation failed with 'urn:baton:mcp-input-schema#'\n- at '/command': got number, want string", Failed: true},
		{Command: "open('app/out.txt','w').write('x')", Output: "exit_code: 0\n(no output)\nfiles created or changed:\napp/out.txt"},
	}
	if diff := cmp.Diff(want, j.finished); diff != "" {
		t.Errorf("command_execution results (-want +got):\n%s", diff)
	}
	// The model read the same outputs, in call order.
	last := model.requests[1].Messages[len(model.requests[1].Messages)-1]
	if len(last.Results) != 4 || last.Results[1].Output != want[1].Output || !last.Results[2].IsError {
		t.Errorf("results the model read: %+v", last.Results)
	}
}
