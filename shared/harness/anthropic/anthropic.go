package anthropic

import (
	"net/http"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/baton-run/baton/shared/netguard"
	"io"
	"net/url"
	"os"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// Protocol is the x_baton.model_provider.protocol this package serves (docs/decisions.md §1).
const Protocol = "anthropic_messages"

// MaxTokens is the max_tokens of every request (the Messages API requires one); a response that reaches it fails
// the step with stop_reason max_tokens.
const MaxTokens = 8192

// Options are the runtime's defaults. A Session's x_baton.model_provider.base_url and api_key win over them.
type Options struct {
	// APIKey is used when the Session configures none (ANTHROPIC_API_KEY); "" leaves the SDK's own credential chain.
	APIKey string
	// BaseURL is used when the Session configures none (ANTHROPIC_BASE_URL); "" means https://api.anthropic.com.
	BaseURL string
	// ClientOptions are appended to every client's options (tests: option.WithMaxRetries).
	ClientOptions []option.RequestOption
}

// OptionsFromEnv reads Options from the runtime's environment: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL.
func OptionsFromEnv() Options {
	return Options{APIKey: os.Getenv("ANTHROPIC_API_KEY"), BaseURL: os.Getenv("ANTHROPIC_BASE_URL")}
}

// Register adds the Anthropic Messages provider to p under Protocol with the runtime defaults opts.
func Register(p harness.Providers, opts Options) { p[Protocol] = Provider(opts) }

// Provider returns the harness.Provider of Protocol. The Model it builds talks to x_baton.model_provider.base_url
// (else opts.BaseURL, else Anthropic) with api_key (else opts.APIKey; the SDK sends it as a bearer token). Errors (never containing the
// key or the URL): a base_url that is not an absolute http or https URL; no model id
// (x_baton.model_provider.model or the Agent's model).
func Provider(opts Options) harness.Provider {
	return func(cfg agent.Config) (harness.Model, error) {
		ep := harness.ResolveEndpoint(cfg, opts.BaseURL, opts.APIKey)
		model, baseURL, key, callerEndpoint := ep.Model, ep.BaseURL, ep.APIKey, ep.CallerChosen
		if model == "" {
			return nil, errors.New("anthropic_messages needs a model id (x_baton.model_provider.model or the agent's model)")
		}
		var clientOpts []option.RequestOption
		if callerEndpoint {
			// Resolve credentials ourselves: the SDK's environment chain (ANTHROPIC_API_KEY, …) must not reach a
			// caller-chosen endpoint.
			clientOpts = append(clientOpts, option.WithoutEnvironmentDefaults(),
				option.WithHTTPClient(&http.Client{Transport: netguard.Transport()}))
		}
		if key != "" {
			clientOpts = append(clientOpts, option.WithAPIKey(key))
		}
		if baseURL != "" {
			u, err := url.Parse(baseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, errors.New("x_baton.model_provider.base_url must be an absolute http or https URL")
			}
			clientOpts = append(clientOpts, option.WithBaseURL(baseURL))
		}
		clientOpts = append(clientOpts, opts.ClientOptions...)
		return &Model{client: sdk.NewClient(clientOpts...), key: key}, nil
	}
}

// Model is an Anthropic Messages model of one Session. It is safe for concurrent use.
type Model struct {
	client sdk.Client
	// key is kept only to scrub it from error causes.
	key string
}

var _ harness.Model = (*Model)(nil)

// Stream sends req to the Messages API (streamed, max_tokens MaxTokens; mapping in Params) and returns its parts:
// text_delta texts, each tool_use block as one complete call when its block stops (input_json_delta accumulated;
// "" → {}), then usage (input = input_tokens + cache_creation_input_tokens + cache_read_input_tokens from
// message_start, output = the last message_delta's output_tokens). Errors: *harness.ModelError for an API error
// (HTTP status, error type and message in the cause, API key scrubbed), an error event, a stop_reason other than
// end_turn, tool_use or stop_sequence (max_tokens — unless the request set MaxOutputTokens: the response then ends
// with a harness.PartStop session.StopMaxTokens after its text and usage, a cut tool_use block dropped —, refusal,
// …), malformed tool input, or a stream that ends before message_stop; ctx's error when ctx ends.
func (m *Model) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	params, err := Params(req)
	if err != nil {
		return nil, &harness.ModelError{Cause: Protocol + ": " + err.Error()}
	}
	return &stream{ctx: ctx, m: m, sdk: m.client.Messages.NewStreaming(ctx, params), blocks: map[int64]*toolUse{}, limited: req.MaxOutputTokens > 0}, nil
}

// Params maps a provider-neutral request to Messages API parameters:
//   - Instructions → system [{type: text, text}];
//   - RoleUser → a user message with a text block and an image block per image (data: URLs as base64 sources,
//     other URLs as url sources);
//   - RoleAssistant → an assistant message with its text block and a tool_use block {id, name, input} per call;
//   - RoleTool → a user message with a tool_result block {tool_use_id, content [text], is_error} per result;
//   - consecutive messages of the same role are merged into one;
//   - Tools → tools [{name, description, input_schema}];
//   - MaxOutputTokens → max_tokens when it is below MaxTokens; Temperature → temperature; TopP → top_p (absent
//     when unset).
//
// Errors: call arguments or a tool schema that are not valid JSON (objects).
func Params(req harness.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(req.Model), MaxTokens: MaxTokens}
	if req.MaxOutputTokens > 0 && req.MaxOutputTokens < MaxTokens {
		p.MaxTokens = int64(req.MaxOutputTokens)
	}
	// This SDK's MessageNewParams has no sampling members; the Messages API takes them as top-level fields.
	extra := map[string]any{}
	if req.Temperature != nil {
		extra["temperature"] = *req.Temperature
	}
	if req.TopP != nil {
		extra["top_p"] = *req.TopP
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	if req.Instructions != "" {
		p.System = []sdk.TextBlockParam{{Text: req.Instructions}}
	}
	for _, msg := range req.Messages {
		user := true
		var blocks []sdk.ContentBlockParamUnion
		switch msg.Role {
		case harness.RoleUser:
			if msg.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Text))
			}
			for _, u := range msg.Images {
				blocks = append(blocks, imageBlock(u))
			}
		case harness.RoleAssistant:
			user = false
			if msg.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Text))
			}
			for _, c := range msg.Calls {
				args := bytes.TrimSpace(c.Arguments)
				if len(args) == 0 {
					args = []byte("{}")
				}
				if !json.Valid(args) {
					return p, fmt.Errorf("arguments of call %s: not valid JSON", c.ID)
				}
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, json.RawMessage(args), c.Name))
			}
		case harness.RoleTool:
			for _, r := range msg.Results {
				tr := sdk.ToolResultBlockParam{ToolUseID: r.CallID}
				if r.Output != "" {
					tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: r.Output}}}
				}
				for _, img := range r.Images {
					// A tool's images (a browser screenshot) follow its text (docs/tools.md "Builtin tools").
					tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageBlock(img.DataURL()).OfImage})
				}
				if r.IsError {
					tr.IsError = sdk.Bool(true)
				}
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: &tr})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(p.Messages); n > 0 && (p.Messages[n-1].OfUser != nil) == user {
			if user {
				p.Messages[n-1].OfUser.Content = append(p.Messages[n-1].OfUser.Content, blocks...)
			} else {
				p.Messages[n-1].OfAssistant.Content = append(p.Messages[n-1].OfAssistant.Content, blocks...)
			}
			continue
		}
		if user {
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("parameters of function %s: %w", t.Name, err)
		}
		tool := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	return p, nil
}

// inputSchema splits a JSON Schema object into the SDK's input_schema: properties and required in their fields,
// every other member (except type, always "object") as extra fields.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return s, errors.New("not a JSON object")
	}
	if props, ok := m["properties"]; ok {
		s.Properties = props
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "properties", "required", "type":
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	return s, nil
}

// imageBlock maps an input_image URL: a base64 data: URL to a base64 source, anything else to a url source.
func imageBlock(u string) sdk.ContentBlockParamUnion {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return sdk.NewImageBlockBase64(strings.TrimSuffix(meta, ";base64"), data)
		}
	}
	return sdk.NewImageBlock(sdk.URLImageSourceParam{URL: u})
}

// toolUse is a tool_use content block being received.
type toolUse struct {
	id, name string
	input    strings.Builder
}

// stream converts Messages stream events into harness parts.
type stream struct {
	ctx    context.Context
	m      *Model
	sdk    *ssestream.Stream[sdk.MessageStreamEventUnion]
	queue  []harness.Part
	blocks map[int64]*toolUse
	stop   string
	input  int64
	output int64
	usage  bool
	ended  bool
	done   bool
	err    error
	// limited is set when the request bounded the output (Request.MaxOutputTokens): stop_reason max_tokens then
	// ends the response with a max_tokens stop part instead of failing it.
	limited bool
}

func (s *stream) Next() (harness.Part, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return harness.Part{}, s.err
		}
		if s.done {
			return harness.Part{}, io.EOF
		}
		if !s.sdk.Next() {
			if err := s.sdk.Err(); err != nil {
				s.err = s.m.modelError(s.ctx, err)
				continue
			}
			s.end()
			continue
		}
		s.take(s.sdk.Current())
	}
	p := s.queue[0]
	s.queue = s.queue[1:]
	return p, nil
}

func (s *stream) Close() error {
	_ = s.sdk.Close()
	return nil
}

func (s *stream) take(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		s.input = u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
		s.output, s.usage = u.OutputTokens, true
	case "content_block_start":
		if ev.ContentBlock.Type == "tool_use" {
			s.blocks[ev.Index] = &toolUse{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				s.queue = append(s.queue, harness.Part{Kind: harness.PartText, Text: ev.Delta.Text})
			}
		case "input_json_delta":
			if b := s.blocks[ev.Index]; b != nil {
				b.input.WriteString(ev.Delta.PartialJSON)
			}
		}
	case "content_block_stop":
		b := s.blocks[ev.Index]
		if b == nil {
			return
		}
		delete(s.blocks, ev.Index)
		args := json.RawMessage(strings.TrimSpace(b.input.String()))
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			s.err = &harness.ModelError{Cause: fmt.Sprintf("%s: the model returned malformed input for tool %q", Protocol, b.name)}
			return
		}
		s.queue = append(s.queue, harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: b.id, Name: b.name, Arguments: args}})
	case "message_delta":
		if ev.Delta.StopReason != "" {
			s.stop = string(ev.Delta.StopReason)
		}
		if ev.Usage.OutputTokens > 0 {
			s.output, s.usage = ev.Usage.OutputTokens, true
		}
		if in := ev.Usage.InputTokens + ev.Usage.CacheCreationInputTokens + ev.Usage.CacheReadInputTokens; in > s.input {
			s.input = in
		}
	case "message_stop":
		s.ended = true
	}
}

// end handles the end of the event stream: an unusable stop reason, or the usage and EOF.
func (s *stream) end() {
	switch {
	case !s.ended:
		s.err = &harness.ModelError{Cause: Protocol + ": the response stream ended before message_stop"}
		return
	case s.limited && s.stop == "max_tokens":
		clear(s.blocks) // a tool_use block cut at the limit is incomplete: it is not a call
	case s.stop != "end_turn" && s.stop != "tool_use" && s.stop != "stop_sequence":
		s.err = &harness.ModelError{Cause: fmt.Sprintf("%s: the response stopped with stop_reason %s", Protocol, s.stop)}
		return
	case len(s.blocks) > 0:
		s.err = &harness.ModelError{Cause: Protocol + ": the response ended inside a tool_use block"}
		return
	}
	if s.usage {
		s.queue = append(s.queue, harness.Part{Kind: harness.PartUsage, Usage: &session.Usage{InputTokens: s.input, OutputTokens: s.output}})
	}
	if s.stop == "max_tokens" {
		s.queue = append(s.queue, harness.Part{Kind: harness.PartStop, Stop: session.StopMaxTokens})
	}
	s.done = true
}

// modelError maps an SDK failure: ctx's error when ctx ended; otherwise a *harness.ModelError whose cause has the
// HTTP status (for a refused request), the error type and message, with the key scrubbed. Err holds an error with
// the same safe text (the SDK error keeps the request, x-api-key included, so it is not kept).
func (m *Model) modelError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var cause string
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode == 0 || apiErr.StatusCode == http.StatusOK {
			cause = Protocol + ": error event"
		} else {
			cause = fmt.Sprintf("%s: HTTP %d", Protocol, apiErr.StatusCode)
		}
		if t := string(apiErr.Type()); t != "" {
			cause += " " + t
		}
		if apiErr.Message != "" {
			cause += ": " + apiErr.Message
		}
	} else {
		cause = Protocol + ": the request to the model endpoint failed"
	}
	if len(m.key) >= 6 {
		cause = strings.ReplaceAll(cause, m.key, "[redacted]")
	}
	return &harness.ModelError{Cause: cause, Err: errors.New(cause)}
}
