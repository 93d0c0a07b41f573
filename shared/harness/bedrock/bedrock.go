package bedrock

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithy "github.com/aws/smithy-go"
	smithydocument "github.com/aws/smithy-go/document"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// Protocol is the x_baton.model_provider.protocol this package serves (docs/decisions.md §1).
const Protocol = "bedrock_converse"

// EmptyToolResult is the text sent as a toolResult's content when the caller's result has no output: Bedrock
// rejects blank text blocks.
const EmptyToolResult = "(no output)"

// Converser is the part of the Bedrock Runtime API the provider uses; *bedrockruntime.Client implements it.
type Converser interface {
	ConverseStream(ctx context.Context, in *bedrockruntime.ConverseStreamInput, optFns ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseStreamOutput, error)
}

var _ Converser = (*bedrockruntime.Client)(nil)

// Register adds the Bedrock Converse provider to p under Protocol. awsCfg is the runtime's deployment AWS
// configuration (region, credentials, endpoint; AWS_ENDPOINT_URL_BEDROCK_RUNTIME is honoured when awsCfg came from
// config.LoadDefaultConfig); optFns adjust the client (tests set BaseEndpoint or retries).
func Register(p harness.Providers, awsCfg aws.Config, optFns ...func(*bedrockruntime.Options)) {
	p[Protocol] = Provider(bedrockruntime.NewFromConfig(awsCfg, optFns...))
}

// Provider returns the harness.Provider of Protocol on client. The provider rejects (with an error naming the
// member, never its value) a configuration that sets x_baton.model_provider.base_url or api_key — the Bedrock
// endpoint and credentials come only from deployment configuration (docs/decisions.md §1) — or that has no model id
// (x_baton.model_provider.model, else the Agent's model).
func Provider(client Converser) harness.Provider {
	return func(cfg agent.Config) (harness.Model, error) {
		model := cfg.Model
		if mp := modelProvider(cfg); mp != nil {
			if mp.BaseURL != "" {
				return nil, errors.New("x_baton.model_provider.base_url is not accepted for bedrock_converse: the Bedrock endpoint comes from deployment configuration")
			}
			if mp.APIKey != "" {
				return nil, errors.New("x_baton.model_provider.api_key is not accepted for bedrock_converse: Bedrock credentials come from deployment configuration")
			}
			if mp.Model != "" {
				model = mp.Model
			}
		}
		if model == "" {
			return nil, errors.New("bedrock_converse needs a model id (x_baton.model_provider.model or the agent's model)")
		}
		return &Model{client: client}, nil
	}
}

func modelProvider(cfg agent.Config) *agent.ModelProvider {
	if cfg.XBaton == nil {
		return nil
	}
	return cfg.XBaton.ModelProvider
}

// Model is the Bedrock Converse model of one Session. It is safe for concurrent use.
type Model struct {
	client Converser
}

var _ harness.Model = (*Model)(nil)

// Stream sends req with ConverseStream (model id req.Model) and returns its parts: text deltas (without a phase),
// each toolUse block as one complete call once its block stops (input JSON accumulated from the deltas; "" → {}),
// then the metadata usage. Errors: *harness.ModelError for a refused request (ValidationException,
// ThrottlingException, AccessDeniedException, …; the cause carries the AWS error code and message), for an
// exception event mid-stream, for a stop reason that means the response is unusable (max_tokens unless the request
// set MaxOutputTokens — then a harness.PartStop session.StopMaxTokens ends the parts —,
// guardrail_intervened, content_filtered, malformed_*, model_context_window_exceeded), for malformed tool input
// and for a stream that ends without messageStop; ctx's error when ctx ends.
func (m *Model) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	in, err := Input(req)
	if err != nil {
		return nil, &harness.ModelError{Cause: "bedrock_converse: " + err.Error(), Err: err}
	}
	out, err := m.client.ConverseStream(ctx, in)
	if err != nil {
		return nil, modelError(ctx, err)
	}
	return &stream{ctx: ctx, es: out.GetStream(), blocks: map[int32]*toolUse{}, limited: req.MaxOutputTokens > 0}, nil
}

// Input maps a provider-neutral request to ConverseStreamInput:
//   - Instructions → system [{text}];
//   - RoleUser → a user message with a text block and an image block per data: URL image (png, jpeg, gif, webp;
//     other image URLs are an error: Converse takes image bytes, not URLs);
//   - RoleAssistant → an assistant message with its text block and a toolUse block per call (input as JSON);
//   - RoleTool → a user message with a toolResult block per result (status success, or error when IsError;
//     content text, EmptyToolResult when empty);
//   - consecutive messages of the same role are merged (Converse requires alternating roles);
//   - Tools → toolConfig.tools[].toolSpec {name, description, inputSchema.json};
//   - MaxOutputTokens, Temperature, TopP → inferenceConfig {maxTokens, temperature, topP} (absent when unset).
//
// Errors: an image URL Converse cannot take, or call arguments or a tool schema that are not valid JSON.
func Input(req harness.Request) (*bedrockruntime.ConverseStreamInput, error) {
	in := &bedrockruntime.ConverseStreamInput{ModelId: aws.String(req.Model)}
	if req.MaxOutputTokens > 0 || req.Temperature != nil || req.TopP != nil {
		ic := &types.InferenceConfiguration{}
		if req.MaxOutputTokens > 0 {
			ic.MaxTokens = aws.Int32(int32(min(req.MaxOutputTokens, math.MaxInt32)))
		}
		if req.Temperature != nil {
			ic.Temperature = aws.Float32(float32(*req.Temperature))
		}
		if req.TopP != nil {
			ic.TopP = aws.Float32(float32(*req.TopP))
		}
		in.InferenceConfig = ic
	}
	if req.Instructions != "" {
		in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: req.Instructions}}
	}
	for _, msg := range req.Messages {
		role := types.ConversationRoleUser
		var blocks []types.ContentBlock
		switch msg.Role {
		case harness.RoleUser:
			if msg.Text != "" {
				blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Text})
			}
			for _, u := range msg.Images {
				img, err := imageBlock(u)
				if err != nil {
					return nil, err
				}
				blocks = append(blocks, &types.ContentBlockMemberImage{Value: img})
			}
		case harness.RoleAssistant:
			role = types.ConversationRoleAssistant
			if msg.Text != "" {
				blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Text})
			}
			for _, c := range msg.Calls {
				doc, err := jsonDocument(c.Arguments, "{}")
				if err != nil {
					return nil, fmt.Errorf("arguments of call %s: %w", c.ID, err)
				}
				blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
					ToolUseId: aws.String(c.ID), Name: aws.String(c.Name), Input: doc,
				}})
			}
		case harness.RoleTool:
			for _, r := range msg.Results {
				status := types.ToolResultStatusSuccess
				if r.IsError {
					status = types.ToolResultStatusError
				}
				text := r.Output
				if text == "" {
					text = EmptyToolResult
				}
				content := []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: text}}
				for _, img := range r.Images {
					// A tool's images (a browser screenshot) follow its text (docs/tools.md "Builtin tools").
					block, err := imageBlock(img.DataURL())
					if err != nil {
						continue // a format Converse does not take is left out
					}
					content = append(content, &types.ToolResultContentBlockMemberImage{Value: block})
				}
				blocks = append(blocks, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
					ToolUseId: aws.String(r.CallID),
					Status:    status,
					Content:   content,
				}})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == role {
			in.Messages[n-1].Content = append(in.Messages[n-1].Content, blocks...)
			continue
		}
		in.Messages = append(in.Messages, types.Message{Role: role, Content: blocks})
	}
	if len(req.Tools) > 0 {
		tc := &types.ToolConfiguration{}
		for _, t := range req.Tools {
			schema, err := jsonDocument(t.Parameters, `{"type":"object","properties":{}}`)
			if err != nil {
				return nil, fmt.Errorf("parameters of function %s: %w", t.Name, err)
			}
			spec := types.ToolSpecification{Name: aws.String(t.Name), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema}}
			if t.Description != "" {
				spec.Description = aws.String(t.Description)
			}
			tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
		}
		in.ToolConfig = tc
	}
	return in, nil
}

// jsonDocument turns JSON text (def when empty) into a Smithy document, keeping numbers exact.
func jsonDocument(raw json.RawMessage, def string) (document.Interface, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(def)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errors.New("not valid JSON")
	}
	return document.NewLazyDocument(exactNumbers(v)), nil
}

// exactNumbers replaces json.Number values with Smithy document numbers so they are sent verbatim.
func exactNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		return smithydocument.Number(t)
	case map[string]any:
		for k, e := range t {
			t[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = exactNumbers(e)
		}
	}
	return v
}

// imageBlock decodes a data: URL image into a Converse image block.
func imageBlock(u string) (types.ImageBlock, error) {
	if !strings.HasPrefix(u, "data:") {
		return types.ImageBlock{}, errors.New("input_image: bedrock_converse accepts only data: image URLs")
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return types.ImageBlock{}, errors.New("input_image: malformed data: URL (base64 expected)")
	}
	formats := map[string]types.ImageFormat{"image/png": types.ImageFormatPng, "image/jpeg": types.ImageFormatJpeg, "image/gif": types.ImageFormatGif, "image/webp": types.ImageFormatWebp}
	format, ok := formats[strings.TrimSuffix(meta, ";base64")]
	if !ok {
		return types.ImageBlock{}, errors.New("input_image: bedrock_converse accepts png, jpeg, gif and webp images")
	}
	if unescaped, err := url.PathUnescape(data); err == nil {
		data = unescaped
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return types.ImageBlock{}, errors.New("input_image: data: URL is not valid base64")
	}
	return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberBytes{Value: b}}, nil
}

// toolUse is a toolUse content block being received.
type toolUse struct {
	id, name string
	input    strings.Builder
}

// stream converts ConverseStream events into harness parts.
type stream struct {
	ctx    context.Context
	es     *bedrockruntime.ConverseStreamEventStream
	queue  []harness.Part
	blocks map[int32]*toolUse
	stop   types.StopReason
	// limited is set when the request bounded the output (Request.MaxOutputTokens): stopReason max_tokens then ends
	// the response with a harness.PartStop instead of failing it.
	limited bool
	usage   *session.Usage
	done    bool
	err     error
}

func (s *stream) Next() (harness.Part, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return harness.Part{}, s.err
		}
		if s.done {
			return harness.Part{}, io.EOF
		}
		select {
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
		case ev, ok := <-s.es.Events():
			if !ok {
				s.end()
				continue
			}
			s.take(ev)
		}
	}
	p := s.queue[0]
	s.queue = s.queue[1:]
	return p, nil
}

func (s *stream) Close() error {
	_ = s.es.Close()
	return nil
}

func (s *stream) take(ev types.ConverseStreamOutput) {
	switch e := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
			s.blocks[aws.ToInt32(e.Value.ContentBlockIndex)] = &toolUse{id: aws.ToString(tu.Value.ToolUseId), name: aws.ToString(tu.Value.Name)}
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		switch d := e.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			if d.Value != "" {
				s.queue = append(s.queue, harness.Part{Kind: harness.PartText, Text: d.Value})
			}
		case *types.ContentBlockDeltaMemberToolUse:
			if b := s.blocks[aws.ToInt32(e.Value.ContentBlockIndex)]; b != nil {
				b.input.WriteString(aws.ToString(d.Value.Input))
			}
		}
	case *types.ConverseStreamOutputMemberContentBlockStop:
		i := aws.ToInt32(e.Value.ContentBlockIndex)
		b := s.blocks[i]
		if b == nil {
			return
		}
		delete(s.blocks, i)
		args := json.RawMessage(strings.TrimSpace(b.input.String()))
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			s.err = &harness.ModelError{Cause: fmt.Sprintf("bedrock_converse: the model returned malformed input for tool %q", b.name)}
			return
		}
		s.queue = append(s.queue, harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: b.id, Name: b.name, Arguments: args}})
	case *types.ConverseStreamOutputMemberMessageStop:
		s.stop = e.Value.StopReason
	case *types.ConverseStreamOutputMemberMetadata:
		if u := e.Value.Usage; u != nil {
			s.usage = &session.Usage{InputTokens: int64(aws.ToInt32(u.InputTokens)), OutputTokens: int64(aws.ToInt32(u.OutputTokens))}
		}
	}
}

// end handles the end of the event stream: a stream error, an unusable stop reason, or the usage and EOF.
func (s *stream) end() {
	if err := s.es.Err(); err != nil {
		s.err = modelError(s.ctx, err)
		return
	}
	switch s.stop {
	case "":
		s.err = &harness.ModelError{Cause: "bedrock_converse: the response stream ended before messageStop"}
		return
	case types.StopReasonEndTurn, types.StopReasonToolUse, types.StopReasonStopSequence:
	case types.StopReasonMaxTokens:
		if !s.limited {
			s.err = &harness.ModelError{Cause: fmt.Sprintf("bedrock_converse: the response stopped with stopReason %s", s.stop)}
			return
		}
		clear(s.blocks) // a toolUse block cut at the limit is incomplete: it is not a call
	default:
		s.err = &harness.ModelError{Cause: fmt.Sprintf("bedrock_converse: the response stopped with stopReason %s", s.stop)}
		return
	}
	if len(s.blocks) > 0 {
		s.err = &harness.ModelError{Cause: "bedrock_converse: the response ended inside a toolUse block"}
		return
	}
	if s.usage != nil {
		s.queue = append(s.queue, harness.Part{Kind: harness.PartUsage, Usage: s.usage})
	}
	if s.stop == types.StopReasonMaxTokens {
		s.queue = append(s.queue, harness.Part{Kind: harness.PartStop, Stop: session.StopMaxTokens})
	}
	s.done = true
}

// modelError maps a ConverseStream failure: ctx's error when ctx ended, otherwise a *harness.ModelError whose cause
// names the AWS error code and message (they never carry credentials) or, for transport failures, only that the
// request failed.
func modelError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return &harness.ModelError{Cause: fmt.Sprintf("bedrock_converse: %s: %s", api.ErrorCode(), api.ErrorMessage()), Err: err}
	}
	return &harness.ModelError{Cause: "bedrock_converse: the request to Bedrock failed", Err: err}
}
