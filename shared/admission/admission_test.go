package admission

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// wantErr is the wire-relevant part of an *engine.Error.
type wantErr struct {
	Status  int
	Code    string
	Message string
	Param   string
}

func asWant(t *testing.T, err error) *wantErr {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *engine.Error", err)
	}
	return &wantErr{e.Status, e.Code, e.Message, e.Param}
}

func badReq(code, param, message string) *wantErr { return &wantErr{400, code, message, param} }

const (
	ire = engine.CodeInvalidRequestError
	ir  = engine.CodeInvalidRequest
	uoc = engine.CodeUnsupportedConfig
)

const weather = `{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}`

func TestAgentCreateValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		want *wantErr
	}{
		{"minimal agent is accepted", `{"model":"m"}`, nil},
		{"function tool is accepted", `{"model":"m","tools":[` + weather + `]}`, nil},
		{"placeholder schema of the SDK tests is accepted", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{"foo":"bar"}}]}`, nil},
		{"missing model is rejected", `{"name":"x"}`, badReq(ire, "model", "Missing required parameter: 'model'.")},
		{"empty model is rejected", `{"model":""}`, badReq(ire, "model", "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.")},
		{"non-string model is rejected", `{"model":3}`, badReq(ire, "model", "Invalid type for 'model': expected a string, but got an integer instead.")},
		{"unknown member is rejected", `{"model":"m","tool_choice":"auto"}`, badReq(ire, "tool_choice", "Unknown parameter: 'tool_choice'.")},
		{"case variant is an unknown member", `{"Model":"m"}`, badReq(ire, "Model", "Unknown parameter: 'Model'.")},
		{"unknown members are reported before bad values", `{"model":1,"zzz":1}`, badReq(ire, "zzz", "Unknown parameter: 'zzz'.")},
		{"function without name is rejected", `{"model":"m","tools":[{"type":"function","description":"d","parameters":{}}]}`, badReq(ire, "tools[0].name", "Missing required parameter: 'tools[0].name'.")},
		{"function without description is rejected", `{"model":"m","tools":[{"type":"function","name":"f","parameters":{}}]}`, badReq(ire, "tools[0].description", "Missing required parameter: 'tools[0].description'.")},
		{"function without parameters is rejected", `{"model":"m","tools":[{"type":"function","name":"f","description":"d"}]}`, badReq(ire, "tools[0].parameters", "Missing required parameter: 'tools[0].parameters'.")},
		{"string parameters are rejected", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":"{}"}]}`, badReq(ire, "tools[0].parameters", "Invalid type for 'tools[0].parameters': expected an object, but got a string instead.")},
		{"null defer_loading is rejected", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{},"defer_loading":null}]}`, badReq(ire, "tools[0].defer_loading", "Invalid type for 'tools[0].defer_loading': expected a boolean, but got null instead.")},
		{"function strict is an unknown member", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{},"strict":true}]}`, badReq(ire, "tools[0].strict", "Unknown parameter: 'tools[0].strict'.")},
		{"non-object root type is rejected", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"array"}}]}`, badReq(ire, "", `Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`)},
		{"non-string root type is left to the compiler", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{"type":["object","null"]}}]}`, nil},
		{"uncompilable schema is rejected", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object","properties":{"a":{"type":"strin"}}}}]}`, badReq(ire, "tools[0].parameters", "")},
		{"remote $ref is never loaded", `{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":{"$ref":"file:///etc/passwd"}}]}`, badReq(ire, "tools[0].parameters", "")},
		{"duplicate function name is rejected", `{"model":"m","tools":[` + weather + `,` + weather + `]}`, badReq(ire, "", "duplicate function tool name: get_weather")},
		{"duplicate tool_search is rejected", `{"model":"m","tools":[{"type":"tool_search"},{"type":"tool_search"}]}`, badReq(ire, "", "duplicate tool_search tool")},
		{"duplicate web_search is rejected", `{"model":"m","tools":[{"type":"web_search"},{"type":"web_search","mode":"disabled"}]}`, badReq(ire, "", "duplicate web_search tool")},
		{"tool_search with members is rejected", `{"model":"m","tools":[{"type":"tool_search","max_results":3}]}`, badReq(ire, "tools[0].max_results", "Unknown parameter: 'tools[0].max_results'.")},
		{"unknown tool type is rejected", `{"model":"m","tools":[{"type":"custom"}]}`, badReq(ire, "tools[0].type", "Invalid value: 'custom'. Supported values are: 'function', 'tool_search', 'programmatic_tool_calling', 'mcp', 'web_search', 'computer_use', and 'automations'.")},
		{"tool without type is rejected", `{"model":"m","tools":[{"name":"f"}]}`, badReq(ire, "tools[0].type", "Missing required parameter: 'tools[0].type'.")},
		{"bad web_search mode is rejected", `{"model":"m","tools":[{"type":"web_search","mode":"on"}]}`, badReq(ire, "tools[0].mode", "Invalid value: 'on'. Supported values are: 'disabled', 'cached', and 'live'.")},
		{"mcp without transport is rejected", `{"model":"m","tools":[{"type":"mcp","server_label":"t"}]}`, badReq(ire, "tools[0].transport", "Missing required parameter: 'tools[0].transport'.")},
		{"saved mcp cannot carry inline authorization", `{"model":"m","tools":[{"type":"mcp","server_label":"t","transport":{"type":"http","server_url":"https://x/mcp","authorization":"s"}}]}`, badReq(ire, "tools[0].transport.authorization", "Unknown parameter: 'tools[0].transport.authorization'.")},
		{"json_schema text format is accepted", `{"model":"m","text":{"format":{"type":"json_schema","schema":{"type":"object"}}}}`, nil},
		{"json_schema with a non-object root is rejected", `{"model":"m","text":{"format":{"type":"json_schema","schema":{"type":"string"}}}}`, badReq(ire, "", `agent.text.format.schema must have top-level type "object"; got "string"`)},
		{"json_schema name wrapper is rejected", `{"model":"m","text":{"format":{"type":"json_schema","name":"x","schema":{}}}}`, badReq(ire, "text.format.name", "Unknown parameter: 'text.format.name'.")},
		{"json_schema without schema is rejected", `{"model":"m","text":{"format":{"type":"json_schema"}}}`, badReq(ire, "text.format.schema", "Missing required parameter: 'text.format.schema'.")},
		{"tools are checked before text", `{"model":"m","text":{"verbosity":"loud"},"tools":[{"type":"nope"}]}`, badReq(ire, "tools[0].type", "")},
		{"x_baton with an unknown member is rejected", `{"model":"m","x_baton":{"harness":"baton","region":"x"}}`, badReq(ire, "x_baton.region", "Unknown parameter: 'x_baton.region'.")},
		{"x_baton with an unknown harness is rejected", `{"model":"m","x_baton":{"harness":"gemini"}}`, badReq(ire, "x_baton.harness", "Invalid value: 'gemini'. Supported values are: 'baton', 'codex', 'claude_sdk', and 'mcode'.")},
		{"x_baton with an unknown protocol is rejected", `{"model":"m","x_baton":{"model_provider":{"protocol":"grpc"}}}`, badReq(ire, "x_baton.model_provider.protocol", "Invalid value: 'grpc'. Supported values are: 'scripted', 'bedrock_converse', 'openai_responses', 'openai_chat', and 'anthropic_messages'.")},
		{"x_baton provider without protocol is rejected", `{"model":"m","x_baton":{"model_provider":{"model":"x"}}}`, badReq(ire, "x_baton.model_provider.protocol", "Missing required parameter: 'x_baton.model_provider.protocol'.")},
		{"x_baton provider with a credentialed base_url is rejected", `{"model":"m","x_baton":{"model_provider":{"protocol":"openai_chat","base_url":"https://u:p@h/v1"}}}`, badReq(ire, "x_baton.model_provider.base_url", "Invalid 'x_baton.model_provider.base_url': expected an absolute http or https URL without credentials.")},
		{"metadata with 17 pairs is rejected", `{"model":"m","metadata":{"a":"1","b":"1","c":"1","d":"1","e":"1","f":"1","g":"1","h":"1","i":"1","j":"1","k":"1","l":"1","m":"1","n":"1","o":"1","p":"1","q":"1"}}`, badReq(ire, "metadata", "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead.")},
		{"non-string metadata value is rejected", `{"model":"m","metadata":{"a":1}}`, badReq(ire, "metadata.a", "Invalid type for 'metadata.a': expected a string, but got an integer instead.")},
		{"bad reasoning effort is rejected", `{"model":"m","reasoning":{"effort":"huge"}}`, badReq(ire, "reasoning.effort", "Invalid value: 'huge'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.")},
		{"multi_agent without enabled is rejected", `{"model":"m","multi_agent":{}}`, badReq(ire, "multi_agent.enabled", "Missing required parameter: 'multi_agent.enabled'.")},
		{"multi_agent with zero subagents is rejected", `{"model":"m","multi_agent":{"enabled":true,"max_concurrent_subagents":0}}`, badReq(ire, "multi_agent.max_concurrent_subagents", "Invalid 'multi_agent.max_concurrent_subagents': integer below minimum value. Expected a value >= 1, but got 0 instead.")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := AgentCreate([]byte(tc.body))
			got := asWant(t, err)
			if tc.want != nil && tc.want.Message == "" && got != nil {
				got.Message = "" // only status, code and param are pinned for compiler explanations
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AgentCreate(%s) error mismatch (-want +got):\n%s", tc.body, diff)
			}
		})
	}
}

func TestAgentCreateSavesNormalizedDeclarations(t *testing.T) {
	t.Parallel()
	cfg, err := AgentCreate([]byte(`{"model":"m","name":"n","tools":[` + weather + `,{"type":"web_search","location":{}},{"type":"programmatic_tool_calling"},{"type":"mcp","server_label":"t","transport":{"type":"http","server_url":"https://x/mcp"}}],
		"x_baton":{"model_provider":{"protocol":"openai_chat","api_key":"sk-1"}},"multi_agent":{"enabled":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, raw := range cfg.Tools {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{"type": "function", "name": "get_weather", "description": "Weather", "defer_loading": false, "async": false,
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}},
		{"type": "web_search", "mode": "live", "context_size": "medium", "allowed_domains": nil,
			"location": map[string]any{"city": nil, "country": nil, "region": nil, "timezone": nil}},
		{"type": "programmatic_tool_calling", "enabled": true},
		{"type": "mcp", "server_label": "t", "transport": map[string]any{"type": "http", "server_url": "https://x/mcp", "headers": map[string]any{}},
			"connection_origin": "service", "allowed_tools": nil, "required": false, "credential_id": nil, "request_metadata": map[string]any{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("saved tools mismatch (-want +got):\n%s", diff)
	}
	if cfg.XBaton == nil || cfg.XBaton.ModelProvider == nil || cfg.XBaton.ModelProvider.APIKey != "sk-1" {
		t.Errorf("x_baton api_key not kept: %+v", cfg.XBaton)
	}
	if string(cfg.MultiAgent) != `{"enabled":true,"max_concurrent_subagents":6}` {
		t.Errorf("multi_agent = %s", cfg.MultiAgent)
	}
}

func TestAgentUpdateReplacesSuppliedMembers(t *testing.T) {
	t.Parallel()
	base, err := AgentCreate([]byte(`{"model":"m","name":"n","instructions":"i","metadata":{"a":"b"},"tools":[` + weather + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		body  string
		check func(t *testing.T, before, after any)
	}{
		{"empty body changes nothing", `{}`, nil},
		{"null name and instructions clear them", `{"name":null,"instructions":null}`, nil},
		{"empty metadata clears it", `{"metadata":{}}`, nil},
		{"null metadata clears it", `{"metadata":null}`, nil},
		{"tools replace the list whole", `{"tools":[]}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			update, err := AgentUpdate([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := update(base)
			switch tc.body {
			case `{}`:
				if diff := cmp.Diff(base, got); diff != "" {
					t.Errorf("changed (-want +got):\n%s", diff)
				}
			case `{"name":null,"instructions":null}`:
				if got.Name != nil || got.Instructions != nil || got.Model != "m" {
					t.Errorf("got %+v", got)
				}
			case `{"metadata":{}}`, `{"metadata":null}`:
				if got.Metadata != nil {
					t.Errorf("metadata = %v, want cleared", got.Metadata)
				}
			case `{"tools":[]}`:
				if len(got.Tools) != 0 || len(base.Tools) != 1 {
					t.Errorf("tools = %v (base %v)", got.Tools, base.Tools)
				}
			}
		})
	}
	if _, err := AgentUpdate([]byte(`{"model":null}`)); asWant(t, err) == nil {
		t.Error("null model accepted")
	}
	_, err = AgentUpdate([]byte(`{"model":""}`))
	if diff := cmp.Diff(badReq(ire, "model", "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead."), asWant(t, err)); diff != "" {
		t.Errorf("empty model on update (-want +got):\n%s", diff)
	}
}

func TestParseSessionCreate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		want *wantErr
	}{
		{"saved agent and no input is an idle session", `{"agent_id":"agent_1","environment":{"type":"none"}}`, nil},
		{"inline agent with a model is accepted", `{"agent":{"model":"m","tools":[` + weather + `]},"environment":{"type":"none"},"input":"hi"}`, nil},
		{"missing environment is rejected", `{"agent_id":"a"}`, badReq(ire, "environment", "Missing required parameter: 'environment'.")},
		{"hosted environment is not served", `{"agent_id":"a","environment":{"type":"openai_hosted"}}`, badReq(uoc, "", `Environment type 'openai_hosted' is not supported by this service; use {"type":"none"}.`)},
		{"self_hosted environment is not served", `{"agent_id":"a","environment":{"type":"self_hosted","workspace_directory":"/w"}}`, badReq(uoc, "", `Environment type 'self_hosted' is not supported by this service; use {"type":"none"}.`)},
		{"unknown environment type is rejected", `{"agent_id":"a","environment":{"type":"docker"}}`, badReq(ire, "environment.type", "Invalid value: 'docker'. Supported values are: 'none', 'openai_hosted', and 'self_hosted'.")},
		{"neither agent_id nor agent is rejected", `{"environment":{"type":"none"},"input":"hi"}`, badReq(ire, "", "Missing required parameter: 'agent_id' or 'agent'.")},
		{"a null agent without agent_id is rejected", `{"agent":null,"environment":{"type":"none"}}`, badReq(ire, "", "Missing required parameter: 'agent_id' or 'agent'.")},
		{"inline agent with an empty model is rejected", `{"agent":{"model":""},"environment":{"type":"none"}}`, badReq(ire, "agent.model", "Invalid 'agent.model': empty string. Expected a string with minimum length 1, but got an empty string instead.")},
		{"inline agent without model and without agent_id is rejected", `{"agent":{"instructions":"x"},"environment":{"type":"none"}}`, badReq(ire, "agent.model", "Missing required parameter: 'agent.model'.")},
		{"inline agent name is an unknown member", `{"agent":{"model":"m","name":"x"},"environment":{"type":"none"}}`, badReq(ire, "agent.name", "Unknown parameter: 'agent.name'.")},
		{"inline tool errors carry the agent path", `{"agent":{"model":"m","tools":[{"type":"function","name":"f","description":"d","parameters":[]}]},"environment":{"type":"none"}}`, badReq(ire, "agent.tools[0].parameters", "Invalid type for 'agent.tools[0].parameters': expected an object, but got an array instead.")},
		{"inline json_schema with a non-object root is rejected", `{"agent":{"model":"m","text":{"format":{"type":"json_schema","schema":{"type":"array"}}}},"environment":{"type":"none"}}`, badReq(ire, "", `agent.text.format.schema must have top-level type "object"; got "array"`)},
		{"inline mcp may carry authorization", `{"agent":{"model":"m","tools":[{"type":"mcp","server_label":"t","transport":{"type":"http","server_url":"https://x/mcp","authorization":"s"}}]},"environment":{"type":"none"}}`, nil},
		{"empty string input is rejected", `{"agent_id":"a","environment":{"type":"none"},"input":""}`, badReq(ir, "input", "A message needs an image or at least one nonempty text part.")},
		{"message with string content is rejected", `{"agent_id":"a","environment":{"type":"none"},"input":[{"role":"user","content":"hi"}]}`, badReq(ire, "input[0].content", "Invalid type for 'input[0].content': expected an array, but got a string instead.")},
		{"assistant message is rejected", `{"agent_id":"a","environment":{"type":"none"},"input":[{"role":"assistant","content":[{"type":"input_text","text":"x"}]}]}`, badReq(ire, "input[0].role", "Invalid value: 'assistant'. Supported values are: 'user'.")},
		{"remote image is not served", `{"agent_id":"a","environment":{"type":"none"},"input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]}`, badReq(uoc, "", "Remote image URLs are not supported; send an inline data:image/png or data:image/jpeg base64 URL.")},
		{"stream must be a boolean", `{"agent_id":"a","environment":{"type":"none"},"stream":"yes"}`, badReq(ire, "stream", "Invalid type for 'stream': expected a boolean, but got a string instead.")},
		{"stream_options without stream is accepted", `{"agent_id":"a","environment":{"type":"none"},"stream_options":{"include_obfuscation":false}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseSessionCreate([]byte(tc.body))
			if diff := cmp.Diff(tc.want, asWant(t, err)); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSessionCreateCommand(t *testing.T) {
	t.Parallel()
	got, err := ParseSessionCreate([]byte(`{"agent_id":"agent_1","agent":{"tools":null,"instructions":"x"},"environment":{"type":"none"},"input":"Weather?","metadata":{"k":"v"},"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := SessionCreate{Stream: true, Session: engine.NewSession{
		AgentID:     "agent_1",
		Inline:      engine.RawObject{"tools": json.RawMessage("null"), "instructions": json.RawMessage(`"x"`)},
		Environment: json.RawMessage(`{"type":"none"}`),
		Input:       [][]session.ContentPart{{{Type: "input_text", Text: "Weather?"}}},
		Metadata:    map[string]string{"k": "v"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("command mismatch (-want +got):\n%s", diff)
	}
}

func TestParseEventsKeepsToolResultMemberPresence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		event      string
		wantOutput json.RawMessage
		wantError  json.RawMessage
	}{
		{"absent output and error stay absent", `{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true}`, nil, nil},
		{"null output and error stay null", `{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true,"output":null,"error":null}`, json.RawMessage("null"), json.RawMessage("null")},
		{"string output is kept", `{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true,"output":"{\"temp_c\":21}"}`, json.RawMessage(`"{\"temp_c\":21}"`), nil},
		{"part output is kept", `{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true,"output":[{"type":"input_text","text":"a"}]}`, json.RawMessage(`[{"type":"input_text","text":"a"}]`), nil},
		{"failure keeps its error", `{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":false,"error":"Tool handler failed."}`, nil, json.RawMessage(`"Tool handler failed."`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, err := ParseEvents([]byte(`{"events":[` + tc.event + `]}`))
			if err != nil {
				t.Fatal(err)
			}
			if len(in) != 1 || in[0].ToolResult == nil {
				t.Fatalf("inputs = %+v", in)
			}
			r := in[0].ToolResult
			if diff := cmp.Diff(tc.wantOutput, r.Output); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantError, r.Error); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEventsValidation(t *testing.T) {
	t.Parallel()
	msg := `{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}`
	many := `{"events":[`
	for i := 0; i < 65; i++ {
		if i > 0 {
			many += ","
		}
		many += `{"type":"agent.session.input.cancel"}`
	}
	many += `]}`
	cases := []struct {
		name string
		body string
		want *wantErr
	}{
		{"message, result and cancel are accepted", `{"events":[` + msg + `,{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true},{"type":"agent.session.input.cancel"}]}`, nil},
		{"an empty batch is a no-op", `{"events":[]}`, nil},
		{"missing events is rejected", `{}`, badReq(ire, "events", "Missing required parameter: 'events'.")},
		{"null events is rejected", `{"events":null}`, badReq(ire, "events", "Invalid type for 'events': expected an array, but got null instead.")},
		{"65 events are rejected", many, badReq(ire, "events", "Invalid 'events': array too long. Expected an array with maximum length 64, but got an array with length 65 instead.")},
		{"unknown event type is rejected", `{"events":[{"type":"agent.session.input.steer"}]}`, badReq(ire, "events[0].type", "Invalid value: 'agent.session.input.steer'. Supported values are: 'agent.session.input.message', 'agent.session.input.tool_result', 'agent.session.input.cancel', and 'agent.session.input.computer_use_approval_request_result'.")},
		{"result without success is rejected", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c"}]}`, badReq(ire, "events[0].success", "Missing required parameter: 'events[0].success'.")},
		{"result with null success is rejected", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":null}]}`, badReq(ire, "events[0].success", "Invalid type for 'events[0].success': expected a boolean, but got null instead.")},
		{"result with a blank call_id is rejected", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"","success":true}]}`, badReq(ir, "events[0].call_id", "Invalid 'events[0].call_id': expected a nonempty string.")},
		{"result with an object output is rejected", `{"events":[{"type":"agent.session.input.tool_result","turn_id":"t","call_id":"c","success":true,"output":{"a":1}}]}`, badReq(ire, "events[0].output", "Invalid type for 'events[0].output': expected a string or an array, but got an object instead.")},
		{"message with only empty text is rejected", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_text","text":""}]}]}]}`, badReq(ir, "events[0].input[0].content", "A message needs an image or at least one nonempty text part.")},
		{"message type other than message is rejected", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","type":"","content":[{"type":"input_text","text":"x"}]}]}]}`, badReq(ire, "events[0].input[0].type", "Invalid value: ''. Supported values are: 'message'.")},
		{"image detail is an unknown member", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"low"}]}]}]}`, badReq(ire, "events[0].input[0].content[0].detail", "Unknown parameter: 'events[0].input[0].content[0].detail'.")},
		{"inline png is accepted", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}]}]}`, nil},
		{"png label on jpeg bytes is rejected", `{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,/9j/"}]}]}]}`, badReq(ir, "events[0].input[0].content[0].image_url", "Invalid 'events[0].input[0].content[0].image_url': expected an inline data:image/png or data:image/jpeg base64 URL.")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseEvents([]byte(tc.body))
			if diff := cmp.Diff(tc.want, asWant(t, err)); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSessionUpdate(t *testing.T) {
	t.Parallel()
	if _, err := ParseSessionUpdate([]byte(`{}`)); cmp.Diff(badReq(ire, "", "At least one update field is required."), asWant(t, err)) != "" {
		t.Errorf("empty update: %v", err)
	}
	if m, err := ParseSessionUpdate([]byte(`{"metadata":{"a":"b"}}`)); err != nil || m["a"] != "b" {
		t.Errorf("metadata update: %v %v", m, err)
	}
	if _, err := ParseSessionUpdate([]byte(`{"metadata":{},"agent":{"model":"x"}}`)); asWant(t, err) == nil || asWant(t, err).Code != uoc {
		t.Errorf("agent update accepted: %v", err)
	}
}

func TestRequestHashIgnoresOrderAndWhitespace(t *testing.T) {
	t.Parallel()
	a := RequestHash([]byte(`{"a":1,"b":[1,2]}`))
	b := RequestHash([]byte(`{ "b" : [1, 2], "a" : 1 }`))
	c := RequestHash([]byte(`{"a":1,"b":[2,1]}`))
	if a != b || a == c {
		t.Errorf("hashes: %s %s %s", a, b, c)
	}
}

func TestCheckIdempotencyKey(t *testing.T) {
	t.Parallel()
	long := make([]byte, 129)
	for i := range long {
		long[i] = 'k'
	}
	for key, ok := range map[string]bool{"k": true, string(long[:128]): true, string(long): false, "": false, "   ": false} {
		if err := CheckIdempotencyKey(key); (err == nil) != ok {
			t.Errorf("CheckIdempotencyKey(%q) = %v, want ok=%v", key, err, ok)
		}
	}
}
