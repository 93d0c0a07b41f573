package profile

import (
	"fmt"
	"slices"
)

// Support says whether a harness kind supports one operation or limit. The zero value is invalid: every Profile
// field of this type must be set explicitly (docs/agents-api.md §5.2: every capability field is
// declared Supported or Unsupported; the zero value is invalid).
type Support uint8

// Support values.
const (
	// Invalid is the zero value: a declaration that forgot the field.
	Invalid Support = iota
	// Supported: the harness kind qualifies the operation.
	Supported
	// Unsupported: Session admission rejects the operation for this harness kind.
	Unsupported
)

// OK reports whether s is Supported.
func (s Support) OK() bool { return s == Supported }

func (s Support) String() string {
	switch s {
	case Supported:
		return "supported"
	case Unsupported:
		return "unsupported"
	default:
		return "invalid"
	}
}

// Harness kinds (docs/decisions.md §1: x_baton.harness; default Baton).
const (
	Baton     = "baton"
	Codex     = "codex"
	ClaudeSDK = "claude_sdk"
	MCode     = "mcode"
)

// Placements (docs/agents-api.md §5.1): where a harness runs its workspace. Baton runs Environment `none`
// only (docs/decisions.md §3).
const (
	PlacementNone         = "none"
	PlacementOpenAIHosted = "openai_hosted"
	PlacementSelfHosted   = "self_hosted"
)

// AnyName is the pattern of a profile that constrains no MCP label or tool name (any nonempty string).
const AnyName = `^(?s:.+)$`

// Profile is what one harness kind supports (docs/agents-api.md §5.2 and the per-harness lines of §3). Each
// Support field reads "the kind supports …"; Unsupported means Session admission rejects it with 400
// unsupported_or_invalid_configuration. Pattern fields are Go regular expressions a value must match (AnyName =
// unconstrained); ReservedMCPLabels are labels the kind rejects (empty = none); Placements is non-empty.
type Profile struct {
	// Kind is the harness kind (x_baton.harness).
	Kind string
	// Runtime: Baton hosts a runtime of this kind (docs/decisions.md §2); only a kind with a runtime can execute.
	Runtime Support
	// Placements are the environment placements the kind runs in.
	Placements []string

	// Functions: public function tools (§3.1; MiniMax Code rejects them).
	Functions Support
	// FunctionSchemaWithoutObjectRoot: function `parameters` without an explicit root `type:"object"` (Claude
	// requires it explicitly).
	FunctionSchemaWithoutObjectRoot Support
	// FunctionResultImages: image parts in function results.
	FunctionResultImages Support

	// ToolSearch: deferred function discovery with `tool_search` (§3.2).
	ToolSearch Support
	// ToolSearchWithMCP: tool_search together with HTTP MCP tools.
	ToolSearchWithMCP Support
	// ToolSearchWithStructuredOutput: tool_search together with text.format json_schema.
	ToolSearchWithStructuredOutput Support

	// StructuredOutput: text.format json_schema (§3.6).
	StructuredOutput Support
	// StructuredOutputWithoutObjectRoot: a schema without an explicit root `type:"object"` (Claude requires it).
	StructuredOutputWithoutObjectRoot Support
	// StructuredOutputInexactNumbers: schema numbers that change when parsed as IEEE-754 binary64 (Claude's SDK
	// reads JSON numbers as binary64, so it rejects them).
	StructuredOutputInexactNumbers Support
	// StructuredOutputWithMCP: structured output together with HTTP MCP tools.
	StructuredOutputWithMCP Support

	// WebSearchControl: the kind has a native web search that the runtime must be told to disable (the
	// `web_search_control` runtime capability, Codex). Execution admits only `mode:"disabled"` for every kind.
	WebSearchControl Support
	// ProgrammaticToolCallingDisable: an explicit `{type:"programmatic_tool_calling", enabled:false}` (§3.4).
	ProgrammaticToolCallingDisable Support

	// MCPServiceOrigin, MCPEnvironmentOrigin: HTTP MCP with connection_origin service / environment (§3.5).
	MCPServiceOrigin     Support
	MCPEnvironmentOrigin Support
	// MCPBearer: bearer authentication from a selected Vault credential.
	MCPBearer Support
	// MCPRequired: `required: true` (wait for the server's initialization).
	MCPRequired Support
	// MCPAllowedTools: a non-null `allowed_tools` filter (MiniMax Code requires null).
	MCPAllowedTools Support
	// MCPLabelPattern: every server_label must match it.
	MCPLabelPattern string
	// MCPToolNamePattern: every allowed_tools entry must match it.
	MCPToolNamePattern string
	// ReservedMCPLabels: server_labels the kind reserves for itself.
	ReservedMCPLabels []string

	// MessageImages: inline PNG/JPEG image parts in input messages.
	MessageImages Support
	// WhitespaceOnlyText: input message text that is only whitespace (delivered unchanged).
	WhitespaceOnlyText Support
	// TextVerbosity: text.verbosity other than "medium" (the `text_verbosity` runtime control).
	TextVerbosity Support
	// Subagents: multi_agent.enabled true.
	Subagents Support
	// ExplicitReasoning: reasoning.effort or reasoning.summary set (no kind qualifies it, §3.7).
	ExplicitReasoning Support
	// ServiceTierOtherThanAuto: service_tier other than "auto" (no kind qualifies it, §3.7).
	ServiceTierOtherThanAuto Support
}

// profiles are the declarations, one per harness kind (docs/agents-api.md §5.2,
// what each profile admits; `baton` is ours: what the baton harness and runtime do end to end).
var profiles = map[string]Profile{
	Baton: {
		Kind:       Baton,
		Runtime:    Supported,
		Placements: []string{PlacementNone},

		Functions:                       Supported,
		FunctionSchemaWithoutObjectRoot: Supported,
		FunctionResultImages:            Unsupported,

		ToolSearch:                     Supported,
		ToolSearchWithMCP:              Unsupported,
		ToolSearchWithStructuredOutput: Supported,

		StructuredOutput:                  Supported,
		StructuredOutputWithoutObjectRoot: Supported,
		StructuredOutputInexactNumbers:    Supported,
		StructuredOutputWithMCP:           Supported,

		WebSearchControl:               Unsupported,
		ProgrammaticToolCallingDisable: Supported,

		MCPServiceOrigin:     Supported,
		MCPEnvironmentOrigin: Unsupported,
		MCPBearer:            Supported,
		MCPRequired:          Supported,
		MCPAllowedTools:      Supported,
		MCPLabelPattern:      AnyName,
		MCPToolNamePattern:   AnyName,
		ReservedMCPLabels:    []string{},

		MessageImages:            Unsupported,
		WhitespaceOnlyText:       Supported,
		TextVerbosity:            Unsupported,
		Subagents:                Unsupported,
		ExplicitReasoning:        Unsupported,
		ServiceTierOtherThanAuto: Unsupported,
	},
	Codex: {
		Kind:       Codex,
		Runtime:    Unsupported,
		Placements: []string{PlacementNone, PlacementSelfHosted, PlacementOpenAIHosted},

		Functions:                       Supported,
		FunctionSchemaWithoutObjectRoot: Supported,
		FunctionResultImages:            Supported,

		ToolSearch:                     Unsupported,
		ToolSearchWithMCP:              Unsupported,
		ToolSearchWithStructuredOutput: Unsupported,

		StructuredOutput:                  Unsupported,
		StructuredOutputWithoutObjectRoot: Unsupported,
		StructuredOutputInexactNumbers:    Unsupported,
		StructuredOutputWithMCP:           Unsupported,

		WebSearchControl:               Supported,
		ProgrammaticToolCallingDisable: Supported,

		MCPServiceOrigin:     Supported,
		MCPEnvironmentOrigin: Supported,
		MCPBearer:            Supported,
		MCPRequired:          Supported,
		MCPAllowedTools:      Supported,
		MCPLabelPattern:      AnyName,
		MCPToolNamePattern:   AnyName,
		// Codex rejects "reserved native labels"; the list is not documented (§5.2), so none is declared here.
		ReservedMCPLabels: []string{},

		MessageImages:            Supported,
		WhitespaceOnlyText:       Supported,
		TextVerbosity:            Supported,
		Subagents:                Supported,
		ExplicitReasoning:        Unsupported,
		ServiceTierOtherThanAuto: Unsupported,
	},
	ClaudeSDK: {
		Kind:       ClaudeSDK,
		Runtime:    Unsupported,
		Placements: []string{PlacementNone, PlacementOpenAIHosted, PlacementSelfHosted},

		Functions:                       Supported,
		FunctionSchemaWithoutObjectRoot: Unsupported,
		FunctionResultImages:            Supported,

		ToolSearch:                     Supported,
		ToolSearchWithMCP:              Unsupported,
		ToolSearchWithStructuredOutput: Unsupported,

		StructuredOutput:                  Supported,
		StructuredOutputWithoutObjectRoot: Unsupported,
		StructuredOutputInexactNumbers:    Unsupported,
		StructuredOutputWithMCP:           Unsupported,

		WebSearchControl:               Unsupported,
		ProgrammaticToolCallingDisable: Supported,

		MCPServiceOrigin:     Supported,
		MCPEnvironmentOrigin: Supported,
		MCPBearer:            Supported,
		MCPRequired:          Supported,
		MCPAllowedTools:      Supported,
		MCPLabelPattern:      `^[A-Za-z0-9_-]+$`,
		MCPToolNamePattern:   `^[A-Za-z0-9_.-]+$`,
		ReservedMCPLabels:    []string{"functions"},

		MessageImages:            Supported,
		WhitespaceOnlyText:       Unsupported,
		TextVerbosity:            Unsupported,
		Subagents:                Supported,
		ExplicitReasoning:        Unsupported,
		ServiceTierOtherThanAuto: Unsupported,
	},
	MCode: {
		Kind:       MCode,
		Runtime:    Unsupported,
		Placements: []string{PlacementNone, PlacementOpenAIHosted, PlacementSelfHosted},

		Functions:                       Unsupported,
		FunctionSchemaWithoutObjectRoot: Unsupported,
		FunctionResultImages:            Unsupported,

		ToolSearch:                     Unsupported,
		ToolSearchWithMCP:              Unsupported,
		ToolSearchWithStructuredOutput: Unsupported,

		StructuredOutput:                  Unsupported,
		StructuredOutputWithoutObjectRoot: Unsupported,
		StructuredOutputInexactNumbers:    Unsupported,
		StructuredOutputWithMCP:           Unsupported,

		WebSearchControl:               Unsupported,
		ProgrammaticToolCallingDisable: Supported,

		MCPServiceOrigin:     Unsupported,
		MCPEnvironmentOrigin: Supported,
		MCPBearer:            Supported,
		MCPRequired:          Unsupported,
		MCPAllowedTools:      Unsupported,
		MCPLabelPattern:      AnyName,
		MCPToolNamePattern:   AnyName,
		ReservedMCPLabels:    []string{"oac_workspace"},

		MessageImages:            Unsupported,
		WhitespaceOnlyText:       Unsupported,
		TextVerbosity:            Unsupported,
		Subagents:                Supported,
		ExplicitReasoning:        Unsupported,
		ServiceTierOtherThanAuto: Unsupported,
	},
}

// Kinds lists the harness kinds that have a profile, Baton first.
func Kinds() []string { return []string{Baton, Codex, ClaudeSDK, MCode} }

// Of returns the profile of a harness kind ("" = Baton); ok is false for a kind without one.
func Of(kind string) (Profile, bool) {
	if kind == "" {
		kind = Baton
	}
	p, ok := profiles[kind]
	if !ok {
		return Profile{}, false
	}
	p.Placements = slices.Clone(p.Placements)
	p.ReservedMCPLabels = slices.Clone(p.ReservedMCPLabels)
	return p, true
}

// Reserved reports whether label is one of the kind's reserved MCP labels.
func (p Profile) Reserved(label string) bool { return slices.Contains(p.ReservedMCPLabels, label) }

// HasPlacement reports whether the kind runs in the given placement.
func (p Profile) HasPlacement(placement string) bool { return slices.Contains(p.Placements, placement) }

// Check verifies the declaration invariants of docs/agents-api.md §5.2 beyond field completeness: a
// service MCP origin needs placement none, an environment origin a workspace placement, bearer auth at least one
// origin, and placements are non-empty. It returns the first violation.
func (p Profile) Check() error {
	if len(p.Placements) == 0 {
		return fmt.Errorf("profile %s: no placements", p.Kind)
	}
	if p.MCPServiceOrigin.OK() && !p.HasPlacement(PlacementNone) {
		return fmt.Errorf("profile %s: service-origin MCP requires placement none", p.Kind)
	}
	if p.MCPEnvironmentOrigin.OK() && !p.HasPlacement(PlacementOpenAIHosted) && !p.HasPlacement(PlacementSelfHosted) {
		return fmt.Errorf("profile %s: environment-origin MCP requires a workspace placement", p.Kind)
	}
	if p.MCPBearer.OK() && !p.MCPServiceOrigin.OK() && !p.MCPEnvironmentOrigin.OK() {
		return fmt.Errorf("profile %s: MCP bearer auth requires an MCP origin", p.Kind)
	}
	return nil
}
