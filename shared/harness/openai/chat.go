package openai

import (
	"errors"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// ChatParams maps a provider-neutral request to a Chat Completions request (streamed, with
// stream_options.include_usage):
//   - Instructions → a leading system message;
//   - RoleUser → a user message (string content, or text + image_url parts when it has images);
//   - RoleAssistant → an assistant message with its text and tool_calls [{id, type: function, function: {name,
//     arguments}}];
//   - RoleTool → a tool message {tool_call_id, content} per result (content prefixed "Error: " on failure);
//   - Tools → tools [{type: function, function: {name, description, parameters}}];
//   - OutputSchema → response_format {type: json_schema, json_schema: {name: "output", schema, strict: false}};
//   - MaxOutputTokens → max_completion_tokens, Temperature → temperature, TopP → top_p (absent when unset).
//
// Errors: a tool schema or output schema that is not a JSON object.
func ChatParams(req harness.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if req.MaxOutputTokens > 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxOutputTokens))
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = param.NewOpt(*req.TopP)
	}
	if req.Instructions != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(req.Instructions))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case harness.RoleUser:
			if len(msg.Images) == 0 {
				p.Messages = append(p.Messages, oai.UserMessage(msg.Text))
				continue
			}
			var parts []oai.ChatCompletionContentPartUnionParam
			if msg.Text != "" {
				parts = append(parts, oai.TextContentPart(msg.Text))
			}
			for _, u := range msg.Images {
				parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: u}))
			}
			p.Messages = append(p.Messages, oai.UserMessage(parts))
		case harness.RoleAssistant:
			a := oai.ChatCompletionAssistantMessageParam{}
			if msg.Text != "" {
				a.Content.OfString = param.NewOpt(msg.Text)
			}
			for _, c := range msg.Calls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID, Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
				}})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case harness.RoleTool:
			for _, r := range msg.Results {
				p.Messages = append(p.Messages, oai.ToolMessage(resultOutput(r), r.CallID))
			}
		}
	}
	for _, t := range req.Tools {
		schema, err := decodeObject(t.Parameters, `{"type":"object","properties":{}}`)
		if err != nil {
			return p, fmt.Errorf("parameters of function %s: %w", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	if req.OutputSchema != nil {
		schema, err := decodeObject(req.OutputSchema, "")
		if err != nil {
			return p, fmt.Errorf("text.format.schema: %w", err)
		}
		p.ResponseFormat = oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "output", Schema: schema, Strict: param.NewOpt(false)},
		}}
	}
	return p, nil
}

// chatAccumulator follows one Chat Completions stream (choice 0).
type chatAccumulator struct {
	// byIndex maps a tool_calls[].index to its call; a delta with a new id at a used index (some compatible servers
	// number every call 0) starts a new call.
	byIndex    map[int64]*pendingCall
	calls      []*pendingCall
	stopReason string
	// limited is set when the request bounded the output: finish_reason length then ends the response with a
	// max_tokens stop part instead of failing it.
	limited bool
	// nextID mints a call id for servers that send none.
	nextID func() string
	usage  *session.Usage
}

func (a *chatAccumulator) take(ch oai.ChatCompletionChunk) ([]harness.Part, error) {
	if ch.JSON.Usage.Valid() && (ch.Usage.PromptTokens > 0 || ch.Usage.CompletionTokens > 0) {
		a.usage = &session.Usage{InputTokens: ch.Usage.PromptTokens, OutputTokens: ch.Usage.CompletionTokens}
	}
	var parts []harness.Part
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		if d := choice.Delta.Content; d != "" {
			parts = append(parts, harness.Part{Kind: harness.PartText, Text: d})
		}
		if d := choice.Delta.Refusal; d != "" {
			parts = append(parts, harness.Part{Kind: harness.PartText, Text: d})
		}
		for _, tc := range choice.Delta.ToolCalls {
			if a.byIndex == nil {
				a.byIndex = map[int64]*pendingCall{}
			}
			c := a.byIndex[tc.Index]
			if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
				c = &pendingCall{order: int64(len(a.calls))}
				a.byIndex[tc.Index] = c
				a.calls = append(a.calls, c)
			}
			c.id = firstNonEmpty(c.id, tc.ID)
			c.name = firstNonEmpty(c.name, tc.Function.Name)
			c.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.stopReason = choice.FinishReason
		}
	}
	return parts, nil
}

func (a *chatAccumulator) finish() ([]harness.Part, error) {
	cut := a.limited && a.stopReason == "length"
	switch {
	case cut:
		a.calls = nil // calls cut at the limit are incomplete: they are not calls
	case a.stopReason == "stop", a.stopReason == "tool_calls", a.stopReason == "function_call":
	case a.stopReason == "":
		return nil, errors.New("the response stream ended without a finish_reason")
	default:
		return nil, fmt.Errorf("the response stopped with finish_reason %s", a.stopReason)
	}
	for _, c := range a.calls {
		if c.id == "" && a.nextID != nil {
			c.id = a.nextID()
		}
	}
	parts, err := callParts(a.calls)
	if err != nil {
		return nil, err
	}
	if a.usage != nil {
		parts = append(parts, harness.Part{Kind: harness.PartUsage, Usage: a.usage})
	}
	if cut {
		parts = append(parts, harness.Part{Kind: harness.PartStop, Stop: session.StopMaxTokens})
	}
	return parts, nil
}

// callIDs mints call ids for a request's calls: "call_<turn id without its prefix>_<n>", n counting the calls of the
// conversation from 1, so they are unique within the Session (like the scripted model's).
func callIDs(req harness.Request) func() string {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Calls)
	}
	turn := req.TurnID
	if _, rest, ok := strings.Cut(turn, "_"); ok {
		turn = rest
	}
	return func() string {
		n++
		return fmt.Sprintf("call_%s_%d", turn, n)
	}
}
