package openai

import (
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

type responsesEvent = responses.ResponseStreamEventUnion

// ResponsesParams maps a provider-neutral request to a Responses API request (streamed; store false, since Baton
// keeps the history):
//   - Instructions → instructions;
//   - RoleUser → a user message (string content, or input_text + input_image parts when it has images);
//   - RoleAssistant → an assistant message with its text, then a function_call item {call_id, name, arguments}
//     per call;
//   - RoleTool → a function_call_output item {call_id, output} per result (output prefixed "Error: " on failure);
//   - Tools → function tools {name, description, parameters, strict: false};
//   - OutputSchema → text.format {type: json_schema, name: "output", schema, strict: false};
//   - MaxOutputTokens → max_output_tokens, Temperature → temperature, TopP → top_p (absent when unset).
//
// Errors: a tool schema or output schema that is not a JSON object.
func ResponsesParams(req harness.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(req.Model), Store: param.NewOpt(false)}
	if req.MaxOutputTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxOutputTokens))
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = param.NewOpt(*req.TopP)
	}
	if req.Instructions != "" {
		p.Instructions = param.NewOpt(req.Instructions)
	}
	var input responses.ResponseInputParam
	for _, msg := range req.Messages {
		switch msg.Role {
		case harness.RoleUser:
			if len(msg.Images) == 0 {
				input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleUser))
				continue
			}
			var content responses.ResponseInputMessageContentListParam
			if msg.Text != "" {
				content = append(content, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: msg.Text}})
			}
			for _, u := range msg.Images {
				content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					ImageURL: param.NewOpt(u), Detail: responses.ResponseInputImageDetailAuto,
				}})
			}
			input = append(input, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		case harness.RoleAssistant:
			if msg.Text != "" {
				input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range msg.Calls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(args, c.ID, c.Name))
			}
		case harness.RoleTool:
			for _, r := range msg.Results {
				item := responses.ResponseInputItemParamOfFunctionCallOutput(resultOutput(r))
				if len(r.Images) > 0 {
					// A tool's images (a browser screenshot) follow its text (docs/tools.md "Builtin tools").
					parts := responses.ResponseFunctionCallOutputItemListParam{{OfInputText: &responses.ResponseInputTextContentParam{Text: resultOutput(r)}}}
					for _, img := range r.Images {
						parts = append(parts, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
							ImageURL: param.NewOpt(img.DataURL()), Detail: responses.ResponseInputImageContentDetailAuto}})
					}
					item.OfFunctionCallOutput.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: parts}
				}
				item.OfFunctionCallOutput.CallID = param.NewOpt(r.CallID)
				input = append(input, item)
			}
		}
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		schema, err := decodeObject(t.Parameters, `{"type":"object","properties":{}}`)
		if err != nil {
			return p, fmt.Errorf("parameters of function %s: %w", t.Name, err)
		}
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	if req.OutputSchema != nil {
		schema, err := decodeObject(req.OutputSchema, "")
		if err != nil {
			return p, fmt.Errorf("text.format.schema: %w", err)
		}
		format := responses.ResponseFormatTextConfigParamOfJSONSchema("output", schema)
		format.OfJSONSchema.Strict = param.NewOpt(false)
		p.Text = responses.ResponseTextConfigParam{Format: format}
	}
	return p, nil
}

// responsesAccumulator follows one Responses stream.
type responsesAccumulator struct {
	// phases are the declared phases of message items, by item id.
	phases map[string]string
	// calls are the function_call items, by item id.
	calls     map[string]*pendingCall
	order     []*pendingCall
	usage     *session.Usage
	completed bool
	// limited is set when the request bounded the output; cut when the response then ended incomplete at that
	// limit (reason max_output_tokens): it ends with a max_tokens stop part instead of failing.
	limited, cut bool
}

func (a *responsesAccumulator) take(ev responsesEvent) ([]harness.Part, error) {
	if a.calls == nil {
		a.calls, a.phases = map[string]*pendingCall{}, map[string]string{}
	}
	switch ev.Type {
	case "response.output_item.added", "response.output_item.done":
		item := ev.Item
		switch item.Type {
		case "message":
			if p := string(item.Phase); p == session.PhaseCommentary || p == session.PhaseFinalAnswer {
				a.phases[item.ID] = p
			}
		case "function_call":
			c := a.calls[item.ID]
			if c == nil {
				c = &pendingCall{order: ev.OutputIndex}
				a.calls[item.ID] = c
				a.order = append(a.order, c)
			}
			c.id, c.name = firstNonEmpty(item.CallID, c.id), firstNonEmpty(item.Name, c.name)
			if ev.Type == "response.output_item.done" && item.Arguments.OfString != "" {
				args := item.Arguments.OfString
				c.final = &args
			}
		}
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			return []harness.Part{{Kind: harness.PartText, Text: ev.Delta, Phase: a.phases[ev.ItemID]}}, nil
		}
	case "response.function_call_arguments.delta":
		if c := a.calls[ev.ItemID]; c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "response.function_call_arguments.done":
		if c := a.calls[ev.ItemID]; c != nil {
			args := ev.Arguments
			c.final = &args
		}
	case "response.completed":
		a.completed = true
		if u := ev.Response.Usage; u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid() {
			a.usage = &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
		}
	case "response.incomplete":
		reason := ev.Response.IncompleteDetails.Reason
		if a.limited && reason == "max_output_tokens" {
			a.completed, a.cut = true, true
			if u := ev.Response.Usage; u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid() {
				a.usage = &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
			}
			return nil, nil
		}
		if reason == "" {
			reason = "unknown"
		}
		return nil, fmt.Errorf("the response is incomplete (%s)", reason)
	case "response.failed":
		e := ev.Response.Error
		return nil, fmt.Errorf("the response failed: %s", firstNonEmpty(joinCode(string(e.Code), e.Message), "no error detail"))
	case "error":
		return nil, fmt.Errorf("error event: %s", firstNonEmpty(joinCode(ev.Code, ev.Message), "no error detail"))
	}
	return nil, nil
}

func (a *responsesAccumulator) finish() ([]harness.Part, error) {
	if !a.completed {
		return nil, errors.New("the response stream ended before response.completed")
	}
	if a.cut {
		a.order = nil // calls cut at the limit are incomplete: they are not calls
	}
	parts, err := callParts(a.order)
	if err != nil {
		return nil, err
	}
	if a.usage != nil {
		parts = append(parts, harness.Part{Kind: harness.PartUsage, Usage: a.usage})
	}
	if a.cut {
		parts = append(parts, harness.Part{Kind: harness.PartStop, Stop: session.StopMaxTokens})
	}
	return parts, nil
}

// joinCode renders "code: message", leaving out empty halves.
func joinCode(code, msg string) string {
	switch {
	case code == "":
		return msg
	case msg == "":
		return code
	}
	return code + ": " + msg
}
