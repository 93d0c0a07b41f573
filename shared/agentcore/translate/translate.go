package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-run/baton/shared/agent"
)

// Config is the executable part of an AgentCore harness configuration, in its restJson1 JSON shape
// (docs/agentcore.md "InvokeHarness: configuration"): the members a harness version saves and an InvokeHarness
// request may override. A nil pointer member is absent. Tools and AllowedTools distinguish absent (nil) from an
// empty list (a non-nil pointer to an empty slice).
type Config struct {
	Model          *Model        `json:"model,omitempty"`
	SystemPrompt   []SystemBlock `json:"systemPrompt,omitempty"`
	Tools          *[]Tool       `json:"tools,omitempty"`
	AllowedTools   *[]string     `json:"allowedTools,omitempty"`
	MaxIterations  *int          `json:"maxIterations,omitempty"`
	MaxTokens      *int          `json:"maxTokens,omitempty"`
	TimeoutSeconds *int          `json:"timeoutSeconds,omitempty"`
}

// SystemBlock is one `systemPrompt` entry: the union `{text}`.
type SystemBlock struct {
	Text string `json:"text"`
}

// Model is the `HarnessModelConfiguration` union: exactly one member is set.
type Model struct {
	Bedrock *ModelSettings `json:"bedrockModelConfig,omitempty"`
	OpenAI  *ModelSettings `json:"openAiModelConfig,omitempty"`
	Gemini  *ModelSettings `json:"geminiModelConfig,omitempty"`
	LiteLLM *ModelSettings `json:"liteLlmModelConfig,omitempty"`
}

// ModelSettings are the members of every model configuration variant (unused members are absent on the wire):
// modelId, apiKeyArn (token-vault ARN of an API key credential provider), apiBase (an OpenAI-compatible base URL),
// apiFormat (`converse_stream` | `responses` | `chat_completions`), maxTokens (output tokens of one model call),
// temperature, topP, topK and additionalParams (a JSON document).
type ModelSettings struct {
	ModelID          string          `json:"modelId"`
	APIKeyARN        string          `json:"apiKeyArn,omitempty"`
	APIBase          string          `json:"apiBase,omitempty"`
	APIFormat        string          `json:"apiFormat,omitempty"`
	MaxTokens        *int            `json:"maxTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	TopK             *int            `json:"topK,omitempty"`
	AdditionalParams json.RawMessage `json:"additionalParams,omitempty"`
}

// Tool is one `HarnessTool`: `{type, name, config}` where config's single key matches type.
type Tool struct {
	Type   string      `json:"type"`
	Name   string      `json:"name,omitempty"`
	Config *ToolConfig `json:"config,omitempty"`
}

// ToolConfig is the `HarnessToolConfiguration` union.
type ToolConfig struct {
	RemoteMCP       *RemoteMCP       `json:"remoteMcp,omitempty"`
	Gateway         *Gateway         `json:"agentCoreGateway,omitempty"`
	Browser         *Browser         `json:"agentCoreBrowser,omitempty"`
	CodeInterpreter *CodeInterpreter `json:"agentCoreCodeInterpreter,omitempty"`
	InlineFunction  *InlineFunction  `json:"inlineFunction,omitempty"`
}

// RemoteMCP is `remoteMcp{url, headers}`; a header value may be a token-vault reference `${arn:…}`.
type RemoteMCP struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Gateway is `agentCoreGateway{gatewayArn, outboundAuth}`; outboundAuth is kept as sent.
type Gateway struct {
	GatewayARN   string          `json:"gatewayArn"`
	OutboundAuth json.RawMessage `json:"outboundAuth,omitempty"`
}

// Browser is `agentCoreBrowser{browserArn}`.
type Browser struct {
	BrowserARN string `json:"browserArn,omitempty"`
}

// CodeInterpreter is `agentCoreCodeInterpreter{codeInterpreterArn}`.
type CodeInterpreter struct {
	CodeInterpreterARN string `json:"codeInterpreterArn,omitempty"`
}

// InlineFunction is `inlineFunction{description, inputSchema}`; inputSchema is a JSON Schema document.
type InlineFunction struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tool types of the AgentCore wire (`HarnessTool.type`).
const (
	ToolInlineFunction  = "inline_function"
	ToolRemoteMCP       = "remote_mcp"
	ToolGateway         = "agentcore_gateway"
	ToolBrowser         = "agentcore_browser"
	ToolCodeInterpreter = "agentcore_code_interpreter"
)

// ScriptedModelID is the modelId that selects Baton's deterministic scripted model in any model configuration
// variant (docs/agentcore.md "The scripted model"); its script is `additionalParams.script` (docs/scripted-model.md).
const ScriptedModelID = "baton.scripted"

// GeminiBaseURL is Gemini's OpenAI-compatible endpoint, which geminiModelConfig runs on.
const GeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

// Merge returns base with every member that override sets replacing base's whole (an InvokeHarness override
// changes nothing saved: base is not modified). `tools` replaces the harness tools for that call.
func Merge(base, override Config) Config {
	out := base
	if override.Model != nil {
		out.Model = override.Model
	}
	if override.SystemPrompt != nil {
		out.SystemPrompt = override.SystemPrompt
	}
	if override.Tools != nil {
		out.Tools = override.Tools
	}
	if override.AllowedTools != nil {
		out.AllowedTools = override.AllowedTools
	}
	if override.MaxIterations != nil {
		out.MaxIterations = override.MaxIterations
	}
	if override.MaxTokens != nil {
		out.MaxTokens = override.MaxTokens
	}
	if override.TimeoutSeconds != nil {
		out.TimeoutSeconds = override.TimeoutSeconds
	}
	return out
}

// Error is a configuration the translation cannot run; Field is the wire path of the member (e.g.
// `model.bedrockModelConfig.apiFormat`), Message says why. Callers answer ValidationException with a fieldList.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Field + ": " + e.Message }

// ToAgent translates an effective configuration (after Merge) into the engine's agent.Config, or returns an *Error:
//   - model → Model and x_baton.model_provider: bedrockModelConfig → bedrock_converse (apiFormat converse_stream
//     only); openAiModelConfig → openai_chat (apiFormat chat_completions, the default) or openai_responses, apiBase
//     as base_url; liteLlmModelConfig → openai_chat on apiBase (required); geminiModelConfig → openai_chat on
//     GeminiBaseURL; modelId ScriptedModelID → scripted with additionalParams.script. An apiKeyArn becomes the
//     provider's api_key as the reference `${<apiKeyArn>}`, resolved by the runtime at invocation time and never
//     stored resolved. A missing model is an error.
//   - systemPrompt → instructions (texts joined by a blank line; none = no instructions).
//   - tools → declarations in order: inline_function → `{type:"function", name, description, parameters}`;
//     remote_mcp → `{type:"mcp", server_label:name, transport:{type:"http", server_url}, allowed_tools:null,
//     required:false, headers}`; agentcore_gateway/browser/code_interpreter → `{type:<same>, name, …arn}` carried
//     for the harness-run tools (not offered to the model until they execute).
//   - allowedTools, maxIterations, maxTokens (the smaller of the top-level and the model's), timeoutSeconds →
//     Controls, with BuiltinTools set (AgentCore offers its default tools unless allowedTools restricts them).
func ToAgent(c Config) (agent.Config, error) {
	var cfg agent.Config
	if c.Model == nil {
		return cfg, &Error{Field: "model", Message: "a model configuration is required"}
	}
	provider, settings, err := modelProvider(*c.Model)
	if err != nil {
		return cfg, err
	}
	cfg.Model = settings.ModelID
	cfg.XBaton = &agent.Extension{ModelProvider: provider}
	if provider.Protocol == "scripted" {
		cfg.XBaton.ModelProvider = &agent.ModelProvider{Protocol: "scripted"}
		if script, err := scriptOf(settings.AdditionalParams); err != nil {
			return agent.Config{}, err
		} else if script != nil {
			cfg.XBaton.Script = script
		}
	}
	var texts []string
	for _, b := range c.SystemPrompt {
		if b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	if len(texts) > 0 {
		s := strings.Join(texts, "\n\n")
		cfg.Instructions = &s
	}
	cfg.Tools = []json.RawMessage{}
	if c.Tools != nil {
		for i, t := range *c.Tools {
			raw, err := tool(i, t)
			if err != nil {
				return agent.Config{}, err
			}
			cfg.Tools = append(cfg.Tools, raw)
		}
	}
	ctl := &agent.Controls{BuiltinTools: true}
	if c.AllowedTools != nil {
		ctl.AllowedTools = append([]string{}, *c.AllowedTools...)
	}
	if c.MaxIterations != nil {
		ctl.MaxIterations = *c.MaxIterations
	}
	if c.TimeoutSeconds != nil {
		ctl.TimeoutSeconds = *c.TimeoutSeconds
	}
	if c.MaxTokens != nil {
		ctl.MaxTokens = *c.MaxTokens
	}
	if settings.MaxTokens != nil && (ctl.MaxTokens == 0 || *settings.MaxTokens < ctl.MaxTokens) {
		ctl.MaxTokens = *settings.MaxTokens
	}
	cfg.Controls = ctl
	return cfg, nil
}

func modelProvider(m Model) (*agent.ModelProvider, ModelSettings, error) {
	type variant struct {
		name string
		s    *ModelSettings
	}
	var set []variant
	for _, v := range []variant{{"bedrockModelConfig", m.Bedrock}, {"openAiModelConfig", m.OpenAI}, {"geminiModelConfig", m.Gemini}, {"liteLlmModelConfig", m.LiteLLM}} {
		if v.s != nil {
			set = append(set, v)
		}
	}
	if len(set) != 1 {
		return nil, ModelSettings{}, &Error{Field: "model", Message: "exactly one model configuration must be set"}
	}
	name, s := set[0].name, *set[0].s
	field := "model." + name
	if s.ModelID == "" {
		return nil, s, &Error{Field: field + ".modelId", Message: "required"}
	}
	if s.ModelID == ScriptedModelID {
		return &agent.ModelProvider{Protocol: "scripted"}, s, nil
	}
	p := &agent.ModelProvider{Model: s.ModelID}
	if s.APIKeyARN != "" {
		p.APIKey = KeyReference(s.APIKeyARN)
	}
	switch name {
	case "bedrockModelConfig":
		if s.APIFormat != "" && s.APIFormat != "converse_stream" {
			return nil, s, &Error{Field: field + ".apiFormat", Message: "only converse_stream is supported"}
		}
		p.Protocol = "bedrock_converse"
		p.APIKey = ""
	case "openAiModelConfig":
		switch s.APIFormat {
		case "", "chat_completions":
			p.Protocol = "openai_chat"
		case "responses":
			p.Protocol = "openai_responses"
		default:
			return nil, s, &Error{Field: field + ".apiFormat", Message: "must be chat_completions or responses"}
		}
		if s.APIKeyARN == "" {
			return nil, s, &Error{Field: field + ".apiKeyArn", Message: "required"}
		}
		p.BaseURL = s.APIBase
	case "liteLlmModelConfig":
		if s.APIBase == "" {
			return nil, s, &Error{Field: field + ".apiBase", Message: "required: Baton runs LiteLLM models on an OpenAI-compatible apiBase"}
		}
		p.Protocol, p.BaseURL = "openai_chat", s.APIBase
	case "geminiModelConfig":
		if s.APIKeyARN == "" {
			return nil, s, &Error{Field: field + ".apiKeyArn", Message: "required"}
		}
		p.Protocol, p.BaseURL = "openai_chat", GeminiBaseURL
	}
	return p, s, nil
}

// KeyReference is how an apiKeyArn travels in agent.ModelProvider.APIKey: `${<arn>}`, the token-vault reference
// syntax that remote_mcp header values use, resolved by the runtime at invocation time.
func KeyReference(arn string) string { return "${" + arn + "}" }

func scriptOf(params json.RawMessage) (json.RawMessage, error) {
	if len(params) == 0 || string(params) == "null" {
		return nil, nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &Error{Field: "model.additionalParams", Message: "must be a JSON object"}
	}
	return p["script"], nil
}

func tool(i int, t Tool) (json.RawMessage, error) {
	field := fmt.Sprintf("tools[%d]", i)
	cfg := t.Config
	if cfg == nil {
		cfg = &ToolConfig{}
	}
	var v any
	switch t.Type {
	case ToolInlineFunction:
		f := cfg.InlineFunction
		if f == nil {
			return nil, &Error{Field: field + ".config.inlineFunction", Message: "required for an inline_function tool"}
		}
		v = struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{"function", t.Name, f.Description, f.InputSchema}
	case ToolRemoteMCP:
		m := cfg.RemoteMCP
		if m == nil {
			return nil, &Error{Field: field + ".config.remoteMcp", Message: "required for a remote_mcp tool"}
		}
		decl := map[string]any{"type": "mcp", "server_label": t.Name,
			"transport": map[string]string{"type": "http", "server_url": m.URL}, "allowed_tools": nil, "required": false}
		if len(m.Headers) > 0 {
			decl["headers"] = m.Headers
		}
		v = decl
	case ToolGateway:
		g := cfg.Gateway
		if g == nil {
			return nil, &Error{Field: field + ".config.agentCoreGateway", Message: "required for an agentcore_gateway tool"}
		}
		decl := map[string]any{"type": t.Type, "name": t.Name, "gateway_arn": g.GatewayARN}
		if len(g.OutboundAuth) > 0 {
			decl["outbound_auth"] = g.OutboundAuth
		}
		v = decl
	case ToolBrowser:
		decl := map[string]any{"type": t.Type, "name": t.Name}
		if cfg.Browser != nil && cfg.Browser.BrowserARN != "" {
			decl["browser_arn"] = cfg.Browser.BrowserARN
		}
		v = decl
	case ToolCodeInterpreter:
		decl := map[string]any{"type": t.Type, "name": t.Name}
		if cfg.CodeInterpreter != nil && cfg.CodeInterpreter.CodeInterpreterARN != "" {
			decl["code_interpreter_arn"] = cfg.CodeInterpreter.CodeInterpreterARN
		}
		v = decl
	default:
		return nil, &Error{Field: field + ".type", Message: fmt.Sprintf("unsupported tool type %q", t.Type)}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &Error{Field: field, Message: "cannot encode the tool declaration"}
	}
	return b, nil
}

// InlineFunctionNames returns the names of the inline_function tools of c, in order (nil when c has no tools).
func InlineFunctionNames(c Config) []string {
	if c.Tools == nil {
		return nil
	}
	var out []string
	for _, t := range *c.Tools {
		if t.Type == ToolInlineFunction {
			out = append(out, t.Name)
		}
	}
	return out
}

// IsAgentCoreTool reports whether a declaration of agent.Config.Tools is one of the AgentCore-run tool types that
// ToAgent carries (agentcore_gateway, agentcore_browser, agentcore_code_interpreter).
func IsAgentCoreTool(raw json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return false
	}
	return head.Type == ToolGateway || head.Type == ToolBrowser || head.Type == ToolCodeInterpreter
}
