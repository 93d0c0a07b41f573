package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     string
		wantOps   []op
		wantCause string
	}{
		{
			name:  "a valid answer is published unchanged as one final_answer message with one delta",
			reply: ` {"name": "Ada", "age": 36}`,
			wantOps: []op{
				{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
				{Op: "append", ItemID: "msg_1", Text: ` {"name": "Ada", "age": 36}`},
				{Op: "finish", ItemID: "msg_1", Text: ` {"name": "Ada", "age": 36}`},
			},
		},
		{name: "text that is not JSON fails the turn and journals nothing", reply: "Ada is 36", wantCause: "the final answer is not a JSON value"},
		{name: "two JSON values are not one answer", reply: `{"name":"Ada","age":36} {}`, wantCause: "the final answer is not a JSON value"},
		{name: "a schema violation names the keyword", reply: `{"name":"Ada","age":"36"}`, wantCause: "the final answer does not match text.format.schema: /properties/age/type at instance /age"},
		{name: "a missing required member fails", reply: `{"name":"Ada"}`, wantCause: "the final answer does not match text.format.schema: /required at instance /"},
		{name: "no coercion of a number written as a float", reply: `{"name":"Ada","age":36.5}`, wantCause: "/properties/age/type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script, _ := json.Marshal(map[string]any{"chunk_size": 3, "omit_usage": true, "rules": []any{map[string]any{"reply": tc.reply}}})
			cfg := agent.Config{Model: "scripted", Text: json.RawMessage(`{"format":{"type":"json_schema","schema":` + personSchema + `}}`),
				XBaton: &agent.Extension{Script: script}}
			model, err := scripted.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var seen harness.Request
			j := &journal{}
			got, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_s", Config: cfg, History: []session.Item{user("who?")}, Journal: j},
				recordingModel{model, &seen})
			if string(seen.OutputSchema) != personSchema {
				t.Errorf("request OutputSchema = %s, want the frozen schema", seen.OutputSchema)
			}
			if tc.wantCause == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got.Status != harness.StatusCompleted {
					t.Errorf("outcome = %+v, want completed", got)
				}
			} else {
				var se *harness.StructuredOutputError
				if !errors.As(err, &se) || !strings.Contains(se.Cause, tc.wantCause) {
					t.Fatalf("error = %v, want a *StructuredOutputError containing %q", err, tc.wantCause)
				}
			}
			if diff := cmp.Diff(tc.wantOps, j.ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStructuredOutputSchemaRefusesExternalReferences(t *testing.T) {
	t.Parallel()
	cfg := agent.Config{Model: "scripted", Text: json.RawMessage(`{"format":{"type":"json_schema","schema":{"$ref":"file:///etc/passwd"}}}`)}
	model, _ := scripted.New(cfg)
	_, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_s", Config: cfg, History: []session.Item{user("x")}, Journal: &journal{}}, model)
	var ce *harness.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want a *ConfigError", err)
	}
}

// recordingModel keeps the last request.
type recordingModel struct {
	harness.Model
	last *harness.Request
}

func (m recordingModel) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	*m.last = req
	return m.Model.Stream(ctx, req)
}

// toolNamesModel records the tool names of every request.
type toolNamesModel struct {
	harness.Model
	names *[]string
}

func (m toolNamesModel) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	var n []string
	for _, t := range req.Tools {
		n = append(n, t.Name)
	}
	*m.names = append(*m.names, strings.Join(n, ","))
	return m.Model.Stream(ctx, req)
}

const searchScript = `{
  "chunk_size": 1000, "omit_usage": true,
  "rules": [
    {"when": {"user_contains": "weather", "tool_offered": "get_weather"}, "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    {"when": {"user_contains": "weather"}, "calls": [{"name": "tool_search", "arguments": {"query": "WEATHER city"}}]},
    {"when": {"user_contains": "nothing"}, "calls": [{"name": "tool_search", "arguments": {"query": "zebra"}}]},
    {"when": {"after_tool": "tool_search", "tool_offered": "get_weather"}, "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    {"when": {"after_tool": "tool_search"}, "reply": "found: {{tool_output \"tool_search\"}}"},
    {"when": {"after_tool": "get_weather"}, "reply": "{{tool_output \"get_weather\"}}"}
  ]
}`

func searchConfig() agent.Config {
	return agent.Config{Model: "scripted", XBaton: &agent.Extension{Script: json.RawMessage(searchScript)}, Tools: []json.RawMessage{
		json.RawMessage(`{"type":"function","name":"get_time","description":"Current time","parameters":{"type":"object"}}`),
		json.RawMessage(`{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"defer_loading":true}`),
		json.RawMessage(`{"type":"function","name":"book_flight","description":"Books a flight to a city","parameters":{"type":"object"},"defer_loading":true}`),
		json.RawMessage(`{"type":"tool_search"}`),
	}}
}

func TestToolSearchDiscoversDeferredFunctions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		history   []session.Item
		want      harness.Outcome
		wantTools []string
		wantOps   []op
	}{
		{
			name:      "deferred functions are hidden until tool_search returns them, then callable in the same task",
			history:   []session.Item{user("weather in Oslo")},
			want:      harness.Outcome{Status: "requires_action", Round: 1},
			wantTools: []string{"get_time,tool_search", "get_time,get_weather,tool_search"},
			wantOps:   []op{{Op: "calls", Calls: []engine.PendingCall{pc("call_t_2", "get_weather", `{"city":"Oslo"}`)}}},
		},
		{
			name:      "a search without matches returns no functions and loads nothing",
			history:   []session.Item{user("nothing")},
			want:      harness.Outcome{Status: "completed"},
			wantTools: []string{"get_time,tool_search", "get_time,tool_search"},
			wantOps: []op{{Op: "start", Phase: "final_answer", ItemID: "msg_1"}, {Op: "append", ItemID: "msg_1", Text: `found: {"functions":[]}`},
				{Op: "finish", ItemID: "msg_1", Text: `found: {"functions":[]}`}},
		},
		{
			name:      "a deferred function the Session already called stays loaded after the resume",
			history:   []session.Item{user("weather in Oslo"), call("call_t_2", "get_weather", `{"city":"Oslo"}`), output("call_t_2", `"cold"`)},
			want:      harness.Outcome{Status: "completed"},
			wantTools: []string{"get_time,get_weather,tool_search"},
			wantOps: []op{{Op: "start", Phase: "final_answer", ItemID: "msg_1"}, {Op: "append", ItemID: "msg_1", Text: "cold"},
				{Op: "finish", ItemID: "msg_1", Text: "cold"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := searchConfig()
			model, err := scripted.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			j := &journal{}
			got, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_t", Config: cfg, History: tc.history, Journal: j}, toolNamesModel{model, &names})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantTools, names); diff != "" {
				t.Errorf("offered tools per step (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantOps, j.ops); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolSearchResultCarriesDefinitions(t *testing.T) {
	t.Parallel()
	cfg := searchConfig()
	cfg.XBaton.Script = json.RawMessage(`{"chunk_size":1000,"omit_usage":true,"rules":[
	  {"calls":[{"name":"tool_search","arguments":{"query":"city"}}]},
	  {"when":{"after_tool":"tool_search"},"reply":"{{tool_output \"tool_search\"}}"}]}`)
	model, _ := scripted.New(cfg)
	j := &journal{}
	if _, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_t", Config: cfg, History: []session.Item{user("go")}, Journal: j}, model); err != nil {
		t.Fatal(err)
	}
	want := `{"functions":[{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},` +
		`{"type":"function","name":"book_flight","description":"Books a flight to a city","parameters":{"type":"object"}}]}`
	if len(j.ops) != 3 || j.ops[2].Text != want {
		t.Errorf("journal = %+v, want the final answer %s", j.ops, want)
	}
}

func TestConversationShowsMCPCallsAsCallsWithResults(t *testing.T) {
	t.Parallel()
	mcpItem := func(id, status, out, errv string) session.Item {
		it := session.Item{ID: "mcp_" + id, Type: session.ItemMCPCall, CallID: id, ServerLabel: "srv", Name: "echo", Arguments: json.RawMessage(`{"m":1}`), Status: status}
		if out != "" {
			it.Output = json.RawMessage(out)
		}
		if errv != "" {
			it.Error = json.RawMessage(errv)
		}
		return it
	}
	hist := []session.Item{user("hi"), assistant("commentary", "Let me see."), mcpItem("c1", session.ItemCompleted, `"pong"`, ""),
		mcpItem("c2", session.ItemFailed, "", `"boom"`), call("c3", "f", `{}`), output("c3", `"ok"`), mcpItem("c4", session.ItemIncomplete, "", "")}
	args := json.RawMessage(`{"m":1}`)
	want := []harness.Message{
		{Role: harness.RoleUser, Text: "hi"},
		{Role: harness.RoleAssistant, Text: "Let me see.", Calls: []harness.Call{{ID: "c1", Name: "srv__echo", Arguments: args}}},
		{Role: harness.RoleTool, Results: []harness.Result{{CallID: "c1", Name: "srv__echo", Output: "pong"}}},
		{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "c2", Name: "srv__echo", Arguments: args}}},
		{Role: harness.RoleTool, Results: []harness.Result{{CallID: "c2", Name: "srv__echo", Output: "boom", IsError: true}}},
		{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "c3", Name: "f", Arguments: json.RawMessage(`{}`)}}},
		{Role: harness.RoleTool, Results: []harness.Result{{CallID: "c3", Name: "f", Output: "ok"}}},
		{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "c4", Name: "srv__echo", Arguments: args}}},
		{Role: harness.RoleTool, Results: []harness.Result{{CallID: "c4", Name: "srv__echo", Output: "the MCP tool call did not finish", IsError: true}}},
	}
	if diff := cmp.Diff(want, harness.Conversation(hist)); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
}

func TestMaxStepsBoundsHarnessToolLoops(t *testing.T) {
	t.Parallel()
	cfg := searchConfig()
	cfg.XBaton.Script = json.RawMessage(`{"omit_usage":true,"rules":[{"calls":[{"name":"tool_search","arguments":{"query":"x"}}]},
	  {"when":{"after_tool":"*"},"calls":[{"name":"tool_search","arguments":{"query":"x"}}]}]}`)
	model, _ := scripted.New(cfg)
	_, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_t", Config: cfg, History: []session.Item{user("go")}, Journal: &journal{}}, model)
	var me *harness.ModelError
	if !errors.As(err, &me) {
		t.Fatalf("error = %v, want a *ModelError", err)
	}
}
