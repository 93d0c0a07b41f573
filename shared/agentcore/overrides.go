package agentcore

import "encoding/json"

// InvokeOverrides are the per-invocation overrides of an InvokeHarness body (docs/agentcore.md §3.2): each set
// member replaces the harness version's member for that call only and changes nothing saved. Model nil, SystemPrompt/Tools/AllowedTools with their *Set flag false, and nil limits mean absent; `tools`
// replaces the harness tools whole (an empty list = no tools).
type InvokeOverrides struct {
	Model           *ModelConfig
	SystemPrompt    []SystemContentBlock
	SystemPromptSet bool
	Tools           []Tool
	ToolsSet        bool
	AllowedTools    []string
	AllowedToolsSet bool
	Limits          Limits
}

// ParseInvokeOverrides validates the override members present in m (a decoded InvokeHarness body) with the same
// rules as CreateHarness: model, systemPrompt, tools, allowedTools, maxIterations, maxTokens, timeoutSeconds. A
// non-empty `skills` override is rejected by name (Baton fetches no skills). Other members are not looked at.
// Errors: *ValidationError naming every offending member.
func ParseInvokeOverrides(m map[string]json.RawMessage) (InvokeOverrides, error) {
	var c checker
	var o InvokeOverrides
	if v, ok := present(m, "model"); ok {
		mc := c.model("model", v)
		o.Model = &mc
	}
	if v, ok := present(m, "systemPrompt"); ok {
		o.SystemPrompt, o.SystemPromptSet = c.systemPrompt("systemPrompt", v), true
	}
	if v, ok := present(m, "tools"); ok {
		o.Tools, o.ToolsSet = c.tools("tools", v), true
		if o.Tools == nil {
			o.Tools = []Tool{}
		}
	}
	if v, ok := present(m, "allowedTools"); ok {
		o.AllowedTools, o.AllowedToolsSet = c.allowedTools("allowedTools", v), true
	}
	if v, ok := present(m, "skills"); ok {
		if l, ok := c.list("skills", v); ok && len(l) > 0 {
			c.fail("skills", "skills overrides are not supported by Baton")
		}
	}
	o.Limits = c.limits(m)
	return o, c.err()
}

// Apply returns h with the overrides in force (h itself is not changed).
func (o InvokeOverrides) Apply(h HarnessConfig) HarnessConfig {
	if o.Model != nil {
		h.Model = *o.Model
	}
	if o.SystemPromptSet {
		h.SystemPrompt = o.SystemPrompt
	}
	if o.ToolsSet {
		h.Tools = o.Tools
	}
	if o.AllowedToolsSet {
		h.AllowedTools = o.AllowedTools
	}
	if o.Limits.MaxIterations != nil {
		h.MaxIterations = o.Limits.MaxIterations
	}
	if o.Limits.MaxTokens != nil {
		h.MaxTokens = o.Limits.MaxTokens
	}
	if o.Limits.TimeoutSeconds != nil {
		h.TimeoutSeconds = o.Limits.TimeoutSeconds
	}
	return h
}
