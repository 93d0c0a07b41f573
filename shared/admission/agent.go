package admission

import (
	"encoding/json"
	"net/url"

	"github.com/baton-run/baton/shared/agent"
)

// Limits of an Agent's members (docs/agents-api.md §2.1, §W3.1).
const (
	MaxNameChars          = 128
	MaxMetadataPairs      = 16
	MaxMetadataKeyChars   = 64
	MaxMetadataValueChars = 512
	// DefaultMaxSubagents is max_concurrent_subagents when multi_agent is enabled without a number.
	DefaultMaxSubagents = 6
)

// Harness kinds and model provider protocols of the x_baton extension (docs/decisions.md §1).
var (
	HarnessKinds           = []string{"baton", "codex", "claude_sdk", "mcode"}
	ModelProviderProtocols = agent.ModelProtocols
)

// agentShape says which Agent members an object may carry.
type agentShape int

const (
	savedAgent  agentShape = iota // POST /v1/agents and POST /v1/agents/{id} (BetaAgentNewParams)
	inlineAgent                   // a Session's inline `agent` (BetaAgentSessionNewParamsAgent)
)

// configMembers is the validated, normalized form of an Agent-shaped object: each supplied member's saved JSON
// (`null` where the caller sent null), keyed by member name, plus the decoded extension.
type configMembers struct {
	values map[string]json.RawMessage
	ext    *agent.Extension
	tools  []json.RawMessage
}

// parseAgentMembers validates an Agent-shaped object at path (Stage A): unknown members, then `tools`, then the
// other members in document order, then `model` when required, then the cross-declaration tool checks and the
// text.format schema root (docs/agents-api.md §3 order: tools before text, duplicate/schema checks last).
func parseAgentMembers(path string, raw []byte, shape agentShape, requireModel bool) (configMembers, error) {
	o, err := decodeObject(path, raw)
	if err != nil {
		return configMembers{}, err
	}
	allowed := []string{"model", "instructions", "tools", "text", "reasoning", "service_tier", "multi_agent", "compaction", "experimental", "x_baton"}
	if shape == savedAgent {
		allowed = append(allowed, "name", "metadata")
	}
	for _, k := range o.keys {
		if !contains(allowed, k) {
			return configMembers{}, unknown(join(path, k))
		}
	}
	cm := configMembers{values: map[string]json.RawMessage{}}
	var decls []decl
	if raw, ok := o.values["tools"]; ok {
		tools, d, err := parseToolList(join(path, "tools"), raw, shape == inlineAgent)
		if err != nil {
			return configMembers{}, err
		}
		decls, cm.tools = d, tools
		if isNull(raw) {
			cm.values["tools"] = json.RawMessage("null")
		} else {
			cm.values["tools"] = mustMarshal(nonNil(tools))
		}
	}
	for _, k := range o.keys {
		if k == "tools" {
			continue
		}
		p, v := join(path, k), o.values[k]
		var saved json.RawMessage
		switch k {
		case "name":
			err = checkName(p, v)
			saved = compact(v)
		case "model":
			err = checkModel(p, v)
			saved = compact(v)
		case "instructions":
			err = checkString(true)(p, v)
			saved = compact(v)
		case "metadata":
			var m map[string]string
			m, err = parseMetadata(p, v)
			saved = mustMarshal(m)
		case "text":
			saved, err = parseText(p, v)
		case "reasoning":
			saved, err = parseReasoning(p, v)
		case "service_tier":
			err = checkEnum(true, "auto", "default", "flex", "priority", "fast", "ultrafast")(p, v)
			saved = compact(v)
		case "multi_agent":
			saved, err = parseMultiAgent(p, v)
		case "compaction":
			saved, err = parseFlagObject(p, v, "async", true)
		case "experimental":
			saved, err = parseFlagObject(p, v, "time_awareness", false)
		case "x_baton":
			cm.ext, err = parseExtension(p, v)
			if err == nil && shape == savedAgent && cm.ext != nil {
				// A saved script is plain data: check it now rather than at the first turn (Stage B checks
				// the effective configuration's script again when it selects the scripted model).
				err = checkScript(join(p, "script"), cm.ext.Script)
			}
			saved = json.RawMessage("null")
			if cm.ext != nil {
				saved = mustMarshal(cm.ext)
			}
		}
		if err != nil {
			return configMembers{}, err
		}
		cm.values[k] = saved
	}
	if requireModel && !o.has("model") {
		return configMembers{}, missing(join(path, "model"))
	}
	if err := checkToolSet(decls); err != nil {
		return configMembers{}, err
	}
	if text, ok := cm.values["text"]; ok {
		if err := checkTextSchema(join(path, "text.format.schema"), text); err != nil {
			return configMembers{}, err
		}
	}
	return cm, nil
}

// apply sets the supplied members on cfg: each replaces the member whole; null clears it (name, instructions,
// metadata, tools, x_baton) or restores its default (text, reasoning, service_tier, multi_agent, compaction,
// experimental).
func (cm configMembers) apply(cfg agent.Config) agent.Config {
	for k, v := range cm.values {
		null := isNull(v)
		switch k {
		case "name":
			cfg.Name = nil
			if !null {
				s := str(v)
				cfg.Name = &s
			}
		case "model":
			cfg.Model = str(v)
		case "instructions":
			cfg.Instructions = nil
			if !null {
				s := str(v)
				cfg.Instructions = &s
			}
		case "metadata":
			var m map[string]string
			_ = json.Unmarshal(v, &m)
			if len(m) == 0 {
				m = nil
			}
			cfg.Metadata = m
		case "tools":
			cfg.Tools = cm.tools
		case "text":
			cfg.Text = rawUnlessNull(v)
		case "reasoning":
			cfg.Reasoning = rawUnlessNull(v)
		case "service_tier":
			cfg.ServiceTier = ""
			if !null {
				cfg.ServiceTier = str(v)
			}
		case "multi_agent":
			cfg.MultiAgent = rawUnlessNull(v)
		case "compaction":
			cfg.Compaction = rawUnlessNull(v)
		case "experimental":
			cfg.Experimental = rawUnlessNull(v)
		case "x_baton":
			cfg.XBaton = cm.ext
		}
	}
	return cfg
}

// AgentCreate validates a POST /v1/agents body (a JSON object) and returns the configuration to save. `model` is
// required and nonempty; an `x_baton.script` must parse as a scripted-model script (param x_baton.script). Errors are 400 *engine.Error values (docs/agents-api.md §3 Stage A).
func AgentCreate(body []byte) (agent.Config, error) {
	cm, err := parseAgentMembers("", body, savedAgent, true)
	if err != nil {
		return agent.Config{}, err
	}
	return cm.apply(agent.Config{}), nil
}

// AgentUpdate validates a POST /v1/agents/{agent_id} body and returns the partial replacement to apply to the
// stored configuration: supplied members replace the whole member, null name/instructions clear them, null or {}
// metadata clears it; an empty body changes nothing (only updated_at moves). It validates before any lookup, so
// owned, foreign and missing ids get the same validation error (docs/agents-api.md §1.2).
func AgentUpdate(body []byte) (func(agent.Config) (agent.Config, error), error) {
	cm, err := parseAgentMembers("", body, savedAgent, false)
	if err != nil {
		return nil, err
	}
	return func(c agent.Config) (agent.Config, error) { return cm.apply(c), nil }, nil
}

// checkModel validates `model`: a nonempty string (OpenAI's minimum length 1).
func checkModel(path string, raw json.RawMessage) error {
	if err := checkString(false)(path, raw); err != nil {
		return err
	}
	if str(raw) == "" {
		return invalid(path, "Invalid '%s': empty string. Expected a string with minimum length 1, but got an empty string instead.", path)
	}
	return nil
}

func checkName(path string, raw json.RawMessage) error {
	if err := checkString(true)(path, raw); err != nil {
		return err
	}
	if n := runeCount(str(raw)); n > MaxNameChars {
		return invalid(path, "Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", path, MaxNameChars, n)
	}
	return nil
}

// parseMetadata validates `metadata`: an object of at most 16 string pairs, keys ≤ 64 and values ≤ 512
// characters; null and {} both mean none (nil).
func parseMetadata(path string, raw json.RawMessage) (map[string]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	if len(o.keys) > MaxMetadataPairs {
		return nil, invalid(path, "Invalid '%s': too many properties. Expected an object with at most %d properties, but got an object with %d properties instead.", path, MaxMetadataPairs, len(o.keys))
	}
	m := map[string]string{}
	for _, k := range o.keys {
		if n := runeCount(k); n > MaxMetadataKeyChars {
			return nil, invalid(path, "Invalid '%s': key too long. Expected a key with maximum length %d, but got a key with length %d instead.", path, MaxMetadataKeyChars, n)
		}
		v := o.values[k]
		if kindOf(v) != kindString {
			return nil, invalidType(join(path, k), "a string", v)
		}
		if n := runeCount(str(v)); n > MaxMetadataValueChars {
			return nil, invalid(join(path, k), "Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", join(path, k), MaxMetadataValueChars, n)
		}
		m[k] = str(v)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// parseText validates `text` {format, verbosity}; saved form {format (default {type:"text"}), verbosity (default
// "medium")}. format is {type:"text"} or {type:"json_schema", schema:{…}} with no name/strict wrapper.
func parseText(path string, raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	var format json.RawMessage = json.RawMessage(`{"type":"text"}`)
	err = checkObject(path, o, []member{
		{name: "format", check: func(p string, v json.RawMessage) error {
			f, err := parseTextFormat(p, v)
			if err == nil && f != nil {
				format = f
			}
			return err
		}},
		{name: "verbosity", check: checkEnum(true, "low", "medium", "high")},
	})
	if err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{"format": format, "verbosity": stringOr(o.values["verbosity"], "medium")}), nil
}

func parseTextFormat(path string, raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	t, ok := o.values["type"]
	if !ok {
		return nil, missing(join(path, "type"))
	}
	if err := checkEnum(false, "text", "json_schema")(join(path, "type"), t); err != nil {
		return nil, err
	}
	if str(t) == "text" {
		if err := checkObject(path, o, []member{{name: "type"}}); err != nil {
			return nil, err
		}
		return json.RawMessage(`{"type":"text"}`), nil
	}
	err = checkObject(path, o, []member{{name: "type"}, {name: "schema", required: true, check: checkSchemaObject}})
	if err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{"type": "json_schema", "schema": compact(o.values["schema"])}), nil
}

// checkTextSchema applies the structured-output schema checks to a saved `text` member: an explicit string root
// type other than "object" (docs/agents-api.md §3.6, same message on Agent and Session requests), then
// compilation.
func checkTextSchema(path string, text json.RawMessage) error {
	var t struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	}
	if json.Unmarshal(text, &t) != nil || t.Format.Type != "json_schema" {
		return nil
	}
	if rt, ok := rootType(t.Format.Schema); ok && rt != "object" {
		return invalid("", `agent.text.format.schema must have top-level type "object"; got "%s"`, rt)
	}
	if msg, ok := compileSchema(t.Format.Schema); !ok {
		return invalid(path, "Invalid schema for text.format: %s", msg)
	}
	return nil
}

func parseReasoning(path string, raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	err = checkObject(path, o, []member{
		{name: "effort", check: checkEnum(true, "none", "minimal", "low", "medium", "high", "xhigh", "max")},
		{name: "summary", check: checkEnum(true, "concise", "detailed", "auto")},
	})
	if err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{"effort": rawOrNull(o.values["effort"]), "summary": rawOrNull(o.values["summary"])}), nil
}

func parseMultiAgent(path string, raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	err = checkObject(path, o, []member{
		{name: "enabled", required: true, check: checkBool(false)},
		{name: "max_concurrent_subagents", check: checkInteger(true, 1)},
	})
	if err != nil {
		return nil, err
	}
	enabled := boolOr(o.values["enabled"], false)
	var n int64
	if v, ok := o.values["max_concurrent_subagents"]; ok && !isNull(v) {
		_ = json.Unmarshal(v, &n)
	} else if enabled {
		n = DefaultMaxSubagents
	}
	return mustMarshal(map[string]any{"enabled": enabled, "max_concurrent_subagents": n}), nil
}

// parseFlagObject validates an object with one optional boolean member (compaction.async,
// experimental.time_awareness) and returns it with the default filled in.
func parseFlagObject(path string, raw json.RawMessage, name string, d bool) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	if err := checkObject(path, o, []member{{name: name, check: checkBool(true)}}); err != nil {
		return nil, err
	}
	return mustMarshal(map[string]bool{name: boolOr(o.values[name], d)}), nil
}

// parseExtension validates the `x_baton` object (docs/decisions.md §1): only harness, model_provider and script;
// null means none.
func parseExtension(path string, raw json.RawMessage) (*agent.Extension, error) {
	if isNull(raw) {
		return nil, nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	ext := &agent.Extension{}
	err = checkObject(path, o, []member{
		{name: "harness", check: checkEnum(true, HarnessKinds...)},
		{name: "model_provider", check: func(p string, v json.RawMessage) error {
			mp, err := parseModelProvider(p, v)
			ext.ModelProvider = mp
			return err
		}},
		{name: "script", check: func(p string, v json.RawMessage) error {
			if k := kindOf(v); k != kindObject && k != kindArray && k != kindNull {
				return invalidType(p, "an object", v)
			}
			return nil
		}},
	})
	if err != nil {
		return nil, err
	}
	ext.Harness = stringOr(o.values["harness"], "")
	if s, ok := o.values["script"]; ok && !isNull(s) {
		ext.Script = compact(s)
	}
	return ext, nil
}

func parseModelProvider(path string, raw json.RawMessage) (*agent.ModelProvider, error) {
	if isNull(raw) {
		return nil, nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	err = checkObject(path, o, []member{
		{name: "protocol", required: true, check: checkEnum(false, ModelProviderProtocols...)},
		{name: "model", check: checkString(true)},
		{name: "base_url", check: checkBaseURL},
		{name: "api_key", check: checkString(true)},
	})
	if err != nil {
		return nil, err
	}
	// A provider that takes no endpoint or key of the caller's is refused when the Agent is saved, not at its first
	// turn (docs/model-providers.md "Protocols").
	proto := str(o.values["protocol"])
	for _, m := range []string{"base_url", "api_key", "model"} {
		v, ok := o.values[m]
		if !ok || isNull(v) {
			continue
		}
		if (proto == agent.ProtocolScripted) || (proto == "bedrock_converse" && m != "model") {
			p := join(path, m)
			return nil, invalid(p, "Invalid '%s': the %s model provider takes no %s.", p, proto, m)
		}
	}
	return &agent.ModelProvider{
		Protocol: str(o.values["protocol"]),
		Model:    stringOr(o.values["model"], ""),
		BaseURL:  stringOr(o.values["base_url"], ""),
		APIKey:   stringOr(o.values["api_key"], ""),
	}, nil
}

func checkBaseURL(path string, raw json.RawMessage) error {
	if err := checkString(true)(path, raw); err != nil || isNull(raw) {
		return err
	}
	u, err := url.Parse(str(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return invalid(path, "Invalid '%s': expected an absolute http or https URL without credentials.", path)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func nonNil(t []json.RawMessage) []json.RawMessage {
	if t == nil {
		return []json.RawMessage{}
	}
	return t
}

func rawUnlessNull(v json.RawMessage) json.RawMessage {
	if isNull(v) {
		return nil
	}
	return v
}
