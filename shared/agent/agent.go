package agent

import (
	"encoding/json"
)

// HarnessBaton is the default harness kind: Baton's own Go harness (docs/decisions.md "Words", §2).
const HarnessBaton = "baton"

// Agent is a saved Agent (`object: "agent"`): configuration plus identity. CreatedAt and UpdatedAt are Unix seconds.
// ProjectID binds it to the project of the API key that created it; it is never rendered.
type Agent struct {
	ID        string
	ProjectID string
	CreatedAt int64
	UpdatedAt int64
	Config    Config
}

// Config is an Agent's configuration, as saved and as frozen into a Session snapshot. Tools keeps every declaration
// as the caller sent it after normalisation (docs/agents-api.md §2.1: saved Agents keep every pinned
// declaration). Members that are absent on the wire are zero here and render with their documented defaults.
type Config struct {
	Name         *string           `json:"name"`
	Model        string            `json:"model"`
	Instructions *string           `json:"instructions"`
	Metadata     map[string]string `json:"metadata"`
	Tools        []json.RawMessage `json:"tools"`
	Text         json.RawMessage   `json:"text,omitempty"`
	Reasoning    json.RawMessage   `json:"reasoning,omitempty"`
	ServiceTier  string            `json:"service_tier,omitempty"`
	MultiAgent   json.RawMessage   `json:"multi_agent,omitempty"`
	Compaction   json.RawMessage   `json:"compaction,omitempty"`
	Experimental json.RawMessage   `json:"experimental,omitempty"`
	// XBaton is the x_baton extension (docs/decisions.md §1); nil when absent.
	XBaton *Extension `json:"x_baton,omitempty"`
	// MCPBearerTokens maps an HTTP MCP declaration's server_label to the static bearer token of the Vault
	// credential selected for it at Session creation (docs/agents-api.md §3.5: bearer authentication uses a static
	// credential of an attached Vault); nil or a missing label = anonymous. It is set only by the engine when it freezes a
	// Session snapshot, never from a request, and never rendered (ResourceFields leaves it out); the harness sends
	// it as `Authorization: Bearer <token>` on every request to that server.
	MCPBearerTokens map[string]string `json:"mcp_bearer_tokens,omitempty"`
	// Controls are execution controls that a front door's translation sets (the AgentCore Harness API's
	// allowedTools, limits and default tools, docs/agentcore.md); nil = none, as on the Agents API, whose wire
	// never sets them. Never rendered by ResourceFields.
	Controls *Controls `json:"x_controls,omitempty"`
}

// Controls are front-door-neutral execution controls of a configuration.
//
// AllowedTools are tool-name patterns in the AgentCore `allowedTools` grammar (`*`, a plain name, a builtin glob,
// `@builtin`, `@builtin/name`, `@server`, `@server/tool`, `@server/glob`, `@*/tool`); nil = every tool is offered,
// a non-nil empty slice = none. The harness offers the model only matching tools and answers a call of any other
// tool with an error tool result. BuiltinTools offers the harness-run default tools (`shell`, `file_operations`).
// The limits apply to one activity task of a turn (one AgentCore invocation; a resumed pause starts a new one):
// MaxIterations bounds its model calls, MaxTokens their output tokens together (each model call asks for at
// most what is left), TimeoutSeconds its wall time once its tools are connected; 0 = none. The harness ends the
// turn with a recorded stop reason when one is hit (docs/agentcore.md §3.5). Temperature (0–2) and TopP (0–1) are the
// sampling parameters of every model request; nil = the provider's default.
type Controls struct {
	AllowedTools   []string `json:"allowed_tools,omitempty"`
	BuiltinTools   bool     `json:"builtin_tools,omitempty"`
	MaxIterations  int      `json:"max_iterations,omitempty"`
	MaxTokens      int      `json:"max_tokens,omitempty"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	TopP           *float64 `json:"top_p,omitempty"`
}

// Extension is the `x_baton` object: Baton's own settings on an Agent or a Session's inline agent
// (docs/decisions.md §1). Harness "" means HarnessBaton.
type Extension struct {
	Harness       string          `json:"harness,omitempty"`
	ModelProvider *ModelProvider  `json:"model_provider,omitempty"`
	Script        json.RawMessage `json:"script,omitempty"`
}

// ModelProvider selects the model provider of the baton harness. APIKey is write-only: it is stored, given to the
// runtime, and rendered only as APIKeyConfigured.
type ModelProvider struct {
	Protocol string `json:"protocol"`
	Model    string `json:"model,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	APIKey   string `json:"api_key,omitempty"`
}

// ProtocolScripted is the protocol of the deterministic scripted model (docs/scripted-model.md). It answers only
// when a configuration selects it (ModelProtocol); it is never a fallback.
const ProtocolScripted = "scripted"

// ModelProtocols are the model provider protocols x_baton.model_provider.protocol accepts, ProtocolScripted first
// (docs/model-providers.md).
var ModelProtocols = []string{ProtocolScripted, "bedrock_converse", "openai_responses", "openai_chat", "anthropic_messages"}

// ScriptedModel is the `model` that selects the scripted model without an x_baton.model_provider.
const ScriptedModel = "scripted"

// ModelProtocol returns the model provider protocol the configuration selects (docs/model-providers.md "Choosing
// a model"): x_baton.model_provider.protocol; else ProtocolScripted when the model is ScriptedModel or an
// x_baton.script is given (a script is for the scripted model only); else "" — no provider is selected, and the
// deployment's default provider applies (engine.Options.DefaultModelProvider) or admission refuses the Session.
func (c Config) ModelProtocol() string {
	if c.XBaton != nil && c.XBaton.ModelProvider != nil && c.XBaton.ModelProvider.Protocol != "" {
		return c.XBaton.ModelProvider.Protocol
	}
	if c.Model == ScriptedModel || (c.XBaton != nil && len(c.XBaton.Script) > 0 && string(c.XBaton.Script) != "null") {
		return ProtocolScripted
	}
	return ""
}

// HarnessKind returns the harness kind the configuration selects, HarnessBaton by default.
func (c Config) HarnessKind() string {
	if c.XBaton == nil || c.XBaton.Harness == "" {
		return HarnessBaton
	}
	return c.XBaton.Harness
}

// Snapshot is the immutable configuration a Session freezes at creation: the effective Config plus the id of the
// saved Agent it came from ("" for a purely inline agent).
type Snapshot struct {
	AgentID string `json:"agent_id"`
	Config  Config `json:"config"`
}

// Function is a function tool declaration as the harness needs it (docs/agents-api.md §3.1).
type Function struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Parameters   json.RawMessage `json:"parameters"`
	DeferLoading bool            `json:"defer_loading"`
}

// Functions returns the function declarations of the configuration, in declaration order. Declarations that are
// not functions, or that do not decode, are skipped: admission has already rejected malformed ones.
func (c Config) Functions() []Function {
	var out []Function
	for _, raw := range c.Tools {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &head) != nil || head.Type != "function" {
			continue
		}
		var f Function
		if json.Unmarshal(raw, &f) == nil {
			out = append(out, f)
		}
	}
	return out
}

// MCPServer is an HTTP MCP tool declaration as the harness needs it (docs/agents-api.md §3.5;
// docs/agents-api.md §3.5): `{type:"mcp", server_label, transport:{type:"http", server_url}, allowed_tools,
// required, credential_id}`. AllowedTools nil means every server tool (absent or null on the wire); a non-nil empty
// slice means none (`[]`).
type MCPServer struct {
	ServerLabel string `json:"server_label"`
	Transport   struct {
		Type      string `json:"type"`
		ServerURL string `json:"server_url"`
	} `json:"transport"`
	AllowedTools []string `json:"allowed_tools"`
	Required     bool     `json:"required"`
	CredentialID *string  `json:"credential_id"`
	// Headers are sent on every HTTP request to the server (AgentCore `remote_mcp` headers; the Agents API rejects
	// them at admission). A value may be a token-vault reference `${arn:…:token-vault/…/apikeycredentialprovider/
	// <name>}` that the runtime resolves at invocation time; resolved values are never stored or logged.
	Headers map[string]string `json:"headers,omitempty"`
}

// MCPServers returns the HTTP MCP declarations of the configuration, in declaration order. Declarations of other
// types or transports, or that do not decode, are skipped: admission has already rejected what cannot execute.
func (c Config) MCPServers() []MCPServer {
	var out []MCPServer
	for _, raw := range c.Tools {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &head) != nil || head.Type != "mcp" {
			continue
		}
		var s MCPServer
		if json.Unmarshal(raw, &s) == nil && s.Transport.Type == "http" {
			out = append(out, s)
		}
	}
	return out
}

// ToolSearch reports whether the configuration declares the `{type:"tool_search"}` tool (docs/agents-api.md
// §3.2).
func (c Config) ToolSearch() bool {
	for _, raw := range c.Tools {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &head) == nil && head.Type == "tool_search" {
			return true
		}
	}
	return false
}

// Harness-run AWS tool types a configuration can declare (docs/agentcore.md §2; docs/tools.md "Builtin tools").
const (
	ToolCodeInterpreter = "agentcore_code_interpreter"
	ToolBrowser         = "agentcore_browser"
	ToolGateway         = "agentcore_gateway"
)

// HostedTool is a declaration of a harness-run AWS tool as the configuration stores it: `{type, name,
// code_interpreter_arn | browser_arn | gateway_arn, outbound_auth}`. Type is one of ToolCodeInterpreter, ToolBrowser,
// ToolGateway; Name the declared tool name; ARN the resource ARN ("" = the built-in resource); OutboundAuth, for a
// gateway, the raw `{awsIam:{}}` / `{none:{}}` / `{oauth:{…}}` member (empty = awsIam).
type HostedTool struct {
	Type         string
	Name         string
	ARN          string
	OutboundAuth json.RawMessage
}

// HostedTools returns the harness-run AWS tool declarations of the configuration, in declaration order.
func (c Config) HostedTools() []HostedTool {
	var out []HostedTool
	for _, raw := range c.Tools {
		var d struct {
			Type               string          `json:"type"`
			Name               string          `json:"name"`
			CodeInterpreterARN string          `json:"code_interpreter_arn"`
			BrowserARN         string          `json:"browser_arn"`
			GatewayARN         string          `json:"gateway_arn"`
			OutboundAuth       json.RawMessage `json:"outbound_auth"`
		}
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch d.Type {
		case ToolCodeInterpreter:
			out = append(out, HostedTool{Type: d.Type, Name: d.Name, ARN: d.CodeInterpreterARN})
		case ToolBrowser:
			out = append(out, HostedTool{Type: d.Type, Name: d.Name, ARN: d.BrowserARN})
		case ToolGateway:
			out = append(out, HostedTool{Type: d.Type, Name: d.Name, ARN: d.GatewayARN, OutboundAuth: d.OutboundAuth})
		}
	}
	return out
}
