package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/tests/stack"
)

// The provider end-to-end tests run one inline-function round trip per model provider protocol through the local
// stack: the runtime talks to an httptest server that speaks the provider's real wire (docs/model-providers.md).
// The model calls get_weather(Paris) first; once the tool result is in the request it answers with text.

const providerResult = "18C and sunny"

// providerWire is one provider's fake: how to tell that a request carries the tool result (and return it), and how
// to write the two responses.
type providerWire struct {
	protocol string
	// result returns the call id and the text of the tool result the request body carries ("" when none).
	result func(body map[string]any) (callID, text string)
	// call writes the response that calls get_weather(Paris) with the provider's call id "call_e2e_1" (the harness
	// replaces it with a Core call id unique within the Session).
	call func(w http.ResponseWriter)
	// answer writes the final text response "Sunny in Paris." in two deltas.
	answer func(w http.ResponseWriter)
}

// fakeModel serves one providerWire and records every request body.
type fakeModel struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

func newFakeModel(t *testing.T, wire providerWire) *fakeModel {
	t.Helper()
	f := &fakeModel{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		if _, text := wire.result(body); text != "" {
			wire.answer(w)
			return
		}
		wire.call(w)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeModel) requests() ([]map[string]any, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...), append([]string(nil), f.auth...)
}

// objects walks a decoded JSON value and calls fn on every object.
func objects(v any, fn func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		fn(t)
		for _, e := range t {
			objects(e, fn)
		}
	case []any:
		for _, e := range t {
			objects(e, fn)
		}
	}
}

func writeSSE(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		if e[0] != "" {
			fmt.Fprintf(w, "event: %s\n", e[0])
		}
		fmt.Fprintf(w, "data: %s\n\n", e[1])
	}
}

var responsesWire = providerWire{
	protocol: "openai_responses",
	result: func(body map[string]any) (id, out string) {
		objects(body["input"], func(o map[string]any) {
			if o["type"] == "function_call_output" {
				id, _ = o["call_id"].(string)
				out, _ = o["output"].(string)
			}
		})
		return id, out
	},
	call: func(w http.ResponseWriter) {
		writeSSE(w,
			[2]string{"response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`},
			[2]string{"response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_e2e_1","name":"get_weather"}}`},
			[2]string{"response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"city\":"}`},
			[2]string{"response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"}`},
			[2]string{"response.completed", `{"type":"response.completed","sequence_number":4,"response":{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}`})
	},
	answer: func(w http.ResponseWriter) {
		writeSSE(w,
			[2]string{"response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","status":"in_progress","output":[]}}`},
			[2]string{"response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`},
			[2]string{"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Sunny in "}`},
			[2]string{"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Paris."}`},
			[2]string{"response.completed", `{"type":"response.completed","sequence_number":4,"response":{"id":"resp_2","object":"response","status":"completed","output":[],"usage":{"input_tokens":20,"output_tokens":4,"total_tokens":24}}}`})
	},
}

func chatChunk(choice string) [2]string {
	return [2]string{"", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[` + choice + `]}`}
}

var chatWire = providerWire{
	protocol: "openai_chat",
	result: func(body map[string]any) (id, out string) {
		objects(body["messages"], func(o map[string]any) {
			if o["role"] == "tool" {
				id, _ = o["tool_call_id"].(string)
				out, _ = o["content"].(string)
			}
		})
		return id, out
	},
	call: func(w http.ResponseWriter) {
		writeSSE(w,
			chatChunk(`{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_e2e_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}`),
			chatChunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":null}`),
			chatChunk(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`),
			[2]string{"", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`},
			[2]string{"", "[DONE]"})
	},
	answer: func(w http.ResponseWriter) {
		writeSSE(w,
			chatChunk(`{"index":0,"delta":{"role":"assistant","content":"Sunny in "},"finish_reason":null}`),
			chatChunk(`{"index":0,"delta":{"content":"Paris."},"finish_reason":null}`),
			chatChunk(`{"index":0,"delta":{},"finish_reason":"stop"}`),
			[2]string{"", "[DONE]"})
	},
}

var anthropicWire = providerWire{
	protocol: "anthropic_messages",
	result: func(body map[string]any) (id, out string) {
		objects(body["messages"], func(o map[string]any) {
			if o["type"] == "tool_result" {
				id, _ = o["tool_use_id"].(string)
				objects(o["content"], func(c map[string]any) {
					if s, ok := c["text"].(string); ok {
						out = s
					}
				})
			}
		})
		return id, out
	},
	call: func(w http.ResponseWriter) {
		writeSSE(w,
			[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`},
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"call_e2e_1","name":"get_weather","input":{}}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`},
			[2]string{"message_stop", `{"type":"message_stop"}`})
	},
	answer: func(w http.ResponseWriter) {
		writeSSE(w,
			[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1}}}`},
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sunny in "}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Paris."}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}`},
			[2]string{"message_stop", `{"type":"message_stop"}`})
	},
}

// writeEventStream writes a ConverseStream response: AWS event-stream frames of {event type, JSON payload}.
func writeEventStream(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	enc := eventstream.NewEncoder()
	for _, e := range events {
		var h eventstream.Headers
		h.Set(":message-type", eventstream.StringValue("event"))
		h.Set(":event-type", eventstream.StringValue(e[0]))
		h.Set(":content-type", eventstream.StringValue("application/json"))
		_ = enc.Encode(w, eventstream.Message{Headers: h, Payload: []byte(e[1])})
	}
}

var bedrockWire = providerWire{
	protocol: "bedrock_converse",
	result: func(body map[string]any) (id, out string) {
		objects(body["messages"], func(o map[string]any) {
			if tr, ok := o["toolResult"].(map[string]any); ok && tr["status"] == "success" {
				id, _ = tr["toolUseId"].(string)
				objects(tr["content"], func(c map[string]any) {
					if s, ok := c["text"].(string); ok {
						out = s
					}
				})
			}
		})
		return id, out
	},
	call: func(w http.ResponseWriter) {
		writeEventStream(w,
			[2]string{"messageStart", `{"role":"assistant"}`},
			[2]string{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"call_e2e_1","name":"get_weather"}}}`},
			[2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"city\":"}}}`},
			[2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\"Paris\"}"}}}`},
			[2]string{"contentBlockStop", `{"contentBlockIndex":0}`},
			[2]string{"messageStop", `{"stopReason":"tool_use"}`},
			[2]string{"metadata", `{"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":15},"metrics":{"latencyMs":1}}`})
	},
	answer: func(w http.ResponseWriter) {
		writeEventStream(w,
			[2]string{"messageStart", `{"role":"assistant"}`},
			[2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Sunny in "}}`},
			[2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Paris."}}`},
			[2]string{"contentBlockStop", `{"contentBlockIndex":0}`},
			[2]string{"messageStop", `{"stopReason":"end_turn"}`},
			[2]string{"metadata", `{"usage":{"inputTokens":20,"outputTokens":4,"totalTokens":24},"metrics":{"latencyMs":1}}`})
	},
}

// providerRoundTrip creates an agent of wire's protocol with the official SDK, runs "weather in Paris" to the
// required action, answers it and checks the final answer, the streamed deltas and what the fake model received.
func providerRoundTrip(t *testing.T, st *stack.Stack, fake *fakeModel, wire providerWire, modelProvider map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client := stack.OpenAI(st)
	modelProvider["protocol"] = wire.protocol
	modelProvider["model"] = "test-model"
	a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model:        "test-model",
		Instructions: openai.String("Answer weather questions."),
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
			})},
	}, option.WithJSONSet("x_baton", map[string]any{"model_provider": modelProvider}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("weather in Paris"))
	at := rec.WaitFor(t, 0, "agent.session.requires_action", func(e wireEvent) bool {
		return e.Type == "agent.session.requires_action" || e.Type == "agent.session.turn.failed"
	})
	ev := rec.Snapshot()[at]
	if ev.Type != "agent.session.requires_action" || ev.Session == nil || len(ev.Session.RequiredActions) != 1 {
		t.Fatalf("want one required action, got %s", ev.raw)
	}
	ra := ev.Session.RequiredActions[0]
	// The provider's call id is replaced by a Core call id unique within the Session.
	wantID := "call_" + strings.TrimPrefix(ra.TurnID, "turn_") + "_1"
	if ra.CallID != wantID || ra.Name != "get_weather" || ra.Arguments["city"] != "Paris" {
		t.Fatalf("required action = %+v, want %s get_weather(Paris)", ra, wantID)
	}
	postEvents(t, ctx, client, s.ID, toolResult(ra.TurnID, ra.CallID, providerResult))
	end := rec.WaitFor(t, at, "the end of the turn", func(e wireEvent) bool {
		return e.TurnID == ra.TurnID && (e.Type == "agent.session.turn.completed" || e.Type == "agent.session.turn.failed")
	})
	events := rec.Snapshot()
	if events[end].Type != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", events[end].raw, dump(events))
	}
	if got := finalText(events[at:]); got != "Sunny in Paris." {
		t.Errorf("final answer = %q, want %q", got, "Sunny in Paris.")
	}
	// The provider's two deltas arrive within one coalescing window (engine.DeltaFlushInterval), so the stream
	// carries them as one or two output_text.delta events whose text is the whole answer, in order.
	var streamed strings.Builder
	for _, e := range events[at:] {
		if e.Type == "agent.session.turn.output_text.delta" {
			var d struct{ Delta string }
			_ = json.Unmarshal([]byte(e.raw), &d)
			streamed.WriteString(d.Delta)
		}
	}
	if n := count(events[at:], isType("agent.session.turn.output_text.delta")); n < 1 || n > 2 || streamed.String() != "Sunny in Paris." {
		t.Errorf("output_text.delta events = %d carrying %q, want one or two carrying %q", n, streamed.String(), "Sunny in Paris.")
	}
	bodies, _ := fake.requests()
	if len(bodies) != 2 {
		t.Fatalf("the model endpoint received %d requests, want 2", len(bodies))
	}
	if id, got := wire.result(bodies[1]); id != ra.CallID || got != providerResult {
		t.Errorf("tool result in the follow-up request = %s %q, want %s %q", id, got, ra.CallID, providerResult)
	}
}

func TestProviderRoundTripThroughTheLocalStack(t *testing.T) {
	t.Parallel()
	for _, wire := range []providerWire{responsesWire, chatWire, anthropicWire} {
		t.Run(wire.protocol, func(t *testing.T) {
			t.Parallel()
			st := stack.Shared(t)
			fake := newFakeModel(t, wire)
			base := fake.URL + "/v1"
			if wire.protocol == "anthropic_messages" {
				base = fake.URL
			}
			providerRoundTrip(t, st, fake, wire, map[string]any{"base_url": base, "api_key": "sk-e2e-test-key"})
			if _, auth := fake.requests(); len(auth) == 0 || auth[0] != "Bearer sk-e2e-test-key" {
				t.Errorf("Authorization = %q, want the agent's api_key", auth)
			}
		})
	}
}

// TestBedrockRoundTripThroughTheLocalStack starts a stack of its own: the Bedrock endpoint comes only from the
// runtime's deployment configuration (AWS_ENDPOINT_URL_BEDROCK_RUNTIME), never from the agent (docs/decisions.md §1).
func TestBedrockRoundTripThroughTheLocalStack(t *testing.T) {
	t.Parallel()
	fake := newFakeModel(t, bedrockWire)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := stackproc.Start(ctx, stackproc.Options{Env: []string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME=" + fake.URL}})
	if errors.Is(err, stackproc.ErrNoBinary) && os.Getenv("CI") != "true" {
		t.Skipf("local stack: %v", err)
	}
	if err != nil {
		t.Fatalf("start the local stack: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("end of the stack's log (%s):\n%s", p.LogFile, p.LogTail(60))
		}
		_ = p.Stop()
	})
	providerRoundTrip(t, &stack.Stack{Stack: p.Stack}, fake, bedrockWire, map[string]any{})
	if _, auth := fake.requests(); len(auth) == 0 || len(auth[0]) < 17 || auth[0][:17] != "AWS4-HMAC-SHA256 " {
		t.Errorf("Authorization = %q, want a SigV4 signature from the runtime's credentials", auth)
	}
}
