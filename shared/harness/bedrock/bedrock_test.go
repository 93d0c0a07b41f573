package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/bedrock"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/session"
)

const secretKey = "wJalrXUtnFEMI-SECRET-never-shown"

// frame is one AWS event-stream message the fake Bedrock sends: an event (name = :event-type) or an exception
// (name = :exception-type).
type frame struct {
	exception bool
	name      string
	payload   string
}

func ev(name, payload string) frame { return frame{name: name, payload: payload} }

// fakeBedrock is an httptest server speaking ConverseStream's wire: a REST-JSON request, an
// application/vnd.amazon.eventstream response (or a JSON error with X-Amzn-ErrorType).
type fakeBedrock struct {
	*httptest.Server
	mu     sync.Mutex
	path   string
	body   map[string]any
	status int
	errTyp string
	frames []frame
}

func newFake(t *testing.T) *fakeBedrock {
	f := &fakeBedrock{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeBedrock) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.path = r.URL.EscapedPath()
	_ = json.Unmarshal(raw, &f.body)
	status, errTyp, frames := f.status, f.errTyp, f.frames
	f.mu.Unlock()
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		http.Error(w, `{"message":"missing signature"}`, http.StatusForbidden)
		return
	}
	if status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", errTyp)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"message":"Too many requests, please wait before trying again."}`)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	enc := eventstream.NewEncoder()
	for _, fr := range frames {
		var h eventstream.Headers
		if fr.exception {
			h.Set(":message-type", eventstream.StringValue("exception"))
			h.Set(":exception-type", eventstream.StringValue(fr.name))
		} else {
			h.Set(":message-type", eventstream.StringValue("event"))
			h.Set(":event-type", eventstream.StringValue(fr.name))
		}
		h.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(w, eventstream.Message{Headers: h, Payload: []byte(fr.payload)}); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func (f *fakeBedrock) model(t *testing.T) harness.Model {
	t.Helper()
	p := harness.Providers{}
	cfg := aws.Config{
		Region: "us-west-2",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: secretKey, Source: "test"}, nil
		}),
	}
	bedrock.Register(p, cfg, func(o *bedrockruntime.Options) {
		o.BaseEndpoint = aws.String(f.URL)
		o.RetryMaxAttempts = 1
	})
	m, err := p.Model(agent.Config{Model: "anthropic.claude-test-v1:0", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol}}})
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

var weatherTool = harness.Tool{Name: "get_weather", Description: "Weather of a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

func userRequest(s string) harness.Request {
	return harness.Request{Model: "anthropic.claude-test-v1:0", TurnID: "turn_1", Instructions: "Be brief.", Messages: []harness.Message{{Role: harness.RoleUser, Text: s}}, Tools: []harness.Tool{weatherTool}}
}

const (
	start    = `{"role":"assistant"}`
	metadata = `{"usage":{"inputTokens":21,"outputTokens":9,"totalTokens":30},"metrics":{"latencyMs":12}}`
)

func toolStart(i int, id, name string) frame {
	return ev("contentBlockStart", `{"contentBlockIndex":`+itoa(i)+`,"start":{"toolUse":{"toolUseId":"`+id+`","name":"`+name+`"}}}`)
}

func toolDelta(i int, input string) frame {
	b, _ := json.Marshal(input)
	return ev("contentBlockDelta", `{"contentBlockIndex":`+itoa(i)+`,"delta":{"toolUse":{"input":`+string(b)+`}}}`)
}

func textDelta(i int, s string) frame {
	b, _ := json.Marshal(s)
	return ev("contentBlockDelta", `{"contentBlockIndex":`+itoa(i)+`,"delta":{"text":`+string(b)+`}}`)
}

func blockStop(i int) frame { return ev("contentBlockStop", `{"contentBlockIndex":`+itoa(i)+`}`) }

func stop(reason string) frame { return ev("messageStop", `{"stopReason":"`+reason+`"}`) }

func itoa(i int) string { return string(rune('0' + i)) }

func TestStream(t *testing.T) {
	t.Parallel()
	followUp := harness.Request{
		Model: "anthropic.claude-test-v1:0", Instructions: "Be brief.", Tools: []harness.Tool{weatherTool},
		Messages: []harness.Message{
			{Role: harness.RoleUser, Text: "Weather in Paris and Rome?"},
			{Role: harness.RoleAssistant, Text: "Checking.", Calls: []harness.Call{
				{ID: "tu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":12345678901234567890}`)},
				{ID: "tu_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
			}},
			{Role: harness.RoleTool, Results: []harness.Result{
				{CallID: "tu_1", Name: "get_weather", Output: "sunny", Images: []harness.Image{{MediaType: "image/png", Data: []byte("PNG")}}},
				{CallID: "tu_2", Name: "get_weather", Output: "city unknown", IsError: true},
			}},
		},
	}
	tests := []struct {
		name      string
		req       harness.Request
		frames    []frame
		status    int
		errType   string
		want      []harness.Part
		wantCause string
		// wantBody holds members of the request body the server must have received.
		wantBody string
	}{
		{
			name: "plain text streams in several deltas with usage",
			req:  userRequest("Hello"),
			frames: []frame{ev("messageStart", start), textDelta(0, "Hel"), textDelta(0, "lo, "), textDelta(0, "world."), blockStop(0),
				stop("end_turn"), ev("metadata", metadata)},
			want: []harness.Part{text("Hel"), text("lo, "), text("world."), usage(21, 9)},
			wantBody: `{
				"system": [{"text": "Be brief."}],
				"messages": [{"role": "user", "content": [{"text": "Hello"}]}],
				"toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Weather of a city",
					"inputSchema": {"json": {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}}]}
			}`,
		},
		{
			name: "one tool call accumulates its streamed input",
			req:  userRequest("Weather in Paris?"),
			frames: []frame{ev("messageStart", start), textDelta(0, "Checking."), blockStop(0),
				toolStart(1, "tu_1", "get_weather"), toolDelta(1, `{"ci`), toolDelta(1, `ty": "Pa`), toolDelta(1, `ris"}`), blockStop(1),
				stop("tool_use"), ev("metadata", metadata)},
			want: []harness.Part{text("Checking."), call("tu_1", "get_weather", `{"city": "Paris"}`), usage(21, 9)},
		},
		{
			name: "parallel tool calls keep their order and an empty input is {}",
			req:  userRequest("Weather in Paris, Rome and Oslo?"),
			frames: []frame{ev("messageStart", start),
				toolStart(0, "tu_a", "get_weather"), toolDelta(0, `{"city":"Paris"}`), blockStop(0),
				toolStart(1, "tu_b", "get_weather"), toolDelta(1, `{"city":`), toolDelta(1, `"Rome"}`), blockStop(1),
				toolStart(2, "tu_c", "get_time"), blockStop(2),
				stop("tool_use"), ev("metadata", metadata)},
			want: []harness.Part{call("tu_a", "get_weather", `{"city":"Paris"}`), call("tu_b", "get_weather", `{"city":"Rome"}`), call("tu_c", "get_time", `{}`), usage(21, 9)},
		},
		{
			name:   "a follow-up request carries toolUse and toolResult blocks with success and error status",
			req:    followUp,
			frames: []frame{ev("messageStart", start), textDelta(0, "Paris is sunny."), blockStop(0), stop("end_turn"), ev("metadata", metadata)},
			want:   []harness.Part{text("Paris is sunny."), usage(21, 9)},
			wantBody: `{"messages": [
				{"role": "user", "content": [{"text": "Weather in Paris and Rome?"}]},
				{"role": "assistant", "content": [{"text": "Checking."},
					{"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris", "days": 12345678901234567890}}},
					{"toolUse": {"toolUseId": "tu_2", "name": "get_weather", "input": {"city": "Rome"}}}]},
				{"role": "user", "content": [
					{"toolResult": {"toolUseId": "tu_1", "status": "success", "content": [{"text": "sunny"}, {"image": {"format": "png", "source": {"bytes": "UE5H"}}}]}},
					{"toolResult": {"toolUseId": "tu_2", "status": "error", "content": [{"text": "city unknown"}]}}]}
			]}`,
		},
		{
			name:      "throttling is a model error",
			req:       userRequest("Hello"),
			status:    http.StatusTooManyRequests,
			errType:   "ThrottlingException",
			wantCause: "bedrock_converse: ThrottlingException: Too many requests, please wait before trying again.",
		},
		{
			name:      "a validation error is a model error",
			req:       userRequest("Hello"),
			status:    http.StatusBadRequest,
			errType:   "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
			wantCause: "bedrock_converse: ValidationException: Too many requests, please wait before trying again.",
		},
		{
			name: "an exception event mid-stream is a model error after the text already streamed",
			req:  userRequest("Hello"),
			frames: []frame{ev("messageStart", start), textDelta(0, "Hel"),
				{exception: true, name: "modelStreamErrorException", payload: `{"message":"upstream model failed","originalStatusCode":500}`}},
			want:      []harness.Part{text("Hel")},
			wantCause: "bedrock_converse: ModelStreamErrorException: upstream model failed",
		},
		{
			name:      "max_tokens is a model error",
			req:       userRequest("Hello"),
			frames:    []frame{ev("messageStart", start), textDelta(0, "Hel"), blockStop(0), stop("max_tokens"), ev("metadata", metadata)},
			want:      []harness.Part{text("Hel")},
			wantCause: "bedrock_converse: the response stopped with stopReason max_tokens",
		},
		{
			name: "malformed tool input is a model error",
			req:  userRequest("Hello"),
			frames: []frame{ev("messageStart", start), toolStart(0, "tu_1", "get_weather"), toolDelta(0, `{"city":`), blockStop(0),
				stop("tool_use"), ev("metadata", metadata)},
			wantCause: `bedrock_converse: the model returned malformed input for tool "get_weather"`,
		},
		{
			name:      "a stream that ends early is a model error",
			req:       userRequest("Hello"),
			frames:    []frame{ev("messageStart", start), textDelta(0, "Hel")},
			want:      []harness.Part{text("Hel")},
			wantCause: "bedrock_converse: the response stream ended before messageStop",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.frames, f.status, f.errTyp = tc.frames, tc.status, tc.errType
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
			if err != nil && strings.Contains(err.Error(), secretKey) {
				t.Errorf("error %q contains the secret key", err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if want := "/model/anthropic.claude-test-v1%3A0/converse-stream"; f.path != want {
				t.Errorf("path = %q, want %q", f.path, want)
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

func TestProviderRejectsRequestSuppliedEndpointAndCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     agent.Config
		wantErr string
	}{
		{name: "model from model_provider", cfg: agent.Config{XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol, Model: "m"}}}},
		{name: "model from the agent", cfg: agent.Config{Model: "m", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol}}}},
		{
			name:    "base_url is refused",
			cfg:     agent.Config{Model: "m", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol, BaseURL: "https://evil.example"}}},
			wantErr: `harness configuration: model provider "bedrock_converse": x_baton.model_provider.base_url is not accepted for bedrock_converse: the Bedrock endpoint comes from deployment configuration`,
		},
		{
			name:    "api_key is refused without showing it",
			cfg:     agent.Config{Model: "m", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol, APIKey: secretKey}}},
			wantErr: `harness configuration: model provider "bedrock_converse": x_baton.model_provider.api_key is not accepted for bedrock_converse: Bedrock credentials come from deployment configuration`,
		},
		{
			name:    "a model id is required",
			cfg:     agent.Config{XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: bedrock.Protocol}}},
			wantErr: `harness configuration: model provider "bedrock_converse": bedrock_converse needs a model id (x_baton.model_provider.model or the agent's model)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := harness.Providers{}
			bedrock.Register(p, aws.Config{Region: "us-east-1"})
			_, err := p.Model(tc.cfg)
			got := ""
			if err != nil {
				got = err.Error()
				var ce *harness.ConfigError
				if !errors.As(err, &ce) {
					t.Errorf("error %T is not a *harness.ConfigError", err)
				}
			}
			if got != tc.wantErr {
				t.Errorf("error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestInputImages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		url     string
		wantErr string
	}{
		{name: "a png data URL becomes image bytes", url: "data:image/png;base64,iVBORw0KGgo="},
		{name: "an https URL is refused", url: "https://example.com/cat.png", wantErr: "input_image: bedrock_converse accepts only data: image URLs"},
		{name: "an unsupported format is refused", url: "data:image/tiff;base64,AAAA", wantErr: "input_image: bedrock_converse accepts png, jpeg, gif and webp images"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := bedrock.Input(harness.Request{Model: "m", Messages: []harness.Message{{Role: harness.RoleUser, Text: "look", Images: []string{tc.url}}}})
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
