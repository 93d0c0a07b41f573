package agentcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool types (docs/agentcore.md §4.2): `type` is snake_case, its `config` member lowerCamel, and they must match.
const (
	ToolInlineFunction           = "inline_function"
	ToolRemoteMCP                = "remote_mcp"
	ToolAgentCoreGateway         = "agentcore_gateway"
	ToolAgentCoreBrowser         = "agentcore_browser"
	ToolAgentCoreCodeInterpreter = "agentcore_code_interpreter"
)

// toolConfigKey is the `config` member each tool type takes.
var toolConfigKey = map[string]string{
	ToolInlineFunction:           "inlineFunction",
	ToolRemoteMCP:                "remoteMcp",
	ToolAgentCoreGateway:         "agentCoreGateway",
	ToolAgentCoreBrowser:         "agentCoreBrowser",
	ToolAgentCoreCodeInterpreter: "agentCoreCodeInterpreter",
}

var toolTypes = []string{ToolInlineFunction, ToolRemoteMCP, ToolAgentCoreGateway, ToolAgentCoreBrowser, ToolAgentCoreCodeInterpreter}

// Default tool names of the two tool types whose `name` may be omitted (the guide's own examples use them).
const (
	DefaultBrowserToolName         = "browser"
	DefaultCodeInterpreterToolName = "code_interpreter"
)

// Bounds of tool and model members (docs/agentcore.md §4.2–§4.3).
const (
	MaxTools              = 64
	MaxMCPHeaders         = 50
	MaxURLLength          = 2048
	MaxModelIDLength      = 2048
	MaxSystemPromptBlocks = 64
	MaxAllowedTools       = 256
	MaxSkills             = 64
	MaxEnvironmentVars    = 50
	MaxTags               = 50
	MaxTemperature        = 2
	MaxTopK               = 500
	MaxModelTokens        = 1_000_000
	// Limits: maxIterations, maxTokens (whole invocation) and timeoutSeconds.
	MaxIterationsLimit  = 1000
	MaxTokensLimit      = 10_000_000
	MaxTimeoutSeconds   = 28800
	MinLifecycleSeconds = 60
	MaxLifecycleSeconds = 28800
)

// Tool is one `tools` entry: {type, name, config}. Name is always set after validation (browser and code
// interpreter tools default to DefaultBrowserToolName / DefaultCodeInterpreterToolName).
type Tool struct {
	Type   string      `json:"type"`
	Name   string      `json:"name"`
	Config *ToolConfig `json:"config,omitempty"`
}

// ToolConfig is the `config` union; exactly the member matching Tool.Type is set (browser and code interpreter
// tools may have none).
type ToolConfig struct {
	RemoteMCP                *RemoteMCP       `json:"remoteMcp,omitempty"`
	AgentCoreGateway         *Gateway         `json:"agentCoreGateway,omitempty"`
	AgentCoreBrowser         *Browser         `json:"agentCoreBrowser,omitempty"`
	AgentCoreCodeInterpreter *CodeInterpreter `json:"agentCoreCodeInterpreter,omitempty"`
	InlineFunction           *InlineFunction  `json:"inlineFunction,omitempty"`
}

// RemoteMCP is `remoteMcp`: a Streamable-HTTP MCP server URL and the headers sent on every request to it. A
// header value may hold `${arn:…:token-vault/…/apikeycredentialprovider/<name>}` references, resolved at
// invocation time (ExpandVaultReferences).
type RemoteMCP struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Gateway is `agentCoreGateway`: a gateway ARN and its outbound auth (nil = awsIam).
type Gateway struct {
	GatewayARN   string        `json:"gatewayArn"`
	OutboundAuth *OutboundAuth `json:"outboundAuth,omitempty"`
}

// OutboundAuth is the union `{awsIam:{}}` | `{none:{}}` | `{oauth:{…}}`.
type OutboundAuth struct {
	AWSIAM *struct{} `json:"awsIam,omitempty"`
	None   *struct{} `json:"none,omitempty"`
	OAuth  *OAuth    `json:"oauth,omitempty"`
}

// OAuth is the `oauth` outbound auth of a gateway tool.
type OAuth struct {
	ProviderARN      string            `json:"providerArn"`
	Scopes           []string          `json:"scopes"`
	CustomParameters map[string]string `json:"customParameters,omitempty"`
	GrantType        string            `json:"grantType,omitempty"`
	DefaultReturnURL string            `json:"defaultReturnUrl,omitempty"`
}

// Browser is `agentCoreBrowser`; BrowserARN "" means the built-in browser.
type Browser struct {
	BrowserARN string `json:"browserArn,omitempty"`
}

// CodeInterpreter is `agentCoreCodeInterpreter`; CodeInterpreterARN "" means the built-in one.
type CodeInterpreter struct {
	CodeInterpreterARN string `json:"codeInterpreterArn,omitempty"`
}

// InlineFunction is `inlineFunction`: a tool the caller executes. InputSchema is a JSON Schema object, kept
// byte for byte.
type InlineFunction struct {
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ModelConfig is the `model` union; exactly one member is set.
type ModelConfig struct {
	Bedrock *BedrockModel `json:"bedrockModelConfig,omitempty"`
	OpenAI  *OpenAIModel  `json:"openAiModelConfig,omitempty"`
	LiteLLM *LiteLLMModel `json:"liteLlmModelConfig,omitempty"`
	Gemini  *GeminiModel  `json:"geminiModelConfig,omitempty"`
}

// IsZero reports whether no member is set.
func (m ModelConfig) IsZero() bool {
	return m.Bedrock == nil && m.OpenAI == nil && m.LiteLLM == nil && m.Gemini == nil
}

// BedrockModel is `bedrockModelConfig` (Converse streaming unless APIFormat says otherwise).
type BedrockModel struct {
	ModelID          string          `json:"modelId"`
	MaxTokens        *int32          `json:"maxTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	APIFormat        string          `json:"apiFormat,omitempty"`
	AdditionalParams json.RawMessage `json:"additionalParams,omitempty"`
}

// OpenAIModel is `openAiModelConfig`; APIKeyARN names a token-vault API-key credential provider.
type OpenAIModel struct {
	ModelID          string          `json:"modelId"`
	APIKeyARN        string          `json:"apiKeyArn"`
	APIBase          string          `json:"apiBase,omitempty"`
	MaxTokens        *int32          `json:"maxTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	APIFormat        string          `json:"apiFormat,omitempty"`
	AdditionalParams json.RawMessage `json:"additionalParams,omitempty"`
}

// LiteLLMModel is `liteLlmModelConfig`: an OpenAI-compatible APIBase; APIKeyARN is optional.
type LiteLLMModel struct {
	ModelID          string          `json:"modelId"`
	APIKeyARN        string          `json:"apiKeyArn,omitempty"`
	APIBase          string          `json:"apiBase,omitempty"`
	MaxTokens        *int32          `json:"maxTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	AdditionalParams json.RawMessage `json:"additionalParams,omitempty"`
}

// GeminiModel is `geminiModelConfig`.
type GeminiModel struct {
	ModelID          string          `json:"modelId"`
	APIKeyARN        string          `json:"apiKeyArn"`
	MaxTokens        *int32          `json:"maxTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	TopK             *int32          `json:"topK,omitempty"`
	AdditionalParams json.RawMessage `json:"additionalParams,omitempty"`
}

// SystemContentBlock is one `systemPrompt` entry, the union `{text}`.
type SystemContentBlock struct {
	Text string `json:"text"`
}

// Skill is one `skills` entry; only the `path` and `awsSkills` members are accepted (s3 and git sources are
// rejected: Baton fetches no skills).
type Skill struct {
	Path      *string    `json:"path,omitempty"`
	AWSSkills *AWSSkills `json:"awsSkills,omitempty"`
}

// AWSSkills is the `awsSkills` skill member; no Paths means every bundled skill.
type AWSSkills struct {
	Paths []string `json:"paths,omitempty"`
}

// Truncation is `truncation`: {strategy, config}.
type Truncation struct {
	Strategy string            `json:"strategy"`
	Config   *TruncationConfig `json:"config,omitempty"`
}

// TruncationConfig is the truncation `config` union.
type TruncationConfig struct {
	SlidingWindow *SlidingWindow `json:"slidingWindow,omitempty"`
	Summarization *Summarization `json:"summarization,omitempty"`
}

// SlidingWindow keeps the last MessagesCount messages.
type SlidingWindow struct {
	MessagesCount *int32 `json:"messagesCount,omitempty"`
}

// Summarization summarises older messages.
type Summarization struct {
	SummaryRatio              *float64 `json:"summaryRatio,omitempty"`
	PreserveRecentMessages    *int32   `json:"preserveRecentMessages,omitempty"`
	SummarizationSystemPrompt *string  `json:"summarizationSystemPrompt,omitempty"`
}

// DefaultSlidingWindowMessages is the default truncation window.
const DefaultSlidingWindowMessages = 40

// DefaultTruncation returns `{"strategy":"sliding_window","config":{"slidingWindow":{"messagesCount":40}}}`.
func DefaultTruncation() Truncation {
	n := int32(DefaultSlidingWindowMessages)
	return Truncation{Strategy: "sliding_window", Config: &TruncationConfig{SlidingWindow: &SlidingWindow{MessagesCount: &n}}}
}

// DefaultBedrockModelID is the model of a harness created without `model`.
const DefaultBedrockModelID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// Memory is `memory`; only `disabled` is accepted (AgentCore Memory and managed memory are not available).
type Memory struct {
	Disabled *struct{} `json:"disabled,omitempty"`
}

// Environment is the request form of `environment`: `{agentCoreRuntimeEnvironment:{lifecycleConfiguration,
// networkConfiguration}}` (VPC networking and filesystem configurations are not available).
type Environment struct {
	AgentCoreRuntimeEnvironment *RuntimeEnvironment `json:"agentCoreRuntimeEnvironment,omitempty"`
}

// RuntimeEnvironment is `agentCoreRuntimeEnvironment` (request form).
type RuntimeEnvironment struct {
	LifecycleConfiguration *Lifecycle `json:"lifecycleConfiguration,omitempty"`
	NetworkConfiguration   *Network   `json:"networkConfiguration,omitempty"`
}

// Lifecycle bounds a runtime session, in seconds.
type Lifecycle struct {
	IdleRuntimeSessionTimeout *int32 `json:"idleRuntimeSessionTimeout,omitempty"`
	MaxLifetime               *int32 `json:"maxLifetime,omitempty"`
}

// Network is `networkConfiguration`; only PUBLIC.
type Network struct {
	NetworkMode string `json:"networkMode"`
}

// HarnessConfig is the validated configuration of one harness version, as stored (JSON) and as InvokeHarness
// runs it. Defaults are applied at creation (ApplyDefaults), so Model, SystemPrompt, Tools, Skills, AllowedTools
// and Truncation are always present.
type HarnessConfig struct {
	ExecutionRoleARN     string               `json:"executionRoleArn"`
	Model                ModelConfig          `json:"model"`
	SystemPrompt         []SystemContentBlock `json:"systemPrompt"`
	Tools                []Tool               `json:"tools"`
	Skills               []Skill              `json:"skills"`
	AllowedTools         []string             `json:"allowedTools"`
	Truncation           Truncation           `json:"truncation"`
	Memory               *Memory              `json:"memory,omitempty"`
	Environment          *Environment         `json:"environment,omitempty"`
	EnvironmentVariables map[string]string    `json:"environmentVariables,omitempty"`
	MaxIterations        *int32               `json:"maxIterations,omitempty"`
	MaxTokens            *int32               `json:"maxTokens,omitempty"`
	TimeoutSeconds       *int32               `json:"timeoutSeconds,omitempty"`
	Tags                 map[string]string    `json:"tags,omitempty"`
}

// ApplyDefaults fills the members every harness has: model (bedrockModelConfig DefaultBedrockModelID),
// systemPrompt [], tools [], skills [], allowedTools ["*"], truncation DefaultTruncation.
func (h *HarnessConfig) ApplyDefaults() {
	if h.Model.IsZero() {
		h.Model = ModelConfig{Bedrock: &BedrockModel{ModelID: DefaultBedrockModelID}}
	}
	if h.SystemPrompt == nil {
		h.SystemPrompt = []SystemContentBlock{}
	}
	if h.Tools == nil {
		h.Tools = []Tool{}
	}
	if h.Skills == nil {
		h.Skills = []Skill{}
	}
	if h.AllowedTools == nil {
		h.AllowedTools = []string{"*"}
	}
	if h.Truncation.Strategy == "" {
		h.Truncation = DefaultTruncation()
	}
}

// DecodeConfig decodes a stored HarnessConfig.
func DecodeConfig(b []byte) (HarnessConfig, error) {
	var h HarnessConfig
	if err := json.Unmarshal(b, &h); err != nil {
		return HarnessConfig{}, fmt.Errorf("decode harness configuration: %w", err)
	}
	return h, nil
}

// ---- tools ----

// ParseTools validates a `tools` list (create, update and InvokeHarness override alike): at most MaxTools
// entries, each {type, name, config} with the exact shape of its type, names unique. name is the member's path
// for error messages ("tools"). Errors: *ValidationError.
func ParseTools(name string, r json.RawMessage) ([]Tool, error) {
	var c checker
	tools := c.tools(name, r)
	return tools, c.err()
}

func (c *checker) tools(name string, r json.RawMessage) []Tool {
	items, ok := c.list(name, r)
	if !ok {
		return nil
	}
	if len(items) > MaxTools {
		c.fail(name, "must have at most %d tools", MaxTools)
		return nil
	}
	out := make([]Tool, 0, len(items))
	seen := map[string]bool{}
	for i, item := range items {
		n := fmt.Sprintf("%s[%d]", name, i)
		t, ok := c.tool(n, item)
		if !ok {
			continue
		}
		if seen[t.Name] {
			c.fail(n+".name", "duplicate tool name %q", t.Name)
			continue
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out
}

func (c *checker) tool(name string, r json.RawMessage) (Tool, bool) {
	m, ok := c.object(name, r)
	if !ok {
		return Tool{}, false
	}
	before := len(c.fields)
	var t Tool
	typ, ok := present(m, "type")
	if !ok {
		c.fail(name+".type", "is required")
		return Tool{}, false
	}
	if t.Type, ok = c.enum(name+".type", typ, toolTypes...); !ok {
		return Tool{}, false
	}
	if v, ok := present(m, "name"); ok {
		t.Name, _ = c.pattern(name+".name", v, 1, 64, ToolNamePattern, "[a-zA-Z0-9_-]{1,64}")
	} else {
		switch t.Type {
		case ToolAgentCoreBrowser:
			t.Name = DefaultBrowserToolName
		case ToolAgentCoreCodeInterpreter:
			t.Name = DefaultCodeInterpreterToolName
		default:
			c.fail(name+".name", "is required for a %s tool", t.Type)
		}
	}
	want := toolConfigKey[t.Type]
	cfgRaw, hasCfg := present(m, "config")
	if !hasCfg {
		if t.Type == ToolAgentCoreBrowser || t.Type == ToolAgentCoreCodeInterpreter {
			return t, len(c.fields) == before
		}
		c.fail(name+".config", "is required for a %s tool (config.%s)", t.Type, want)
		return Tool{}, false
	}
	cm, ok := c.object(name+".config", cfgRaw)
	if !ok {
		return Tool{}, false
	}
	if len(cm) != 1 {
		c.fail(name+".config", "must have exactly one member, %s", want)
		return Tool{}, false
	}
	key := sortedKeys(cm)[0]
	if key != want {
		c.fail(name+".config."+key, "does not match type %s (expected config.%s)", t.Type, want)
		return Tool{}, false
	}
	n := name + ".config." + key
	v := cm[key]
	t.Config = &ToolConfig{}
	switch t.Type {
	case ToolInlineFunction:
		t.Config.InlineFunction = c.inlineFunction(n, v)
	case ToolRemoteMCP:
		t.Config.RemoteMCP = c.remoteMCP(n, v)
	case ToolAgentCoreGateway:
		t.Config.AgentCoreGateway = c.gateway(n, v)
	case ToolAgentCoreBrowser:
		t.Config.AgentCoreBrowser = c.browser(n, v)
	case ToolAgentCoreCodeInterpreter:
		t.Config.AgentCoreCodeInterpreter = c.codeInterpreter(n, v)
	}
	return t, len(c.fields) == before
}

func (c *checker) inlineFunction(name string, r json.RawMessage) *InlineFunction {
	m, ok := c.object(name, r)
	if !ok {
		return nil
	}
	f := &InlineFunction{}
	if v, ok := present(m, "description"); ok {
		f.Description, _ = c.str(name+".description", v, 1, MaxDescriptionLength)
	} else {
		c.fail(name+".description", "is required")
	}
	v, ok := present(m, "inputSchema")
	if !ok {
		c.fail(name+".inputSchema", "is required")
		return f
	}
	if jsonKind(v) != '{' {
		c.fail(name+".inputSchema", "must be a JSON Schema object")
		return f
	}
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	_ = json.Unmarshal(v, &head)
	if len(head.Type) > 0 && string(bytes.TrimSpace(head.Type)) != `"object"` {
		c.fail(name+".inputSchema.type", "must be \"object\"")
		return f
	}
	if why, ok := compileSchema(v); !ok {
		c.fail(name+".inputSchema", "is not a valid JSON Schema: %s", why)
		return f
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, v)
	f.InputSchema = compact.Bytes()
	return f
}

// compileSchema compiles a JSON Schema (2020-12 unless $schema names another draft) without loading any URL.
func compileSchema(schema json.RawMessage) (string, bool) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return "not valid JSON", false
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(jsonschema.SchemeURLLoader{})
	const loc = "urn:baton:agentcore:schema"
	if err := comp.AddResource(loc, doc); err != nil {
		return firstLine(err.Error()), false
	}
	if _, err := comp.Compile(loc); err != nil {
		return firstLine(err.Error()), false
	}
	return "", true
}

func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	out := strings.TrimSpace(lines[len(lines)-1])
	if len(out) > 300 {
		out = out[:300]
	}
	return out
}

// headerNamePattern is an HTTP header field name (RFC 9110 token).
var headerNamePattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")

func (c *checker) remoteMCP(name string, r json.RawMessage) *RemoteMCP {
	m, ok := c.object(name, r)
	if !ok {
		return nil
	}
	out := &RemoteMCP{}
	if v, ok := present(m, "url"); ok {
		out.URL, _ = c.httpURL(name+".url", v)
	} else {
		c.fail(name+".url", "is required")
	}
	if v, ok := present(m, "headers"); ok {
		h, ok := c.stringMap(name+".headers", v, MaxMCPHeaders, headerNamePattern.MatchString, "an HTTP header name")
		if ok {
			for _, k := range sortedStringKeys(h) {
				val := h[k]
				if strings.ContainsAny(val, "\r\n\x00") {
					c.fail(name+".headers."+k, "must not contain line breaks")
					continue
				}
				for _, ref := range VaultReferences(val) {
					if _, ok := ParseCredentialProviderARN(ref); !ok {
						c.fail(name+".headers."+k, "${%s} is not an API-key credential provider ARN (arn:aws:bedrock-agentcore:<region>:<account>:token-vault/default/apikeycredentialprovider/<name>)", ref)
					}
				}
			}
			if len(h) > 0 {
				out.Headers = h
			}
		}
	}
	return out
}

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// httpURL decodes an absolute http or https URL of at most MaxURLLength characters.
func (c *checker) httpURL(name string, r json.RawMessage) (string, bool) {
	s, ok := c.str(name, r, 1, MaxURLLength)
	if !ok {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.fail(name, "must be an absolute http or https URL")
		return "", false
	}
	return s, true
}

var grantTypes = []string{"CLIENT_CREDENTIALS", "AUTHORIZATION_CODE", "TOKEN_EXCHANGE"}

func (c *checker) gateway(name string, r json.RawMessage) *Gateway {
	m, ok := c.object(name, r)
	if !ok {
		return nil
	}
	g := &Gateway{}
	if v, ok := present(m, "gatewayArn"); ok {
		g.GatewayARN, _ = c.pattern(name+".gatewayArn", v, 1, 2048, GatewayARNPattern, "arn:aws:bedrock-agentcore:<region>:<account>:gateway/<id>")
	} else {
		c.fail(name+".gatewayArn", "is required")
	}
	v, ok := present(m, "outboundAuth")
	if !ok {
		return g
	}
	key, val, ok := c.union(name+".outboundAuth", v, []string{"awsIam", "none", "oauth"}, nil)
	if !ok {
		return g
	}
	n := name + ".outboundAuth." + key
	switch key {
	case "awsIam":
		if c.unit(n, val) {
			g.OutboundAuth = &OutboundAuth{AWSIAM: &struct{}{}}
		}
	case "none":
		if c.unit(n, val) {
			g.OutboundAuth = &OutboundAuth{None: &struct{}{}}
		}
	case "oauth":
		om, ok := c.object(n, val)
		if !ok {
			return g
		}
		o := &OAuth{}
		if v, ok := present(om, "providerArn"); ok {
			o.ProviderARN, _ = c.pattern(n+".providerArn", v, 1, 2048, oauthProviderARNPattern, "an OAuth2 credential provider ARN")
		} else {
			c.fail(n+".providerArn", "is required")
		}
		if v, ok := present(om, "scopes"); ok {
			if l, ok := c.list(n+".scopes", v); ok {
				o.Scopes = []string{}
				for i, s := range l {
					if sc, ok := c.str(fmt.Sprintf("%s.scopes[%d]", n, i), s, 1, 128); ok {
						o.Scopes = append(o.Scopes, sc)
					}
				}
			}
		} else {
			c.fail(n+".scopes", "is required")
		}
		if v, ok := present(om, "customParameters"); ok {
			o.CustomParameters, _ = c.stringMap(n+".customParameters", v, 10, nil, "")
		}
		if v, ok := present(om, "grantType"); ok {
			if gt, ok := c.enum(n+".grantType", v, grantTypes...); ok {
				if gt == "AUTHORIZATION_CODE" {
					c.fail(n+".grantType", "AUTHORIZATION_CODE is not supported for a harness gateway tool")
				}
				o.GrantType = gt
			}
		}
		if v, ok := present(om, "defaultReturnUrl"); ok {
			o.DefaultReturnURL, _ = c.httpURL(n+".defaultReturnUrl", v)
		}
		g.OutboundAuth = &OutboundAuth{OAuth: o}
	}
	return g
}

func (c *checker) browser(name string, r json.RawMessage) *Browser {
	m, ok := c.object(name, r)
	if !ok {
		return nil
	}
	b := &Browser{}
	if v, ok := present(m, "browserArn"); ok {
		b.BrowserARN, _ = c.pattern(name+".browserArn", v, 1, 2048, BrowserARNPattern, "a browser ARN")
	}
	return b
}

func (c *checker) codeInterpreter(name string, r json.RawMessage) *CodeInterpreter {
	m, ok := c.object(name, r)
	if !ok {
		return nil
	}
	ci := &CodeInterpreter{}
	if v, ok := present(m, "codeInterpreterArn"); ok {
		ci.CodeInterpreterARN, _ = c.pattern(name+".codeInterpreterArn", v, 1, 2048, CodeInterpreterARNPattern, "a code interpreter ARN")
	}
	return ci
}

// ---- model ----

// ParseModel validates a `model` union: exactly one of bedrockModelConfig, openAiModelConfig,
// liteLlmModelConfig, geminiModelConfig with its documented members and ranges. Errors: *ValidationError.
func ParseModel(name string, r json.RawMessage) (ModelConfig, error) {
	var c checker
	m := c.model(name, r)
	return m, c.err()
}

func (c *checker) model(name string, r json.RawMessage) ModelConfig {
	key, val, ok := c.union(name, r, []string{"bedrockModelConfig", "openAiModelConfig", "liteLlmModelConfig", "geminiModelConfig"}, nil)
	if !ok {
		return ModelConfig{}
	}
	n := name + "." + key
	m, ok := c.object(n, val)
	if !ok {
		return ModelConfig{}
	}
	common := func() (id string, maxTokens *int32, temp, topP *float64, extra json.RawMessage) {
		if v, ok := present(m, "modelId"); ok {
			id, _ = c.str(n+".modelId", v, 1, MaxModelIDLength)
		} else {
			c.fail(n+".modelId", "is required")
		}
		if v, ok := present(m, "maxTokens"); ok {
			maxTokens, _ = c.integer(n+".maxTokens", v, 1, MaxModelTokens)
		}
		if v, ok := present(m, "temperature"); ok {
			temp, _ = c.number(n+".temperature", v, 0, MaxTemperature)
		}
		if v, ok := present(m, "topP"); ok {
			topP, _ = c.number(n+".topP", v, 0, 1)
		}
		if v, ok := present(m, "additionalParams"); ok {
			if jsonKind(v) != '{' {
				c.fail(n+".additionalParams", "must be an object")
			} else {
				var b bytes.Buffer
				_ = json.Compact(&b, v)
				extra = b.Bytes()
			}
		}
		return
	}
	apiKey := func(required bool) string {
		v, ok := present(m, "apiKeyArn")
		if !ok {
			if required {
				c.fail(n+".apiKeyArn", "is required")
			}
			return ""
		}
		s, ok := c.str(n+".apiKeyArn", v, 1, 2048)
		if ok {
			if _, ok := ParseCredentialProviderARN(s); !ok {
				c.fail(n+".apiKeyArn", "must be an API-key credential provider ARN (arn:aws:bedrock-agentcore:<region>:<account>:token-vault/default/apikeycredentialprovider/<name>)")
				return ""
			}
		}
		return s
	}
	apiBase := func() string {
		if v, ok := present(m, "apiBase"); ok {
			s, _ := c.httpURL(n+".apiBase", v)
			return s
		}
		return ""
	}
	apiFormat := func(values ...string) string {
		if v, ok := present(m, "apiFormat"); ok {
			s, _ := c.enum(n+".apiFormat", v, values...)
			return s
		}
		return ""
	}
	var out ModelConfig
	switch key {
	case "bedrockModelConfig":
		b := &BedrockModel{}
		b.ModelID, b.MaxTokens, b.Temperature, b.TopP, b.AdditionalParams = common()
		b.APIFormat = apiFormat("converse_stream", "responses", "chat_completions")
		out.Bedrock = b
	case "openAiModelConfig":
		o := &OpenAIModel{}
		o.ModelID, o.MaxTokens, o.Temperature, o.TopP, o.AdditionalParams = common()
		o.APIKeyARN = apiKey(true)
		o.APIBase = apiBase()
		o.APIFormat = apiFormat("chat_completions", "responses")
		out.OpenAI = o
	case "liteLlmModelConfig":
		l := &LiteLLMModel{}
		l.ModelID, l.MaxTokens, l.Temperature, l.TopP, l.AdditionalParams = common()
		l.APIKeyARN = apiKey(false)
		l.APIBase = apiBase()
		out.LiteLLM = l
	case "geminiModelConfig":
		g := &GeminiModel{}
		g.ModelID, g.MaxTokens, g.Temperature, g.TopP, g.AdditionalParams = common()
		g.APIKeyARN = apiKey(true)
		if v, ok := present(m, "topK"); ok {
			if k, ok := c.integer(n+".topK", v, 0, MaxTopK); ok {
				g.TopK = k
				c.fail(n+".topK", "is not supported by Baton: Gemini models run on Gemini's OpenAI-compatible endpoint, which takes no top-k sampling parameter")
			}
		}
		out.Gemini = g
	}
	c.additionalParams(n, m)
	return out
}

// ScriptedModelID is the modelId that selects Baton's deterministic scripted model in any model configuration
// variant (docs/agentcore.md §3.3).
const ScriptedModelID = "baton.scripted"

// additionalParams rejects what Baton cannot pass to a provider (docs/agentcore.md §3.3): additionalParams are
// the scripted model's settings (`script`) and nothing else; with any other model they are a validation error,
// never dropped.
func (c *checker) additionalParams(n string, m map[string]json.RawMessage) {
	v, ok := present(m, "additionalParams")
	if !ok || jsonKind(v) != '{' {
		return
	}
	var id string
	if raw, ok := present(m, "modelId"); ok {
		_ = json.Unmarshal(raw, &id)
	}
	if id != ScriptedModelID {
		c.fail(n+".additionalParams", "is not supported by Baton: provider-specific request parameters cannot be passed to the model provider (only the scripted model %q takes additionalParams.script)", ScriptedModelID)
		return
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(v, &p)
	for k := range p {
		if k != "script" {
			c.fail(n+".additionalParams."+k, "is not supported by Baton: the scripted model takes only additionalParams.script")
		}
	}
}

// ---- system prompt, allowedTools, skills, limits ----

// ParseSystemPrompt validates `systemPrompt`: a list of `{text}` blocks. Errors: *ValidationError.
func ParseSystemPrompt(name string, r json.RawMessage) ([]SystemContentBlock, error) {
	var c checker
	sp := c.systemPrompt(name, r)
	return sp, c.err()
}

func (c *checker) systemPrompt(name string, r json.RawMessage) []SystemContentBlock {
	l, ok := c.list(name, r)
	if !ok {
		return nil
	}
	if len(l) > MaxSystemPromptBlocks {
		c.fail(name, "must have at most %d blocks", MaxSystemPromptBlocks)
		return nil
	}
	out := make([]SystemContentBlock, 0, len(l))
	for i, b := range l {
		n := fmt.Sprintf("%s[%d]", name, i)
		key, v, ok := c.union(n, b, []string{"text"}, nil)
		if !ok || key != "text" {
			continue
		}
		if s, ok := c.str(n+".text", v, 1, 0); ok {
			out = append(out, SystemContentBlock{Text: s})
		}
	}
	return out
}

// allowedToolPattern is the documented grammar of an `allowedTools` entry.
var allowedToolPattern = regexp.MustCompile(`^(\*|@?[^/]+(/[^/]+)?)$`)

// ParseAllowedTools validates `allowedTools`: each entry 1–64 characters of `(\*|@?[^/]+(/[^/]+)?)`.
// Errors: *ValidationError.
func ParseAllowedTools(name string, r json.RawMessage) ([]string, error) {
	var c checker
	a := c.allowedTools(name, r)
	return a, c.err()
}

func (c *checker) allowedTools(name string, r json.RawMessage) []string {
	l, ok := c.list(name, r)
	if !ok {
		return nil
	}
	if len(l) > MaxAllowedTools {
		c.fail(name, "must have at most %d entries", MaxAllowedTools)
		return nil
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		if s, ok := c.pattern(fmt.Sprintf("%s[%d]", name, i), v, 1, MaxAllowedToolLength, allowedToolPattern, `(\*|@?[^/]+(/[^/]+)?)`); ok {
			out = append(out, s)
		}
	}
	return out
}

// ParseSkills validates `skills`; `s3` and `git` sources are rejected by name. Errors: *ValidationError.
func ParseSkills(name string, r json.RawMessage) ([]Skill, error) {
	var c checker
	s := c.skills(name, r)
	return s, c.err()
}

var unsupportedSkills = map[string]string{
	"s3":  "skills from S3 are not supported by Baton",
	"git": "skills from git are not supported by Baton",
}

func (c *checker) skills(name string, r json.RawMessage) []Skill {
	l, ok := c.list(name, r)
	if !ok {
		return nil
	}
	if len(l) > MaxSkills {
		c.fail(name, "must have at most %d skills", MaxSkills)
		return nil
	}
	out := make([]Skill, 0, len(l))
	for i, v := range l {
		n := fmt.Sprintf("%s[%d]", name, i)
		key, val, ok := c.union(n, v, []string{"path", "awsSkills"}, unsupportedSkills)
		if !ok {
			continue
		}
		switch key {
		case "path":
			if p, ok := c.str(n+".path", val, 1, 1024); ok {
				out = append(out, Skill{Path: &p})
			}
		case "awsSkills":
			m, ok := c.object(n+".awsSkills", val)
			if !ok {
				continue
			}
			a := &AWSSkills{}
			if pv, ok := present(m, "paths"); ok {
				if pl, ok := c.list(n+".awsSkills.paths", pv); ok {
					for j, p := range pl {
						if s, ok := c.str(fmt.Sprintf("%s.awsSkills.paths[%d]", n, j), p, 1, 1024); ok {
							a.Paths = append(a.Paths, s)
						}
					}
				}
			}
			out = append(out, Skill{AWSSkills: a})
		}
	}
	return out
}

// Limits are the per-invocation limits `maxIterations`, `maxTokens` (output tokens of the whole invocation) and
// `timeoutSeconds`; nil means unset.
type Limits struct {
	MaxIterations  *int32
	MaxTokens      *int32
	TimeoutSeconds *int32
}

// ParseLimits validates the limit members present in m (a decoded request object). Errors: *ValidationError.
func ParseLimits(m map[string]json.RawMessage) (Limits, error) {
	var c checker
	l := c.limits(m)
	return l, c.err()
}

func (c *checker) limits(m map[string]json.RawMessage) Limits {
	var l Limits
	if v, ok := present(m, "maxIterations"); ok {
		l.MaxIterations, _ = c.integer("maxIterations", v, 1, MaxIterationsLimit)
	}
	if v, ok := present(m, "maxTokens"); ok {
		l.MaxTokens, _ = c.integer("maxTokens", v, 1, MaxTokensLimit)
	}
	if v, ok := present(m, "timeoutSeconds"); ok {
		l.TimeoutSeconds, _ = c.integer("timeoutSeconds", v, 1, MaxTimeoutSeconds)
	}
	return l
}
