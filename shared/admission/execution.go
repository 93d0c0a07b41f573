package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/profile"
)

// Execution limits of Session admission (docs/agents-api.md §3.1: local execution bounds; saved Agents accept
// more).
const (
	MaxExecutionFunctions   = 64
	MaxFunctionNameBytes    = 512
	defaultTextVerbosity    = "medium"
	defaultServiceTier      = "auto"
	unsupportedToolMessage  = "Unsupported execution tool; supported tools include functions, qualified tool_search, qualified HTTP MCP and explicit disabled controls."
	mcpURLMessage           = "MCP server_url must be an absolute HTTP(S) URL without credentials, query or fragment."
	mcpDeclarationMessage   = "The configured engine does not support this HTTP MCP declaration."
	mcpMinimaxMessage       = "The configured engine requires an unreserved MCP label, allowed_tools=null and required=false."
	subagentsWithToolsMsg   = "Subagents are not qualified together with functions or MCP tools."
	toolDiscoveryClaudeMsg  = "Tool discovery requires a single-agent function profile without Skills or Plugins."
	discoveryNeedsBothMsg   = "Qualified discovery requires tool search and deferred functions."
	structuredOutputOnlyMsg = "Structured output is qualified only with functions and disabled web_search and programmatic tool calling."
)

// executionFunctionFields is the Stage B field set of a function declaration (docs/agents-api.md §3.1); the
// saved form's `async: false` is its default and counts as absent.
var executionFunctionFields = []string{"type", "name", "description", "parameters", "defer_loading"}

// Execution is Stage B of docs/agents-api.md §3: execution admission of a Session's effective configuration
// (saved Agent + inline replacements) against the profile of its harness kind (x_baton.harness, default baton;
// package profile). It implements engine.Admission; the engine calls it at Session creation before anything is
// written. Every rejection is 400 unsupported_or_invalid_configuration with a null param and the message of the
// checklist line (docs/agents-api.md §3); the one exception is a scripted-model script that does not parse, a
// caller error reported as 400 invalid_request_error. The zero value is ready to use and safe for concurrent use.
type Execution struct{}

var _ engine.Admission = Execution{}

// AdmitSession qualifies cfg for execution, or returns the first violated rule as an *engine.Error. Checks run in
// this order: a model provider is selected (400 invalid_request_error, param agent.x_baton.model_provider; see
// checkModelProvider), the scripted model's script (400 invalid_request_error, param agent.x_baton.script, when cfg selects
// the scripted model; see checkScript), harness kind, tools in declaration order (per-type rules), cross-tool rules (counts, names,
// discovery, controls, MCP labels, combinations), text (structured output, verbosity), reasoning, service_tier.
func (Execution) AdmitSession(cfg agent.Config) error {
	if err := checkModelProvider(cfg); err != nil {
		return err
	}
	if err := checkExecutionScript(cfg); err != nil {
		return err
	}
	p, ok := profile.Of(cfg.HarnessKind())
	if !ok {
		return unsupported("Harness %s is not supported.", cfg.HarnessKind())
	}
	x := execution{p: p, cfg: cfg, text: profile.TextOf(cfg), labels: map[string]bool{}}
	for _, raw := range cfg.Tools {
		if err := x.tool(raw); err != nil {
			return err
		}
	}
	for _, check := range []func() error{x.toolSet, x.textRules, x.otherRules} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// execution is the state of one AdmitSession call.
type execution struct {
	p    profile.Profile
	cfg  agent.Config
	text profile.Text

	functions, deferred, toolSearches, controls int
	names                                       map[string]bool
	badName                                     bool
	mcp                                         int
	labels                                      map[string]bool
}

func (x *execution) harnessRejects(what string) error {
	return unsupported("Harness %s does not support the requested Agent/environment configuration: %s is not qualified for this engine.", x.p.Kind, what)
}

// tool applies the per-declaration rules of §3.1–3.5 and §3.7 (unknown tool types).
func (x *execution) tool(raw json.RawMessage) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return unsupported(unsupportedToolMessage)
	}
	var typ string
	_ = json.Unmarshal(members["type"], &typ)
	switch typ {
	case ToolFunction:
		return x.function(members)
	case ToolSearch:
		x.toolSearches++
		if len(members) != 1 {
			return unsupported("Execution requires one type-only tool_search declaration.")
		}
		return nil
	case ToolWebSearch:
		if str(members["mode"]) != "disabled" {
			return unsupported("Only disabled web_search is qualified for execution.")
		}
		return nil
	case ToolProgrammaticToolCalling:
		if string(bytes.TrimSpace(members["enabled"])) != "false" {
			return unsupported("Programmatic tool calling is not qualified for execution.")
		}
		if x.controls++; x.controls > 1 {
			return unsupported("Execution requires distinct tool controls.")
		}
		if !x.p.ProgrammaticToolCallingDisable.OK() {
			return x.harnessRejects("Programmatic tool calling control")
		}
		return nil
	case ToolMCP:
		return x.mcpServer(members)
	default:
		return unsupported(unsupportedToolMessage)
	}
}

// function applies §3.1's Stage B lines to one declaration; the count and name rules run in toolSet.
func (x *execution) function(m map[string]json.RawMessage) error {
	if !x.p.Functions.OK() {
		return unsupported("The configured engine does not support public functions.")
	}
	for k, v := range m {
		if k == "async" && string(bytes.TrimSpace(v)) == "false" {
			continue
		}
		if !containsString(executionFunctionFields, k) {
			return unsupported("Invalid execution function fields.")
		}
	}
	x.functions++
	if string(bytes.TrimSpace(m["defer_loading"])) == "true" {
		x.deferred++
	}
	name, ok := jsonString(m["name"])
	if x.names == nil {
		x.names = map[string]bool{}
	}
	if !ok || strings.TrimSpace(name) == "" || len(name) > MaxFunctionNameBytes || x.names[name] {
		x.badName = true
	}
	x.names[name] = true
	if !x.p.FunctionSchemaWithoutObjectRoot.OK() {
		if t, ok := rootType(m["parameters"]); !ok || t != "object" {
			return unsupported("The configured engine currently requires function schemas with root type object.")
		}
	}
	return nil
}

// mcpServer applies §3.5's Stage B lines to one declaration; label uniqueness is checked as labels arrive.
func (x *execution) mcpServer(m map[string]json.RawMessage) error {
	x.mcp++
	label, ok := jsonString(m["server_label"])
	if !ok || strings.TrimSpace(label) == "" {
		return unsupported("MCP tools require type=mcp and a nonempty server_label.")
	}
	if x.labels[label] {
		return unsupported("Execution requires distinct MCP server labels.")
	}
	x.labels[label] = true
	var tr map[string]json.RawMessage
	if json.Unmarshal(m["transport"], &tr) != nil || str(tr["type"]) != "http" {
		return unsupported("MCP currently supports HTTP transport only.")
	}
	serverURL, _ := jsonString(tr["server_url"])
	if !validMCPURL(serverURL) {
		return unsupported(mcpURLMessage)
	}
	if nonEmptyObject(tr["headers"]) {
		return unsupported("Nonempty MCP headers are not supported yet.")
	}
	if _, ok := tr["authorization"]; ok && !isNull(tr["authorization"]) {
		return unsupported("Inline MCP authorization is not supported yet.")
	}
	if nonEmptyObject(m["request_metadata"]) {
		return unsupported("Nonempty MCP request_metadata is not supported yet.")
	}
	if c, ok := m["credential_id"]; ok && !isNull(c) {
		if s, ok := jsonString(c); !ok || s == "" {
			return unsupported("MCP credential_id must be null or a nonempty string.")
		}
	}
	var allowed []json.RawMessage
	allowedSet := false
	if a, ok := m["allowed_tools"]; ok && !isNull(a) {
		allowedSet = true
		if json.Unmarshal(a, &allowed) != nil {
			return unsupported("MCP allowed_tools requires nonempty string names.")
		}
		for _, e := range allowed {
			if s, ok := jsonString(e); !ok || s == "" {
				return unsupported("MCP allowed_tools requires nonempty string names.")
			}
		}
	}
	required := string(bytes.TrimSpace(m["required"])) == "true"

	origin := str(m["connection_origin"])
	if origin == "" {
		origin = "service"
	}
	switch {
	case origin == "environment":
		// Baton serves Environment `none` only (docs/decisions.md §3): there is no execution Environment to connect
		// from, whatever the profile declares.
		return unsupported("Environment-origin MCP requires a managed or self-hosted execution Environment.")
	case origin != "service" || !x.p.MCPServiceOrigin.OK():
		return unsupported("The configured engine does not support this MCP connection origin.")
	}
	// origin == "service" and the Session's Environment is `none`: the service-side profile it requires.

	if x.p.Reserved(label) || (allowedSet && !x.p.MCPAllowedTools.OK()) || (required && !x.p.MCPRequired.OK()) {
		if x.p.Kind == profile.MCode {
			return unsupported(mcpMinimaxMessage)
		}
		return unsupported(mcpDeclarationMessage)
	}
	if !regexp.MustCompile(x.p.MCPLabelPattern).MatchString(label) {
		return unsupported(mcpDeclarationMessage)
	}
	namePattern := regexp.MustCompile(x.p.MCPToolNamePattern)
	for _, e := range allowed {
		if s, _ := jsonString(e); !namePattern.MatchString(s) {
			return unsupported("The configured engine does not support this MCP tool name.")
		}
	}
	cred, _ := jsonString(m["credential_id"])
	if (cred != "" || x.cfg.MCPBearerTokens[label] != "") && !x.p.MCPBearer.OK() {
		return unsupported(mcpDeclarationMessage)
	}
	return nil
}

// toolSet applies the rules that span declarations: function count and names (§3.1), discovery (§3.2), subagents
// with functions or MCP, and the per-profile combinations.
func (x *execution) toolSet() error {
	if x.functions > MaxExecutionFunctions {
		return unsupported("This service supports at most %d function tools.", MaxExecutionFunctions)
	}
	if x.badName {
		return unsupported("Function names must be nonempty, unique and at most %d bytes.", MaxFunctionNameBytes)
	}
	if x.toolSearches > 1 {
		return unsupported("Execution requires one type-only tool_search declaration.")
	}
	if x.toolSearches > 0 || x.deferred > 0 {
		if !x.p.ToolSearch.OK() {
			return x.harnessRejects("Tool search")
		}
		if x.toolSearches == 0 || x.deferred == 0 {
			return unsupported(discoveryNeedsBothMsg)
		}
		if (x.mcp > 0 && !x.p.ToolSearchWithMCP.OK()) || (x.text.Format == "json_schema" && !x.p.ToolSearchWithStructuredOutput.OK()) ||
			profile.MultiAgentEnabled(x.cfg) {
			if x.p.Kind == profile.ClaudeSDK {
				return unsupported(toolDiscoveryClaudeMsg)
			}
			return unsupported("Tool discovery is not qualified together with MCP tools, structured output or subagents on this engine.")
		}
	}
	if profile.MultiAgentEnabled(x.cfg) {
		if x.functions > 0 || x.mcp > 0 {
			return unsupported(subagentsWithToolsMsg)
		}
		if !x.p.Subagents.OK() {
			return x.harnessRejects("Subagents")
		}
	}
	return nil
}

// textRules applies §3.6 (structured output) and the verbosity line of §3.7.
func (x *execution) textRules() error {
	if x.text.Format == "json_schema" {
		if !x.p.StructuredOutput.OK() {
			return x.harnessRejects("Structured output")
		}
		if profile.MultiAgentEnabled(x.cfg) {
			return unsupported("Structured output requires a single Agent.")
		}
		if x.mcp > 0 && !x.p.StructuredOutputWithMCP.OK() {
			return unsupported(structuredOutputOnlyMsg)
		}
		if !x.p.StructuredOutputWithoutObjectRoot.OK() {
			if t, ok := rootType(x.text.Schema); !ok || t != "object" {
				return unsupported("Structured output requires a schema with an explicit root type object.")
			}
		}
		if !x.p.StructuredOutputInexactNumbers.OK() {
			if n, ok := firstInexactNumber(x.text.Schema); !ok {
				return unsupported("Structured output schemas must not contain numbers that change when read as IEEE-754 binary64; got %s.", echo(n))
			}
		}
	}
	if x.text.Verbosity != "" && x.text.Verbosity != defaultTextVerbosity && !x.p.TextVerbosity.OK() {
		return unsupported("Harness %s supports medium text verbosity only.", x.p.Kind)
	}
	return nil
}

// otherRules applies §3.7: explicit reasoning and service_tier.
func (x *execution) otherRules() error {
	if len(x.cfg.Reasoning) > 0 && !isNull(x.cfg.Reasoning) && !x.p.ExplicitReasoning.OK() {
		var r struct {
			Effort  json.RawMessage `json:"effort"`
			Summary json.RawMessage `json:"summary"`
		}
		if json.Unmarshal(x.cfg.Reasoning, &r) != nil || (len(r.Effort) > 0 && !isNull(r.Effort)) || (len(r.Summary) > 0 && !isNull(r.Summary)) {
			return unsupported("Explicit reasoning execution options are not supported by this service yet.")
		}
	}
	if x.cfg.ServiceTier != "" && x.cfg.ServiceTier != defaultServiceTier && !x.p.ServiceTierOtherThanAuto.OK() {
		return unsupported("Execution currently supports service_tier=auto only.")
	}
	return nil
}

// validMCPURL: an absolute http or https URL with a host and no userinfo, query (not even a bare "?") or fragment
// (docs/agents-api.md §3.5).
func validMCPURL(s string) bool {
	if strings.ContainsAny(s, "?#") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" || u.User != nil || u.Opaque != "" {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
}

// firstInexactNumber walks a JSON document and returns the first number literal whose value changes when parsed
// as an IEEE-754 binary64 (docs/agents-api.md §3.6, the Claude SDK's binary64 rule): the literal is parsed
// with strconv.ParseFloat and the double's shortest decimal is compared, as an exact decimal, with the literal.
// ok is true when every number survives (or the document does not decode).
func firstInexactNumber(doc json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", true
		}
		if n, isNum := tok.(json.Number); isNum && !exactBinary64(string(n)) {
			return string(n), false
		}
	}
}

// exactBinary64 reports whether the JSON number literal lit denotes exactly the value of the nearest double.
func exactBinary64(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	a, okA := decimalOf(lit)
	b, okB := decimalOf(strconv.FormatFloat(f, 'g', -1, 64))
	return okA && okB && a == b
}

// decimalOf normalises a decimal literal ([-]digits[.digits][e[±]digits]) to "sign digits e exponent" with no
// leading or trailing zeros in digits, so that equal values have equal forms ("0" for zero of either sign).
func decimalOf(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	exp := 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e, err := strconv.Atoi(lit[i+1:])
		if err != nil {
			return "", false
		}
		exp, lit = e, lit[:i]
	}
	intPart, frac, _ := strings.Cut(lit, ".")
	digits := intPart + frac
	exp -= len(frac)
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	sign := ""
	if neg {
		sign = "-"
	}
	return fmt.Sprintf("%s%se%d", sign, trimmed, exp), true
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func nonEmptyObject(raw json.RawMessage) bool {
	if len(raw) == 0 || isNull(raw) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return true
	}
	return len(m) > 0
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// echo quotes a caller value only when it may be repeated (docs/agents-api.md §3: ≤ 256 bytes printable).
func echo(v string) string {
	if echoable(v) {
		return "'" + v + "'"
	}
	return "a number"
}
