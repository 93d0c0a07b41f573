package anthropic_test

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

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/anthropic"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/session"
)

const apiKey = "sk-ant-test-SECRET-0123456789"

// sse is one server-sent event of the Messages stream.
type sse struct{ name, data string }

func ev(name, data string) sse { return sse{name: name, data: data} }

// fakeAnthropic is an httptest server speaking the Messages API wire: JSON requests, SSE responses, JSON errors.
type fakeAnthropic struct {
	*httptest.Server
	mu      sync.Mutex
	path    string
	key     string
	version string
	body    map[string]any
	status  int
	errType string
	errMsg  string
	events  []sse
}

func newFake(t *testing.T) *fakeAnthropic {
	f := &fakeAnthropic{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.path, f.version = r.URL.Path, r.Header.Get("Anthropic-Version")
	// The SDK sends the key as x-api-key or as a bearer token, depending on its version.
	f.key = r.Header.Get("X-Api-Key")
	if k, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		f.key = k
	}
	_ = json.Unmarshal(raw, &f.body)
	status, typ, msg, events := f.status, f.errType, f.errMsg, f.events
	f.mu.Unlock()
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_1")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": "req_1"})
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
		w.(http.Flusher).Flush()
	}
}

func (f *fakeAnthropic) model(t *testing.T) harness.Model {
	t.Helper()
	p := harness.Providers{}
	anthropic.Register(p, anthropic.Options{ClientOptions: []option.RequestOption{option.WithMaxRetries(0)}})
	m, err := p.Model(agent.Config{Model: "agent-model", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{
		Protocol: anthropic.Protocol, Model: "claude-test", BaseURL: f.URL, APIKey: apiKey,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func text(s string) harness.Part { return harness.Part{Kind: harness.PartText, Text: s} }

func call(id, name, args string) harness.Part {
	return harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}}
}

func usage(in, out int64) harness.Part {
	return harness.Part{Kind: harness.PartUsage, Usage: &session.Usage{InputTokens: in, OutputTokens: out}}
}

var weatherTool = harness.Tool{Name: "get_weather", Description: "Weather of a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)}

func userRequest(s string) harness.Request {
	return harness.Request{Model: "claude-test", TurnID: "turn_1", Instructions: "Be brief.", Messages: []harness.Message{{Role: harness.RoleUser, Text: s}}, Tools: []harness.Tool{weatherTool}}
}

var (
	messageStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":1}}}`)
	ping         = ev("ping", `{"type":"ping"}`)
	messageStop  = ev("message_stop", `{"type":"message_stop"}`)
)

func textStart(i int) sse {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func textDelta(i int, s string) sse {
	b, _ := json.Marshal(s)
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, b))
}

func toolStart(i int, id, name string) sse {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name))
}

func jsonDelta(i int, s string) sse {
	b, _ := json.Marshal(s)
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, b))
}

func blockStop(i int) sse {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func messageDelta(reason string) sse {
	return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":15}}`)
}

func TestStream(t *testing.T) {
	t.Parallel()
	followUp := harness.Request{
		Model: "claude-test", Instructions: "Be brief.", Tools: []harness.Tool{weatherTool},
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "Weather in Paris and Rome?"},
			{Role: harness.RoleAssistant, Text: "Checking.", Calls: []harness.Call{
				{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "toolu_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
			}},
			{Role: harness.RoleTool, Results: []harness.Result{
				{CallID: "toolu_1", Name: "get_weather", Output: "sunny", Images: []harness.Image{{MediaType: "image/png", Data: []byte("PNG")}}},
				{CallID: "toolu_2", Name: "get_weather", Output: "city unknown", IsError: true},
			}},
			{Role: harness.RoleUser, Text: "And tomorrow?"},
		},
	}
	tests := []struct {
		name      string
		req       harness.Request
		events    []sse
		status    int
		errType   string
		errMsg    string
		want      []harness.Part
		wantCause string
		wantBody  string
	}{
		{
			name:   "plain text streams in several deltas with usage",
			req:    userRequest("Hello"),
			events: []sse{messageStart, textStart(0), ping, textDelta(0, "Hel"), textDelta(0, "lo, "), textDelta(0, "world."), blockStop(0), messageDelta("end_turn"), messageStop},
			want:   []harness.Part{text("Hel"), text("lo, "), text("world."), usage(30, 15)},
			wantBody: `{
				"model": "claude-test",
				"max_tokens": 8192,
				"stream": true,
				"system": [{"type": "text", "text": "Be brief."}],
				"messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
				"tools": [{"name": "get_weather", "description": "Weather of a city",
					"input_schema": {"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}]
			}`,
		},
		{
			name: "one tool call accumulates its input_json_delta",
			req:  userRequest("Weather in Paris?"),
			events: []sse{messageStart, textStart(0), textDelta(0, "Checking."), blockStop(0),
				toolStart(1, "toolu_1", "get_weather"), jsonDelta(1, ""), jsonDelta(1, `{"city": "Pa`), jsonDelta(1, `ris"}`), blockStop(1),
				messageDelta("tool_use"), messageStop},
			want: []harness.Part{text("Checking."), call("toolu_1", "get_weather", `{"city": "Paris"}`), usage(30, 15)},
		},
		{
			name: "parallel tool calls keep their order and an empty input is {}",
			req:  userRequest("Weather in Paris, Rome and Oslo?"),
			events: []sse{messageStart,
				toolStart(0, "toolu_a", "get_weather"), jsonDelta(0, `{"city":"Paris"}`), blockStop(0),
				toolStart(1, "toolu_b", "get_weather"), jsonDelta(1, `{"city":`), jsonDelta(1, `"Rome"}`), blockStop(1),
				toolStart(2, "toolu_c", "get_time"), blockStop(2),
				messageDelta("tool_use"), messageStop},
			want: []harness.Part{call("toolu_a", "get_weather", `{"city":"Paris"}`), call("toolu_b", "get_weather", `{"city":"Rome"}`), call("toolu_c", "get_time", `{}`), usage(30, 15)},
		},
		{
			name:   "a follow-up request carries tool_use and tool_result blocks with is_error, and merges the user turn",
			req:    followUp,
			events: []sse{messageStart, textStart(0), textDelta(0, "Paris is sunny."), blockStop(0), messageDelta("end_turn"), messageStop},
			want:   []harness.Part{text("Paris is sunny."), usage(30, 15)},
			wantBody: `{"messages": [
				{"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
				{"role": "assistant", "content": [{"type": "text", "text": "Checking."},
					{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
					{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}}]},
				{"role": "user", "content": [
					{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "sunny"},
						{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "UE5H"}}]},
					{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "city unknown"}], "is_error": true},
					{"type": "text", "text": "And tomorrow?"}]}
			]}`,
		},
		{
			name:      "a 429 is a model error without the key",
			req:       userRequest("Hello"),
			status:    http.StatusTooManyRequests,
			errType:   "rate_limit_error",
			errMsg:    "Number of requests has exceeded your rate limit for " + apiKey,
			wantCause: "anthropic_messages: HTTP 429 rate_limit_error: Number of requests has exceeded your rate limit for [redacted]",
		},
		{
			name:      "a 400 is a model error",
			req:       userRequest("Hello"),
			status:    http.StatusBadRequest,
			errType:   "invalid_request_error",
			errMsg:    "messages: text content blocks must be non-empty",
			wantCause: "anthropic_messages: HTTP 400 invalid_request_error: messages: text content blocks must be non-empty",
		},
		{
			name:      "an error event mid-stream is a model error",
			req:       userRequest("Hello"),
			events:    []sse{messageStart, textStart(0), textDelta(0, "Hel"), ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			want:      []harness.Part{text("Hel")},
			wantCause: "anthropic_messages: error event overloaded_error: Overloaded",
		},
		{
			name:      "max_tokens is a model error",
			req:       userRequest("Hello"),
			events:    []sse{messageStart, textStart(0), textDelta(0, "Hel"), blockStop(0), messageDelta("max_tokens"), messageStop},
			want:      []harness.Part{text("Hel")},
			wantCause: "anthropic_messages: the response stopped with stop_reason max_tokens",
		},
		{
			name:      "malformed tool input is a model error",
			req:       userRequest("Hello"),
			events:    []sse{messageStart, toolStart(0, "toolu_1", "get_weather"), jsonDelta(0, `{"city":`), blockStop(0), messageDelta("tool_use"), messageStop},
			wantCause: `anthropic_messages: the model returned malformed input for tool "get_weather"`,
		},
		{
			name:      "a stream that ends early is a model error",
			req:       userRequest("Hello"),
			events:    []sse{messageStart, textStart(0), textDelta(0, "Hel")},
			want:      []harness.Part{text("Hel")},
			wantCause: "anthropic_messages: the response stream ended before message_stop",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.events, f.status, f.errType, f.errMsg = tc.events, tc.status, tc.errType, tc.errMsg
			got, err := modeltest.Collect(t, f.model(t), tc.req)
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
			if f.path != "/v1/messages" {
				t.Errorf("path = %q, want /v1/messages", f.path)
			}
			if f.key != apiKey || f.version == "" {
				t.Errorf("key = %q, anthropic-version = %q; want the configured key and a version", f.key, f.version)
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

func TestProviderConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mp      agent.ModelProvider
		model   string
		wantErr string
	}{
		{name: "a base URL and key are accepted", mp: agent.ModelProvider{Model: "claude-test", BaseURL: "https://gateway.example/anthropic", APIKey: apiKey}},
		{name: "the agent's model is used without model_provider.model", model: "claude-test", mp: agent.ModelProvider{APIKey: apiKey}},
		{name: "no model is refused", mp: agent.ModelProvider{APIKey: apiKey}, wantErr: `harness configuration: model provider "anthropic_messages": anthropic_messages needs a model id (x_baton.model_provider.model or the agent's model)`},
		{name: "a relative base URL is refused without echoing it", mp: agent.ModelProvider{Model: "m", BaseURL: "v1?key=" + apiKey}, wantErr: `harness configuration: model provider "anthropic_messages": x_baton.model_provider.base_url must be an absolute http or https URL`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := harness.Providers{}
			anthropic.Register(p, anthropic.Options{})
			mp := tc.mp
			mp.Protocol = anthropic.Protocol
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
