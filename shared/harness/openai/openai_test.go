package openai_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/harness/openai"
	"github.com/baton-run/baton/shared/session"
)

const apiKey = "sk-test-SECRET-0123456789abcdef"

// sse is one server-sent event: name "" sends only data (Chat Completions style).
type sse struct{ name, data string }

// fakeOpenAI is an httptest server speaking the OpenAI wire: JSON requests, SSE responses, JSON error bodies.
type fakeOpenAI struct {
	*httptest.Server
	mu     sync.Mutex
	path   string
	auth   string
	body   map[string]any
	status int
	errMsg string
	events []sse
}

func newFake(t *testing.T) *fakeOpenAI {
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.path, f.auth = r.URL.Path, r.Header.Get("Authorization")
	_ = json.Unmarshal(raw, &f.body)
	status, msg, events := f.status, f.errMsg, f.events
	f.mu.Unlock()
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "rate_limit_exceeded"}})
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		if e.name != "" {
			fmt.Fprintf(w, "event: %s\n", e.name)
		}
		fmt.Fprintf(w, "data: %s\n\n", e.data)
		w.(http.Flusher).Flush()
	}
}

func (f *fakeOpenAI) model(t *testing.T, protocol string) harness.Model {
	t.Helper()
	p := harness.Providers{}
	openai.Register(p, openai.Options{ClientOptions: []option.RequestOption{option.WithMaxRetries(0)}})
	m, err := p.Model(agent.Config{Model: "agent-model", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{
		Protocol: protocol, Model: "gpt-test", BaseURL: f.URL + "/v1", APIKey: apiKey,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func text(s, phase string) harness.Part {
	return harness.Part{Kind: harness.PartText, Text: s, Phase: phase}
}

func call(id, name, args string) harness.Part {
	return harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}}
}

func usage(in, out int64) harness.Part {
	return harness.Part{Kind: harness.PartUsage, Usage: &session.Usage{InputTokens: in, OutputTokens: out}}
}

var weatherTool = harness.Tool{Name: "get_weather", Description: "Weather of a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

func userRequest(s string) harness.Request {
	return harness.Request{Model: "gpt-test", TurnID: "turn_abc", Instructions: "Be brief.", Messages: []harness.Message{{Role: harness.RoleUser, Text: s}}, Tools: []harness.Tool{weatherTool}}
}

// followUp is a request after two parallel calls were answered, one with a failure.
var followUp = harness.Request{
	Model: "gpt-test", TurnID: "turn_abc", Instructions: "Be brief.", Tools: []harness.Tool{weatherTool},
	Messages: []harness.Message{
		{Role: harness.RoleUser, Text: "Weather in Paris and Rome?"},
		{Role: harness.RoleAssistant, Text: "Checking.", Calls: []harness.Call{
			{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
		}},
		{Role: harness.RoleTool, Results: []harness.Result{
			{CallID: "call_1", Name: "get_weather", Output: "sunny", Images: []harness.Image{{MediaType: "image/png", Data: []byte("PNG")}}},
			{CallID: "call_2", Name: "get_weather", Output: "city unknown", IsError: true},
		}},
	},
}

// providerCase is one wire test: the events (or error) the server answers with, the parts the model must yield,
// the cause of the expected *harness.ModelError and members of the request body the server must have received.
type providerCase struct {
	name      string
	req       harness.Request
	events    []sse
	status    int
	errMsg    string
	want      []harness.Part
	wantCause string
	wantBody  string
}

func run(t *testing.T, protocol, path string, tests []providerCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.events, f.status, f.errMsg = tc.events, tc.status, tc.errMsg
			got, err := modeltest.Collect(t, f.model(t, protocol), tc.req)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			cause := ""
			var me *harness.ModelError
			if errors.As(err, &me) {
				cause = me.Cause
			} else if err != nil {
				t.Fatalf("error %v is not a *harness.ModelError", err)
			}
			if cause != tc.wantCause {
				t.Errorf("cause = %q, want %q", cause, tc.wantCause)
			}
			if err != nil && (strings.Contains(err.Error(), apiKey) || (me.Err != nil && strings.Contains(me.Err.Error(), apiKey))) {
				t.Errorf("error %q contains the API key", err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.path != path {
				t.Errorf("path = %q, want %q", f.path, path)
			}
			if want := "Bearer " + apiKey; f.auth != want {
				t.Errorf("Authorization = %q, want the configured key", f.auth)
			}
			if f.body["model"] != "gpt-test" || f.body["stream"] != true {
				t.Errorf("model, stream = %v, %v; want gpt-test, true", f.body["model"], f.body["stream"])
			}
			if tc.wantBody != "" {
				var want map[string]any
				if err := json.Unmarshal([]byte(tc.wantBody), &want); err != nil {
					t.Fatal(err)
				}
				for k, v := range want {
					if diff := cmp.Diff(v, f.body[k]); diff != "" {
						t.Errorf("request %s (-want +got):\n%s", k, diff)
					}
				}
			}
		})
	}
}

// Responses API events.

func rev(typ string, fields string) sse {
	data := `{"type":"` + typ + `","sequence_number":0`
	if fields != "" {
		data += "," + fields
	}
	return sse{name: typ, data: data + "}"}
}

var (
	created   = rev("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-test","output":[]}`)
	completed = rev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-test","output":[],"usage":{"input_tokens":31,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":38}}`)
)

func msgAdded(i int, id, phase string) sse {
	ph := ""
	if phase != "" {
		ph = `,"phase":"` + phase + `"`
	}
	return rev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"message","status":"in_progress","role":"assistant","content":[]%s}`, i, id, ph))
}

func textDelta(i int, id, d string) sse {
	b, _ := json.Marshal(d)
	return rev("response.output_text.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"delta":%s,"logprobs":[]`, id, i, b))
}

func fcAdded(i int, id, callID, name string) sse {
	return rev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":%q}`, i, id, callID, name))
}

func argsDelta(i int, id, d string) sse {
	b, _ := json.Marshal(d)
	return rev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":%s`, id, i, b))
}

func argsDone(i int, id, args string) sse {
	b, _ := json.Marshal(args)
	return rev("response.function_call_arguments.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"arguments":%s`, id, i, b))
}

func TestResponses(t *testing.T) {
	t.Parallel()
	run(t, openai.ProtocolResponses, "/v1/responses", []providerCase{
		{
			name: "plain text streams in several deltas with usage",
			req:  userRequest("Hello"),
			events: []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Hel"), textDelta(0, "msg_1", "lo, "), textDelta(0, "msg_1", "world."),
				rev("response.output_text.done", `"item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello, world."`), completed},
			want: []harness.Part{text("Hel", ""), text("lo, ", ""), text("world.", ""), usage(31, 7)},
			wantBody: `{
				"instructions": "Be brief.",
				"store": false,
				"input": [{"role": "user", "content": "Hello"}],
				"tools": [{"type": "function", "name": "get_weather", "description": "Weather of a city", "strict": false,
					"parameters": {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]
			}`,
		},
		{
			name:   "a declared final_answer phase is passed on",
			req:    userRequest("Hello"),
			events: []sse{created, msgAdded(0, "msg_1", "final_answer"), textDelta(0, "msg_1", "Hi"), completed},
			want:   []harness.Part{text("Hi", "final_answer"), usage(31, 7)},
		},
		{
			name: "one tool call accumulates its argument deltas",
			req:  userRequest("Weather in Paris?"),
			events: []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Checking."),
				fcAdded(1, "fc_1", "call_1", "get_weather"), argsDelta(1, "fc_1", `{"ci`), argsDelta(1, "fc_1", `ty":"Paris"}`), completed},
			want: []harness.Part{text("Checking.", ""), call("call_1", "get_weather", `{"city":"Paris"}`), usage(31, 7)},
		},
		{
			name: "parallel tool calls keep output order even when their events interleave",
			req:  userRequest("Weather in Paris, Rome and Oslo?"),
			events: []sse{created,
				fcAdded(0, "fc_a", "call_a", "get_weather"), fcAdded(1, "fc_b", "call_b", "get_weather"), fcAdded(2, "fc_c", "call_c", "get_time"),
				argsDelta(1, "fc_b", `{"city":"Rome"}`), argsDelta(0, "fc_a", `{"city":`), argsDelta(0, "fc_a", `"Paris"}`),
				argsDone(0, "fc_a", `{"city":"Paris"}`), argsDone(1, "fc_b", `{"city":"Rome"}`), completed},
			want: []harness.Part{call("call_a", "get_weather", `{"city":"Paris"}`), call("call_b", "get_weather", `{"city":"Rome"}`), call("call_c", "get_time", `{}`), usage(31, 7)},
		},
		{
			name:   "a follow-up request carries function_call and function_call_output items",
			req:    followUp,
			events: []sse{created, msgAdded(0, "msg_2", ""), textDelta(0, "msg_2", "Paris is sunny."), completed},
			want:   []harness.Part{text("Paris is sunny.", ""), usage(31, 7)},
			wantBody: `{"input": [
				{"role": "user", "content": "Weather in Paris and Rome?"},
				{"role": "assistant", "content": "Checking."},
				{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
				{"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}"},
				{"type": "function_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "sunny"},
					{"type": "input_image", "image_url": "data:image/png;base64,UE5H", "detail": "auto"}]},
				{"type": "function_call_output", "call_id": "call_2", "output": "Error: city unknown"}
			]}`,
		},
		{
			name:      "a 429 is a model error without the key",
			req:       userRequest("Hello"),
			status:    http.StatusTooManyRequests,
			errMsg:    "Rate limit reached for key " + apiKey,
			wantCause: "openai_responses: HTTP 429 rate_limit_exceeded: Rate limit reached for key [redacted]",
		},
		{
			name:      "a 500 is a model error",
			req:       userRequest("Hello"),
			status:    http.StatusInternalServerError,
			errMsg:    "The server had an error",
			wantCause: "openai_responses: HTTP 500 rate_limit_exceeded: The server had an error",
		},
		{
			name:      "response.failed is a model error",
			req:       userRequest("Hello"),
			events:    []sse{created, rev("response.failed", `"response":{"id":"resp_1","object":"response","status":"failed","output":[],"error":{"code":"server_error","message":"boom"}}`)},
			wantCause: "openai_responses: the response failed: server_error: boom",
		},
		{
			name:      "response.incomplete is a model error",
			req:       userRequest("Hello"),
			events:    []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Hel"), rev("response.incomplete", `"response":{"id":"resp_1","object":"response","status":"incomplete","output":[],"incomplete_details":{"reason":"max_output_tokens"}}`)},
			want:      []harness.Part{text("Hel", "")},
			wantCause: "openai_responses: the response is incomplete (max_output_tokens)",
		},
		{
			name:      "malformed arguments are a model error",
			req:       userRequest("Hello"),
			events:    []sse{created, fcAdded(0, "fc_1", "call_1", "get_weather"), argsDelta(0, "fc_1", `{"city":`), completed},
			wantCause: `openai_responses: the model returned malformed arguments for function "get_weather"`,
		},
		{
			name:      "a stream that ends early is a model error",
			req:       userRequest("Hello"),
			events:    []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Hel")},
			want:      []harness.Part{text("Hel", "")},
			wantCause: "openai_responses: the response stream ended before response.completed",
		},
	})
}

// Chat Completions chunks.

func chunk(choice string) sse {
	return sse{data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[` + choice + `]}`}
}

func content(s string) sse {
	b, _ := json.Marshal(s)
	return chunk(`{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}`)
}

func toolCallStart(i int, id, name string) sse {
	return chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]},"finish_reason":null}`, i, id, name))
}

func toolArgs(i int, d string) sse {
	b, _ := json.Marshal(d)
	return chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]},"finish_reason":null}`, i, b))
}

func finish(reason string) sse {
	return chunk(`{"index":0,"delta":{},"finish_reason":"` + reason + `"}`)
}

var (
	roleChunk  = chunk(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`)
	usageChunk = sse{data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":7,"total_tokens":38}}`}
	done       = sse{data: "[DONE]"}
)

func TestChat(t *testing.T) {
	t.Parallel()
	run(t, openai.ProtocolChat, "/v1/chat/completions", []providerCase{
		{
			name:   "plain text streams in several deltas with usage",
			req:    userRequest("Hello"),
			events: []sse{roleChunk, content("Hel"), content("lo, "), content("world."), finish("stop"), usageChunk, done},
			want:   []harness.Part{text("Hel", ""), text("lo, ", ""), text("world.", ""), usage(31, 7)},
			wantBody: `{
				"stream_options": {"include_usage": true},
				"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}],
				"tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
					"parameters": {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]
			}`,
		},
		{
			name: "one tool call accumulates its argument deltas",
			req:  userRequest("Weather in Paris?"),
			events: []sse{roleChunk, content("Checking."), toolCallStart(0, "call_1", "get_weather"), toolArgs(0, `{"ci`), toolArgs(0, `ty":"Paris"}`),
				finish("tool_calls"), usageChunk, done},
			want: []harness.Part{text("Checking.", ""), call("call_1", "get_weather", `{"city":"Paris"}`), usage(31, 7)},
		},
		{
			name: "parallel tool calls keep index order",
			req:  userRequest("Weather in Paris, Rome and Oslo?"),
			events: []sse{roleChunk,
				toolCallStart(0, "call_a", "get_weather"), toolArgs(0, `{"city":"Paris"}`),
				toolCallStart(1, "call_b", "get_weather"), toolArgs(1, `{"city":`), toolArgs(1, `"Rome"}`),
				toolCallStart(2, "call_c", "get_time"),
				finish("tool_calls"), usageChunk, done},
			want: []harness.Part{call("call_a", "get_weather", `{"city":"Paris"}`), call("call_b", "get_weather", `{"city":"Rome"}`), call("call_c", "get_time", `{}`), usage(31, 7)},
		},
		{
			name: "calls that share index 0 and lack ids still come apart, with minted ids",
			req:  userRequest("Weather in Paris and Rome?"),
			events: []sse{
				chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":null}`),
				chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":null}`),
				finish("tool_calls"), done},
			want: []harness.Part{call("call_abc_1", "get_weather", `{"city":"Paris"}`), call("call_abc_2", "get_weather", `{"city":"Rome"}`)},
		},
		{
			name:   "a follow-up request carries tool_calls and tool messages",
			req:    followUp,
			events: []sse{roleChunk, content("Paris is sunny."), finish("stop"), usageChunk, done},
			want:   []harness.Part{text("Paris is sunny.", ""), usage(31, 7)},
			wantBody: `{"messages": [
				{"role": "system", "content": "Be brief."},
				{"role": "user", "content": "Weather in Paris and Rome?"},
				{"role": "assistant", "content": "Checking.", "tool_calls": [
					{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
					{"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
				{"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
				{"role": "tool", "tool_call_id": "call_2", "content": "Error: city unknown"}
			]}`,
		},
		{
			name:      "a 400 is a model error without the key",
			req:       userRequest("Hello"),
			status:    http.StatusBadRequest,
			errMsg:    "Incorrect API key provided: " + apiKey,
			wantCause: "openai_chat: HTTP 400 rate_limit_exceeded: Incorrect API key provided: [redacted]",
		},
		{
			name:      "an error chunk mid-stream is a model error",
			req:       userRequest("Hello"),
			events:    []sse{roleChunk, content("Hel"), {data: `{"error":{"message":"overloaded","type":"server_error","code":null}}`}},
			want:      []harness.Part{text("Hel", "")},
			wantCause: "openai_chat: error event server_error: overloaded",
		},
		{
			name:      "finish_reason length is a model error",
			req:       userRequest("Hello"),
			events:    []sse{roleChunk, content("Hel"), finish("length"), usageChunk, done},
			want:      []harness.Part{text("Hel", "")},
			wantCause: "openai_chat: the response stopped with finish_reason length",
		},
		{
			name:      "a stream that ends without finish_reason is a model error",
			req:       userRequest("Hello"),
			events:    []sse{roleChunk, content("Hel")},
			want:      []harness.Part{text("Hel", "")},
			wantCause: "openai_chat: the response stream ended without a finish_reason",
		},
	})
}

func TestProviderConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mp      agent.ModelProvider
		model   string
		wantErr string
	}{
		{name: "a compatible base URL and key are accepted", mp: agent.ModelProvider{Model: "llama3", BaseURL: "http://127.0.0.1:11434/v1", APIKey: apiKey}},
		{name: "the agent's model is used without model_provider.model", mp: agent.ModelProvider{}, model: "gpt-test"},
		{name: "no model is refused", mp: agent.ModelProvider{}, wantErr: `harness configuration: model provider "openai_chat": openai_chat needs a model id (x_baton.model_provider.model or the agent's model)`},
		{name: "a relative base URL is refused without echoing it", mp: agent.ModelProvider{Model: "m", BaseURL: "/v1?key=" + apiKey}, wantErr: `harness configuration: model provider "openai_chat": x_baton.model_provider.base_url must be an absolute http or https URL`},
		{name: "a non-http base URL is refused", mp: agent.ModelProvider{Model: "m", BaseURL: "file:///etc/passwd"}, wantErr: `harness configuration: model provider "openai_chat": x_baton.model_provider.base_url must be an absolute http or https URL`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := harness.Providers{}
			openai.Register(p, openai.Options{})
			mp := tc.mp
			mp.Protocol = openai.ProtocolChat
			_, err := p.Model(agent.Config{Model: tc.model, XBaton: &agent.Extension{ModelProvider: &mp}})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestRuntimeDefaultKeyIsUsedWhenTheSessionHasNone(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.events = []sse{roleChunk, content("ok"), finish("stop"), done}
	p := harness.Providers{}
	openai.Register(p, openai.Options{APIKey: "sk-runtime-default", BaseURL: f.URL + "/v1"})
	m, err := p.Model(agent.Config{Model: "gpt-test", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: openai.ProtocolChat}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := modeltest.Collect(t, m, userRequest("hi")); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.auth != "Bearer sk-runtime-default" {
		t.Errorf("Authorization = %q, want the runtime default key", f.auth)
	}
}
