package translate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/agentcore"
)

// ScriptedModelID is the modelId that selects Baton's deterministic scripted model in any model configuration
// variant (docs/agentcore.md §3.3); its script is `additionalParams.script` (docs/scripted-model.md).
const ScriptedModelID = agentcore.ScriptedModelID

// GeminiBaseURL is Gemini's OpenAI-compatible endpoint, which geminiModelConfig runs on.
const GeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

// settings are the members the translation reads from any model configuration variant.
type settings struct {
	field            string
	modelID          string
	apiKeyARN        string
	apiBase          string
	apiFormat        string
	maxTokens        *int32
	additionalParams json.RawMessage
	temperature      *float64
	topP             *float64
}

// Error is a configuration the translation cannot run; Field is the wire path of the member (e.g.
// `model.bedrockModelConfig.apiFormat`), Message says why. Callers answer ValidationException with a fieldList.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Field + ": " + e.Message }

// ToAgent translates an effective harness configuration (a version with agentcore.InvokeOverrides applied) into
// the engine's agent.Config, or returns an *Error:
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
//     for the harness-run tools (a gateway also with outbound_auth; outboundAuth oauth is an error on
//     tools[i].config.agentCoreGateway.outboundAuth.oauth, docs/tools.md "Gateway").
//   - allowedTools (`["*"]`, the default, = nil: every tool), maxIterations, maxTokens (the smaller of the
//     top-level and the model's), timeoutSeconds → Controls, with BuiltinTools set (AgentCore offers its default
//     tools unless allowedTools restricts them); the model's temperature and topP → Controls.Temperature and
//     Controls.TopP, sent with every model request. (topK, and additionalParams other than the scripted model's
//     script, are rejected when the model configuration is parsed, docs/agentcore.md §3.3.)
func ToAgent(c agentcore.HarnessConfig) (agent.Config, error) {
	var cfg agent.Config
	provider, settings, err := modelProvider(c.Model)
	if err != nil {
		return cfg, err
	}
	cfg.Model = settings.modelID
	cfg.XBaton = &agent.Extension{ModelProvider: provider}
	if provider.Protocol == "scripted" {
		if script, err := scriptOf(settings.additionalParams); err != nil {
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
	for i, t := range c.Tools {
		raw, err := tool(i, t)
		if err != nil {
			return agent.Config{}, err
		}
		cfg.Tools = append(cfg.Tools, raw)
	}
	ctl := &agent.Controls{BuiltinTools: true}
	if c.AllowedTools != nil && !slices.Equal(c.AllowedTools, []string{"*"}) {
		ctl.AllowedTools = append([]string{}, c.AllowedTools...)
	}
	if c.MaxIterations != nil {
		ctl.MaxIterations = int(*c.MaxIterations)
	}
	if c.TimeoutSeconds != nil {
		ctl.TimeoutSeconds = int(*c.TimeoutSeconds)
	}
	if c.MaxTokens != nil {
		ctl.MaxTokens = int(*c.MaxTokens)
	}
	if settings.maxTokens != nil && (ctl.MaxTokens == 0 || int(*settings.maxTokens) < ctl.MaxTokens) {
		ctl.MaxTokens = int(*settings.maxTokens)
	}
	ctl.Temperature, ctl.TopP = settings.temperature, settings.topP
	cfg.Controls = ctl
	return cfg, nil
}

func modelProvider(m agentcore.ModelConfig) (*agent.ModelProvider, settings, error) {
	var set []settings
	if b := m.Bedrock; b != nil {
		set = append(set, settings{"model.bedrockModelConfig", b.ModelID, "", "", b.APIFormat, b.MaxTokens, b.AdditionalParams, b.Temperature, b.TopP})
	}
	if o := m.OpenAI; o != nil {
		set = append(set, settings{"model.openAiModelConfig", o.ModelID, o.APIKeyARN, o.APIBase, o.APIFormat, o.MaxTokens, o.AdditionalParams, o.Temperature, o.TopP})
	}
	if l := m.LiteLLM; l != nil {
		set = append(set, settings{"model.liteLlmModelConfig", l.ModelID, l.APIKeyARN, l.APIBase, "", l.MaxTokens, l.AdditionalParams, l.Temperature, l.TopP})
	}
	if g := m.Gemini; g != nil {
		set = append(set, settings{"model.geminiModelConfig", g.ModelID, g.APIKeyARN, "", "", g.MaxTokens, g.AdditionalParams, g.Temperature, g.TopP})
	}
	if len(set) != 1 {
		return nil, settings{}, &Error{Field: "model", Message: "exactly one model configuration must be set"}
	}
	s := set[0]
	if s.modelID == "" {
		return nil, s, &Error{Field: s.field + ".modelId", Message: "required"}
	}
	if s.modelID == ScriptedModelID {
		return &agent.ModelProvider{Protocol: "scripted"}, s, nil
	}
	p := &agent.ModelProvider{Model: s.modelID}
	if s.apiKeyARN != "" {
		p.APIKey = KeyReference(s.apiKeyARN)
	}
	switch {
	case m.Bedrock != nil:
		if s.apiFormat != "" && s.apiFormat != "converse_stream" {
			return nil, s, &Error{Field: s.field + ".apiFormat", Message: "only converse_stream is supported by Baton"}
		}
		p.Protocol = "bedrock_converse"
	case m.OpenAI != nil:
		switch s.apiFormat {
		case "", "chat_completions":
			p.Protocol = "openai_chat"
		case "responses":
			p.Protocol = "openai_responses"
		default:
			return nil, s, &Error{Field: s.field + ".apiFormat", Message: "must be chat_completions or responses"}
		}
		if s.apiKeyARN == "" {
			return nil, s, &Error{Field: s.field + ".apiKeyArn", Message: "required"}
		}
		p.BaseURL = s.apiBase
	case m.LiteLLM != nil:
		if s.apiBase == "" {
			return nil, s, &Error{Field: s.field + ".apiBase", Message: "required: Baton runs LiteLLM models on an OpenAI-compatible apiBase"}
		}
		p.Protocol, p.BaseURL = "openai_chat", s.apiBase
	case m.Gemini != nil:
		if s.apiKeyARN == "" {
			return nil, s, &Error{Field: s.field + ".apiKeyArn", Message: "required"}
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

func tool(i int, t agentcore.Tool) (json.RawMessage, error) {
	field := fmt.Sprintf("tools[%d]", i)
	cfg := t.Config
	if cfg == nil {
		cfg = &agentcore.ToolConfig{}
	}
	var v any
	switch t.Type {
	case agentcore.ToolInlineFunction:
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
	case agentcore.ToolRemoteMCP:
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
	case agentcore.ToolAgentCoreGateway:
		g := cfg.AgentCoreGateway
		if g == nil {
			return nil, &Error{Field: field + ".config.agentCoreGateway", Message: "required for an agentcore_gateway tool"}
		}
		if g.OutboundAuth != nil && g.OutboundAuth.OAuth != nil {
			return nil, &Error{Field: field + ".config.agentCoreGateway.outboundAuth.oauth",
				Message: "OAuth outbound auth for a gateway is not supported by Baton; use awsIam or none"}
		}
		decl := map[string]any{"type": t.Type, "name": t.Name, "gateway_arn": g.GatewayARN}
		if g.OutboundAuth != nil {
			decl["outbound_auth"] = g.OutboundAuth
		}
		v = decl
	case agentcore.ToolAgentCoreBrowser:
		decl := map[string]any{"type": t.Type, "name": t.Name}
		if cfg.AgentCoreBrowser != nil && cfg.AgentCoreBrowser.BrowserARN != "" {
			decl["browser_arn"] = cfg.AgentCoreBrowser.BrowserARN
		}
		v = decl
	case agentcore.ToolAgentCoreCodeInterpreter:
		decl := map[string]any{"type": t.Type, "name": t.Name}
		if cfg.AgentCoreCodeInterpreter != nil && cfg.AgentCoreCodeInterpreter.CodeInterpreterARN != "" {
			decl["code_interpreter_arn"] = cfg.AgentCoreCodeInterpreter.CodeInterpreterARN
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

// InlineFunctionNames returns the names of the inline_function tools of c, in order.
func InlineFunctionNames(c agentcore.HarnessConfig) []string {
	var out []string
	for _, t := range c.Tools {
		if t.Type == agentcore.ToolInlineFunction {
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
	return head.Type == agentcore.ToolAgentCoreGateway || head.Type == agentcore.ToolAgentCoreBrowser || head.Type == agentcore.ToolAgentCoreCodeInterpreter
}
