package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
)

// op is one journal call as the fake records it.
type op struct {
	Op     string
	Phase  string               `json:",omitempty"`
	ItemID string               `json:",omitempty"`
	Text   string               `json:",omitempty"`
	Calls  []engine.PendingCall `json:",omitempty"`
	Usage  *session.Usage       `json:",omitempty"`
}

// journal is a fake harness.Journal that records every call; failOn makes that operation fail.
type journal struct {
	ops    []op
	msgs   int
	round  int
	failOn string
}

func (j *journal) fail(name string) error {
	if j.failOn == name {
		return fmt.Errorf("%s: %w", name, engine.ErrTurnNotRunnable)
	}
	return nil
}

func (j *journal) StartMessage(_ context.Context, phase string) (string, error) {
	if err := j.fail("start"); err != nil {
		return "", err
	}
	j.msgs++
	id := fmt.Sprintf("msg_%d", j.msgs)
	j.ops = append(j.ops, op{Op: "start", Phase: phase, ItemID: id})
	return id, nil
}

func (j *journal) AppendText(_ context.Context, itemID, delta string) error {
	if err := j.fail("append"); err != nil {
		return err
	}
	j.ops = append(j.ops, op{Op: "append", ItemID: itemID, Text: delta})
	return nil
}

func (j *journal) FinishMessage(_ context.Context, itemID, text string) error {
	if err := j.fail("finish"); err != nil {
		return err
	}
	j.ops = append(j.ops, op{Op: "finish", ItemID: itemID, Text: text})
	return nil
}

func (j *journal) RequestCalls(_ context.Context, calls []engine.PendingCall, _ ...engine.PendingCall) (int, error) {
	if err := j.fail("calls"); err != nil {
		return 0, err
	}
	j.round++
	j.ops = append(j.ops, op{Op: "calls", Calls: calls})
	return j.round, nil
}

func (j *journal) RecordUsage(_ context.Context, u session.Usage) error {
	if err := j.fail("usage"); err != nil {
		return err
	}
	j.ops = append(j.ops, op{Op: "usage", Usage: &u})
	return nil
}

func (j *journal) RecordStopReason(_ context.Context, reason string) error {
	if err := j.fail("stop"); err != nil {
		return err
	}
	j.ops = append(j.ops, op{Op: "stop", Text: reason})
	return nil
}

func (j *journal) StartMCPCall(_ context.Context, c engine.MCPCall) (string, error) {
	if err := j.fail("mcp_start"); err != nil {
		return "", err
	}
	j.msgs++
	id := fmt.Sprintf("mcp_%d", j.msgs)
	j.ops = append(j.ops, op{Op: "mcp_start", ItemID: id, Text: c.ServerLabel + "/" + c.Name + " " + string(c.Arguments)})
	return id, nil
}

func (j *journal) FinishMCPCall(_ context.Context, itemID string, output, errValue json.RawMessage, failed bool) error {
	if err := j.fail("mcp_finish"); err != nil {
		return err
	}
	status := "completed"
	if failed {
		status = "failed"
	}
	j.ops = append(j.ops, op{Op: "mcp_finish", ItemID: itemID, Phase: status, Text: fmt.Sprintf("output=%s error=%s", output, errValue)})
	return nil
}

func config(script string) agent.Config {
	instr := "Be brief."
	return agent.Config{
		Model:        "scripted-1",
		Instructions: &instr,
		Tools: []json.RawMessage{
			json.RawMessage(`{"type":"function","name":"get_weather","description":"weather","parameters":{"type":"object"}}`),
		},
		XBaton: &agent.Extension{Script: json.RawMessage(script)},
	}
}

func user(text string) session.Item {
	return session.Item{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted, Content: []session.ContentPart{{Type: "input_text", Text: text}}}
}

func call(id, name, args string) session.Item {
	return session.Item{Type: session.ItemFunctionCall, CallID: id, Name: name, Arguments: json.RawMessage(args), Status: session.ItemCompleted}
}

func output(id, out string) session.Item {
	return session.Item{Type: session.ItemFunctionCallOutput, CallID: id, Output: json.RawMessage(out), Status: session.ItemCompleted}
}

func assistant(phase, text string) session.Item {
	return session.Item{Type: session.ItemMessage, Role: "assistant", Phase: &phase, Status: session.ItemCompleted, Content: []session.ContentPart{{Type: "output_text", Text: text}}}
}

func usage(in, out int64) *session.Usage { return &session.Usage{InputTokens: in, OutputTokens: out} }

func pc(id, name, args string) engine.PendingCall {
	return engine.PendingCall{CallID: id, Name: name, Arguments: json.RawMessage(args)}
}

const weatherScript = `{
  "chunk_size": 6,
  "rules": [
    {"when": {"user_contains": "weather"}, "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"when": {"user_contains": "trip"}, "calls": [
      {"name": "get_weather", "arguments": {"city": "Paris"}},
      {"name": "get_weather", "arguments": {"city": "Rome"}},
      {"name": "book_hotel", "arguments": {"city": "Rome", "nights": 2}}]},
    {"when": {"user_contains": "look"}, "commentary": "Checking now.", "calls": [{"name": "get_weather", "arguments": {}}]},
    {"when": {"user_contains": "explode"}, "reply": "Starting", "error": "simulated outage"},
    {"when": {"user_contains": "refuse"}, "error": "refused"},
    {"when": {"after_tool": "get_weather"}, "reply": "Sunny: {{tool_output \"get_weather\"}}"}
  ]
}`

func TestRunWithScriptedModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		history []session.Item
		failOn  string
		want    harness.Outcome
		wantOps []op
		wantErr string
	}{
		{
			name:    "text-only turn streams the final answer in deltas and completes",
			history: []session.Item{user("Hello there")},
			want:    harness.Outcome{Status: "completed"},
			wantOps: []op{
				{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "You sa"},
				{Op: "append", ItemID: "msg_1", Text: "id: He"},
				{Op: "append", ItemID: "msg_1", Text: "llo th"},
				{Op: "append", ItemID: "msg_1", Text: "ere"},
				{Op: "usage", Usage: usage(4, 4)},
				{Op: "finish", ItemID: "msg_1", Text: "You said: Hello there"},
			},
		},
		{
			name:    "one call parks the turn with requires_action round 1",
			history: []session.Item{user("weather please")},
			want:    harness.Outcome{Status: "requires_action", Round: 1},
			wantOps: []op{
				{Op: "usage", Usage: usage(4, 2)},
				{Op: "calls", Calls: []engine.PendingCall{pc("call_abc_1", "get_weather", `{"city":"Paris"}`)}},
			},
		},
		{
			name: "resume with the function output answers with the tool output",
			history: []session.Item{
				user("weather please"),
				call("call_abc_1", "get_weather", `{"city":"Paris"}`),
				output("call_abc_1", `"24 C"`),
			},
			want: harness.Outcome{Status: "completed"},
			wantOps: []op{
				{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "Sunny:"},
				{Op: "append", ItemID: "msg_1", Text: " 24 C"},
				{Op: "usage", Usage: usage(6, 3)},
				{Op: "finish", ItemID: "msg_1", Text: "Sunny: 24 C"},
			},
		},
		{
			name:    "three parallel calls in one response keep their order",
			history: []session.Item{user("plan a trip"), assistant("final_answer", "earlier"), call("call_old_1", "x", "{}"), output("call_old_1", `"y"`), user("another trip")},
			want:    harness.Outcome{Status: "requires_action", Round: 1},
			wantOps: []op{
				{Op: "usage", Usage: usage(9, 6)},
				{Op: "calls", Calls: []engine.PendingCall{
					pc("call_abc_2", "get_weather", `{"city":"Paris"}`),
					pc("call_abc_3", "get_weather", `{"city":"Rome"}`),
					pc("call_abc_4", "book_hotel", `{"city":"Rome","nights":2}`),
				}},
			},
		},
		{
			name:    "commentary before calls is its own finished message",
			history: []session.Item{user("look it up")},
			want:    harness.Outcome{Status: "requires_action", Round: 1},
			wantOps: []op{
				{Op: "start", Phase: "commentary", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "Checki"},
				{Op: "append", ItemID: "msg_1", Text: "ng now"},
				{Op: "append", ItemID: "msg_1", Text: "."},
				{Op: "finish", ItemID: "msg_1", Text: "Checking now."},
				{Op: "usage", Usage: usage(5, 4)},
				{Op: "calls", Calls: []engine.PendingCall{pc("call_abc_1", "get_weather", `{}`)}},
			},
		},
		{
			name:    "model error before any output writes nothing",
			history: []session.Item{user("refuse this")},
			wantErr: "model error: scripted model: refused",
		},
		{
			name:    "model error mid-stream leaves the message open",
			history: []session.Item{user("explode")},
			wantOps: []op{
				{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "Starti"},
				{Op: "append", ItemID: "msg_1", Text: "ng"},
			},
			wantErr: "model error: scripted model: simulated outage",
		},
		{
			name:    "a cancelled turn stops the step with ErrTurnNotRunnable",
			history: []session.Item{user("weather please")},
			failOn:  "calls",
			wantOps: []op{{Op: "usage", Usage: usage(4, 2)}},
			wantErr: "request calls: calls: turn is not runnable",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(weatherScript)
			cfg.Tools = append(cfg.Tools, json.RawMessage(`{"type":"function","name":"book_hotel","parameters":{"type":"object"}}`))
			model, err := harness.Providers{harness.ProtocolScripted: scripted.New}.Model(cfg)
			if err != nil {
				t.Fatal(err)
			}
			j := &journal{failOn: tc.failOn}
			got, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_abc", Config: cfg, History: tc.history, Journal: j}, model)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantOps, j.ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunErrorKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		script    string
		history   []session.Item
		failOn    string
		modelErr  bool
		notRunnbl bool
	}{
		{name: "error rule is a ModelError", script: `{"rules":[{"error":"down"}]}`, history: []session.Item{user("hi")}, modelErr: true},
		{name: "missing tool output in a template is a ModelError", script: `{"rules":[{"reply":"{{tool_output \"nope\"}}"}]}`, history: []session.Item{user("hi")}, modelErr: true},
		{name: "cancelled turn at start is ErrTurnNotRunnable", script: `{}`, history: []session.Item{user("hi")}, failOn: "start", notRunnbl: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(tc.script)
			model, err := scripted.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = harness.Run(context.Background(), harness.Job{TurnID: "turn_x", Config: cfg, History: tc.history, Journal: &journal{failOn: tc.failOn}}, model)
			var me *harness.ModelError
			if got := errors.As(err, &me); got != tc.modelErr {
				t.Errorf("errors.As(%v, *ModelError) = %v, want %v", err, got, tc.modelErr)
			}
			if got := errors.Is(err, engine.ErrTurnNotRunnable); got != tc.notRunnbl {
				t.Errorf("errors.Is(%v, ErrTurnNotRunnable) = %v, want %v", err, got, tc.notRunnbl)
			}
		})
	}
}

// fakeModel replays parts without declaring phases, like a provider that cannot know them in advance.
type fakeModel struct {
	parts []harness.Part
	got   harness.Request
}

func (m *fakeModel) Stream(_ context.Context, req harness.Request) (harness.Stream, error) {
	m.got = req
	return &fakeStream{parts: m.parts}, nil
}

type fakeStream struct{ parts []harness.Part }

func (s *fakeStream) Next() (harness.Part, error) {
	if len(s.parts) == 0 {
		return harness.Part{}, io.EOF
	}
	p := s.parts[0]
	s.parts = s.parts[1:]
	return p, nil
}

func (s *fakeStream) Close() error { return nil }

func TestRunHoldsTextUntilThePhaseIsKnown(t *testing.T) {
	t.Parallel()
	text := func(s string) harness.Part { return harness.Part{Kind: harness.PartText, Text: s} }
	fc := func(id string) harness.Part {
		return harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)}}
	}
	tests := []struct {
		name    string
		parts   []harness.Part
		want    harness.Outcome
		wantOps []op
	}{
		{
			name:  "text without calls becomes a final answer",
			parts: []harness.Part{text("a"), text("b"), {Kind: harness.PartUsage, Usage: usage(1, 1)}, {Kind: harness.PartUsage, Usage: usage(2, 3)}},
			want:  harness.Outcome{Status: "completed"},
			wantOps: []op{
				{Op: "usage", Usage: usage(3, 4)},
				{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "a"},
				{Op: "append", ItemID: "msg_1", Text: "b"},
				{Op: "finish", ItemID: "msg_1", Text: "ab"},
			},
		},
		{
			name:  "text before a call becomes commentary, text after the calls too",
			parts: []harness.Part{text("a"), fc("c1"), fc("c2"), text("z")},
			want:  harness.Outcome{Status: "requires_action", Round: 1},
			wantOps: []op{
				{Op: "start", Phase: "commentary", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: "a"},
				{Op: "finish", ItemID: "msg_1", Text: "a"},
				{Op: "start", Phase: "commentary", ItemID: "msg_2"},
				{Op: "append", ItemID: "msg_2", Text: "z"},
				{Op: "finish", ItemID: "msg_2", Text: "z"},
				{Op: "calls", Calls: []engine.PendingCall{pc("call_x_1", "f", "{}"), pc("call_x_2", "f", "{}")}},
			},
		},
		{
			name:    "an empty response completes without output",
			want:    harness.Outcome{Status: "completed"},
			wantOps: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := &journal{}
			cfg := config(`{}`)
			cfg.Tools = append(cfg.Tools, json.RawMessage(`{"type":"function","name":"f","parameters":{"type":"object"}}`))
			got, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_x", Config: cfg, History: []session.Item{user("hi")}, Journal: j}, &fakeModel{parts: tc.parts})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantOps, j.ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRequest(t *testing.T) {
	t.Parallel()
	cfg := config(`{}`)
	cfg.Text = json.RawMessage(`{"format":{"type":"json_schema","schema":{"type":"object"}}}`)
	cfg.XBaton.ModelProvider = &agent.ModelProvider{Protocol: "scripted", Model: "override"}
	failed := output("c2", `null`)
	failed.Status = session.ItemFailed
	failed.Error = json.RawMessage(`"boom"`)
	inProgress := assistant("final_answer", "partial")
	inProgress.Status = session.ItemInProgress
	history := []session.Item{
		user("first"),
		assistant("commentary", "thinking"),
		call("c1", "get_weather", `{"city":"Paris"}`),
		call("c2", "get_time", ``),
		output("c1", `[{"type":"input_text","text":"sun"},{"type":"input_text","text":"ny"}]`),
		failed,
		inProgress,
		{Type: session.ItemMessage, Role: "user", Status: session.ItemCompleted, Content: []session.ContentPart{{Type: "input_text", Text: "look"}, {Type: "input_image", ImageURL: "https://x/i.png"}}},
	}
	got := harness.NewRequest("turn_1", cfg, history)
	want := harness.Request{
		Model:        "override",
		TurnID:       "turn_1",
		Instructions: "Be brief.",
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "first"},
			{Role: harness.RoleAssistant, Text: "thinking", Calls: []harness.Call{
				{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "c2", Name: "get_time", Arguments: json.RawMessage(`{}`)},
			}},
			{Role: harness.RoleTool, Results: []harness.Result{
				{CallID: "c1", Name: "get_weather", Output: "sunny"},
				{CallID: "c2", Name: "get_time", Output: "boom", IsError: true},
			}},
			{Role: harness.RoleUser, Text: "look", Images: []string{"https://x/i.png"}},
		},
		Tools:        []harness.Tool{{Name: "get_weather", Description: "weather", Parameters: json.RawMessage(`{"type":"object"}`)}},
		OutputSchema: json.RawMessage(`{"type":"object"}`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestProvidersModel(t *testing.T) {
	t.Parallel()
	p := harness.Providers{}
	scripted.Register(p)
	tests := []struct {
		name    string
		xbaton  *agent.Extension
		wantErr string
	}{
		{name: "no x_baton selects no provider", wantErr: `harness configuration: the configuration selects no model provider (docs/model-providers.md "Choosing a model")`},
		{name: "an empty protocol selects no provider", xbaton: &agent.Extension{ModelProvider: &agent.ModelProvider{}},
			wantErr: `harness configuration: the configuration selects no model provider (docs/model-providers.md "Choosing a model")`},
		{name: "the scripted protocol selects scripted", xbaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "scripted"}}},
		{name: "a script selects scripted", xbaton: &agent.Extension{Script: json.RawMessage(`{"rules":[{"reply":"x"}]}`)}},
		{name: "unregistered protocol is a configuration error", xbaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_chat", APIKey: "sk-secret"}},
			wantErr: `harness configuration: model provider protocol "openai_chat" is not available in this runtime`},
		{name: "invalid script is a configuration error", xbaton: &agent.Extension{Script: json.RawMessage(`{"rules":[{}]}`)},
			wantErr: `harness configuration: model provider "scripted": invalid x_baton.script: rules[0].calls: a rule needs calls, reply or error`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := p.Model(agent.Config{XBaton: tc.xbaton})
			got := ""
			if err != nil {
				got = err.Error()
				var ce *harness.ConfigError
				if !errors.As(err, &ce) {
					t.Errorf("error %v is not a *ConfigError", err)
				}
			}
			if got != tc.wantErr {
				t.Errorf("error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// seqModel answers each Stream with the next of its responses and records every request.
type seqModel struct {
	responses [][]harness.Part
	got       []harness.Request
}

func (m *seqModel) Stream(_ context.Context, req harness.Request) (harness.Stream, error) {
	m.got = append(m.got, req)
	if len(m.responses) == 0 {
		return &fakeStream{}, nil
	}
	parts := m.responses[0]
	m.responses = m.responses[1:]
	return &fakeStream{parts: parts}, nil
}

// TestRunAssignsCallIDsUniqueInTheSession: a provider that reuses its call ids across turns (an OpenAI-compatible
// backend answering "call_0" every time) or sends none still yields call ids unique within the Session, and the
// conversation the provider sees back uses those ids on both sides (calls and results).
func TestRunAssignsCallIDsUniqueInTheSession(t *testing.T) {
	t.Parallel()
	fc := func(id, name, args string) harness.Part {
		return harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}}
	}
	cfg := config(`{}`)

	// Turn 1: the provider calls get_weather as call_0.
	j1 := &journal{}
	m1 := &seqModel{responses: [][]harness.Part{{fc("call_0", "get_weather", `{"city":"Paris"}`)}}}
	if _, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_aaa", Config: cfg, History: []session.Item{user("weather?")}, Journal: j1}, m1); err != nil {
		t.Fatal(err)
	}
	// Turn 2, after turn 1's call and result: the provider answers call_0 again, then a call without an id.
	history := []session.Item{user("weather?"), call("call_aaa_1", "get_weather", `{"city":"Paris"}`), output("call_aaa_1", `"sun"`), user("and Rome?")}
	j2 := &journal{}
	m2 := &seqModel{responses: [][]harness.Part{{fc("call_0", "get_weather", `{"city":"Rome"}`), fc("", "get_weather", `{"city":"Oslo"}`)}}}
	if _, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_bbb", Config: cfg, History: history, Journal: j2}, m2); err != nil {
		t.Fatal(err)
	}
	got := append(append([]op(nil), j1.ops...), j2.ops...)
	want := []op{
		{Op: "calls", Calls: []engine.PendingCall{pc("call_aaa_1", "get_weather", `{"city":"Paris"}`)}},
		{Op: "calls", Calls: []engine.PendingCall{pc("call_bbb_2", "get_weather", `{"city":"Rome"}`), pc("call_bbb_3", "get_weather", `{"city":"Oslo"}`)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requested calls (-want +got):\n%s", diff)
	}
}

// TestRunSendsItsCallIDsBackToTheProvider: within one activity task, the calls the harness runs itself (tool_search)
// go back to the provider under the harness's call ids, on the assistant's calls and on the results alike.
func TestRunSendsItsCallIDsBackToTheProvider(t *testing.T) {
	t.Parallel()
	cfg := agent.Config{Model: "m", Tools: []json.RawMessage{
		json.RawMessage(`{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object"},"defer_loading":true}`),
		json.RawMessage(`{"type":"tool_search"}`),
	}}
	search := harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: "call_0", Name: "tool_search", Arguments: json.RawMessage(`{"query":"weather"}`)}}
	reply := harness.Part{Kind: harness.PartText, Text: "done"}
	m := &seqModel{responses: [][]harness.Part{{search}, {reply}}}
	if _, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_ccc", Config: cfg, History: []session.Item{user("go")}, Journal: &journal{}}, m); err != nil {
		t.Fatal(err)
	}
	if len(m.got) != 2 {
		t.Fatalf("model requests = %d, want 2", len(m.got))
	}
	var ids []string
	for _, msg := range m.got[1].Messages {
		for _, c := range msg.Calls {
			ids = append(ids, "call "+c.ID)
		}
		for _, r := range msg.Results {
			ids = append(ids, "result "+r.CallID)
		}
	}
	if diff := cmp.Diff([]string{"call call_ccc_1", "result call_ccc_1"}, ids); diff != "" {
		t.Errorf("ids in the second request (-want +got):\n%s", diff)
	}
}

// TestCallIDsFitEveryProvider: with a turn id as the engine mints it, the harness's call ids match what the
// Anthropic and Bedrock APIs accept (^[a-zA-Z0-9_-]+$, Bedrock at most 64 characters) and OpenAI's 40-character
// limit on tool call ids.
func TestCallIDsFitEveryProvider(t *testing.T) {
	t.Parallel()
	fc := harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather"}}
	j := &journal{}
	turnID := engine.NewID("turn")
	if _, err := harness.Run(context.Background(), harness.Job{TurnID: turnID, Config: config(`{}`), History: []session.Item{user("hi")}, Journal: j}, &fakeModel{parts: []harness.Part{fc}}); err != nil {
		t.Fatal(err)
	}
	if len(j.ops) != 1 || len(j.ops[0].Calls) != 1 {
		t.Fatalf("journal = %+v, want one call", j.ops)
	}
	id := j.ops[0].Calls[0].CallID
	if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,40}$`).MatchString(id) || id != "call_"+strings.TrimPrefix(turnID, "turn_")+"_1" {
		t.Errorf("call id %q: want call_<turn id suffix>_1 matching ^[a-zA-Z0-9_-]{1,40}$", id)
	}
}

func (j *journal) StartToolExecution(_ context.Context, c engine.ToolExecution) (string, error) {
	if err := j.fail("tool_start"); err != nil {
		return "", err
	}
	j.msgs++
	id := fmt.Sprintf("cmd_%d", j.msgs)
	j.ops = append(j.ops, op{Op: "tool_start", ItemID: id, Text: c.Name + " " + string(c.Arguments)})
	return id, nil
}

func (j *journal) FinishToolExecution(_ context.Context, itemID string, res engine.ToolExecutionResult) error {
	if err := j.fail("tool_finish"); err != nil {
		return err
	}
	status := "completed"
	if res.Failed {
		status = "failed"
	}
	j.ops = append(j.ops, op{Op: "tool_finish", ItemID: itemID, Phase: status, Text: res.Output})
	return nil
}
