package openai_test

import (
	"testing"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/harness/openai"
)

func TestChatSendsTheLimitsAndSamplingParameters(t *testing.T) {
	t.Parallel()
	run(t, openai.ProtocolChat, "/v1/chat/completions", []providerCase{
		{
			name: "the parameters are on the wire and a response cut at the limit ends with a max_tokens stop",
			req:  modeltest.Limited(userRequest("Hello")),
			events: []sse{roleChunk, content("Trunc"), toolCallStart(0, "call_1", "get_weather"), toolArgs(0, `{"ci`),
				finish("length"), usageChunk, done},
			want:     []harness.Part{text("Trunc", ""), usage(31, 7), modeltest.StopMaxTokens},
			wantBody: `{"max_completion_tokens": 9, "temperature": 0.25, "top_p": 0.5}`,
		},
		{
			name:      "without an output limit finish_reason length stays a model error",
			req:       userRequest("Hello"),
			events:    []sse{roleChunk, content("Trunc"), finish("length"), usageChunk, done},
			want:      []harness.Part{text("Trunc", "")},
			wantCause: "openai_chat: the response stopped with finish_reason length",
			wantBody:  `{"max_completion_tokens": null, "temperature": null, "top_p": null}`,
		},
	})
}

func TestResponsesSendsTheLimitsAndSamplingParameters(t *testing.T) {
	t.Parallel()
	incomplete := rev("response.incomplete", `"response":{"id":"resp_1","object":"response","status":"incomplete","output":[],"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":31,"input_tokens_details":{"cached_tokens":0},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":40}}`)
	run(t, openai.ProtocolResponses, "/v1/responses", []providerCase{
		{
			name:     "the parameters are on the wire and a response cut at the limit ends with a max_tokens stop",
			req:      modeltest.Limited(userRequest("Hello")),
			events:   []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Trunc"), incomplete},
			want:     []harness.Part{text("Trunc", ""), usage(31, 9), modeltest.StopMaxTokens},
			wantBody: `{"max_output_tokens": 9, "temperature": 0.25, "top_p": 0.5}`,
		},
		{
			name:      "without an output limit an incomplete response stays a model error",
			req:       userRequest("Hello"),
			events:    []sse{created, msgAdded(0, "msg_1", ""), textDelta(0, "msg_1", "Trunc"), incomplete},
			want:      []harness.Part{text("Trunc", "")},
			wantCause: "openai_responses: the response is incomplete (max_output_tokens)",
			wantBody:  `{"max_output_tokens": null, "temperature": null, "top_p": null}`,
		},
	})
}
