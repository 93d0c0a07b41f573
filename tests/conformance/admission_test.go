package conformance_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/baton-run/baton/tests/stack"
)

// The tool-declaration checklists of docs/agents-api.md §3 (§3.1 functions, §3.6 structured
// output, §3.2 deferred function discovery, §3.3–§3.4 web search and programmatic tool calling, §3.5 HTTP MCP), one table per
// stage:
//   - Stage A (protocol validation) rejects the same declaration on saved Agent create and on Session create with an
//     inline agent: 400, type and code invalid_request_error, param the JSON path (prefixed `agent.` on Session
//     create) or null for the duplicate and schema-root checks.
//   - Stage B (execution admission) is Session create only: saved Agents keep the declaration (201), and a Session
//     whose effective configuration holds it — inline, or through agent_id — is 400
//     unsupported_or_invalid_configuration with a null param.
//
// Every rejected request is proved to have left the table unchanged (tests/stack.Snapshot before and after). These
// tests do not call t.Parallel: they run alone, before the package's parallel tests start.

// fn is a function declaration with an object-root schema.
func fn(name string) map[string]any {
	return map[string]any{"type": "function", "name": name, "description": "d", "parameters": map[string]any{"type": "object"}}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func without(m map[string]any, keys ...string) map[string]any {
	out := with(m)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func mcpTool(kv ...any) map[string]any {
	return with(map[string]any{"type": "mcp", "server_label": "tickets",
		"transport": map[string]any{"type": "http", "server_url": "https://mcp.example.com/mcp"}}, kv...)
}

func httpTransport(kv ...any) map[string]any {
	return with(map[string]any{"type": "http", "server_url": "https://mcp.example.com/mcp"}, kv...)
}

func tools(ts ...any) map[string]any { return map[string]any{"tools": ts} }

func harness(kind string, members map[string]any) map[string]any {
	return with(members, "x_baton", map[string]any{"harness": kind})
}

// rejection is one expected error: message "" is not compared (the digest does not pin it); with messageContainsOnly
// the wire message must contain message.
type rejection struct {
	status              int
	typ, code, message  string
	param               *string
	messageContainsOnly bool
}

// wantRejected sends a POST, requires the expected error and a table unchanged by it (snapshots before and after).
func wantRejected(t *testing.T, st *stack.Stack, what, path string, body any, want rejection) {
	t.Helper()
	before := stack.Snapshot(t, st)
	r := raw(t, st, http.MethodPost, path, body)
	after := stack.Snapshot(t, st)
	stack.AssertUnchanged(t, before, after)
	e := r.Error()
	got := rejection{status: r.Status, typ: e.Type, message: e.Message, param: e.Param}
	if e.Code != nil {
		got.code = *e.Code
	}
	switch {
	case want.message == "":
		got.message = ""
	case want.messageContainsOnly && strings.Contains(got.message, want.message):
		got.message = want.message
	}
	if got.status != want.status || got.typ != want.typ || got.code != want.code || got.message != want.message ||
		(got.param == nil) != (want.param == nil) || (got.param != nil && *got.param != *want.param) {
		t.Errorf("%s: got %d %s\n  want status %d type %q code %q param %v message %q", what, r.Status, r.Body,
			want.status, want.typ, want.code, deref(want.param), want.message)
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func sessionWith(agent map[string]any) map[string]any {
	return map[string]any{"environment": map[string]any{"type": "none"}, "agent": with(agent, "model", "scripted")}
}

// TestStageAProtocolValidation: one case per Stage A line, on saved Agent create and on Session create.
func TestStageAProtocolValidation(t *testing.T) {
	st := stack.Shared(t)
	type tc struct {
		name    string
		members map[string]any // the agent members besides model
		param   string         // path relative to the agent object; "" = null
		message string         // with {p} for the path prefix ("" or "agent.")
	}
	longSchema := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "nope"}}}
	cases := []tc{
		// Tool union.
		{"a tool that is not an object", tools("function"), "tools[0]", "Invalid type for '{p}tools[0]': expected an object, but got a string instead."},
		{"a tool without type", tools(map[string]any{"name": "f"}), "tools[0].type", "Missing required parameter: '{p}tools[0].type'."},
		{"an unknown tool type", tools(map[string]any{"type": "custom"}), "tools[0].type",
			"Invalid value: 'custom'. Supported values are: 'function', 'tool_search', 'programmatic_tool_calling', 'mcp', 'web_search', 'computer_use', and 'automations'."},
		{"tools that are not an array", map[string]any{"tools": map[string]any{}}, "tools", "Invalid type for '{p}tools': expected an array, but got an object instead."},
		// §3.1 function.
		{"function without name", tools(without(fn("f"), "name")), "tools[0].name", "Missing required parameter: '{p}tools[0].name'."},
		{"function without description", tools(without(fn("f"), "description")), "tools[0].description", "Missing required parameter: '{p}tools[0].description'."},
		{"function without parameters", tools(without(fn("f"), "parameters")), "tools[0].parameters", "Missing required parameter: '{p}tools[0].parameters'."},
		{"function name of the wrong type", tools(with(fn("f"), "name", 7)), "tools[0].name", "Invalid type for '{p}tools[0].name': expected a string, but got an integer instead."},
		{"function parameters that are not an object", tools(with(fn("f"), "parameters", "schema")), "tools[0].parameters",
			"Invalid type for '{p}tools[0].parameters': expected an object, but got a string instead."},
		{"function defer_loading null", tools(with(fn("f"), "defer_loading", nil)), "tools[0].defer_loading",
			"Invalid type for '{p}tools[0].defer_loading': expected a boolean, but got null instead."},
		{"function defer_loading not a boolean", tools(with(fn("f"), "defer_loading", "yes")), "tools[0].defer_loading",
			"Invalid type for '{p}tools[0].defer_loading': expected a boolean, but got a string instead."},
		{"function with an unknown member", tools(with(fn("f"), "strict", true)), "tools[0].strict", "Unknown parameter: '{p}tools[0].strict'."},
		{"function with a case variant of a member", tools(with(without(fn("f"), "name"), "Name", "f")), "tools[0].Name", "Unknown parameter: '{p}tools[0].Name'."},
		{"repeated function name", tools(fn("f"), fn("g"), fn("f")), "", "duplicate function tool name: f"},
		{"function schema with a string root type other than object", tools(with(fn("f"), "parameters", map[string]any{"type": "array"})), "",
			`Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
		{"duplicate name is checked before the schema root", tools(with(fn("f"), "parameters", map[string]any{"type": "string"}), fn("f")), "",
			"duplicate function tool name: f"},
		{"function schema that does not compile", tools(with(fn("f"), "parameters", longSchema)), "tools[0].parameters", ""},
		// §3.2 tool_search.
		{"tool_search with a member besides type", tools(map[string]any{"type": "tool_search", "max_results": 3}), "tools[0].max_results",
			"Unknown parameter: '{p}tools[0].max_results'."},
		{"repeated tool_search", tools(map[string]any{"type": "tool_search"}, with(fn("f"), "defer_loading", true), map[string]any{"type": "tool_search"}), "",
			"duplicate tool_search tool"},
		// §3.3 web_search.
		{"repeated web_search", tools(map[string]any{"type": "web_search", "mode": "disabled"}, map[string]any{"type": "web_search", "mode": "disabled"}), "",
			"duplicate web_search tool"},
		{"web_search mode outside the enum", tools(map[string]any{"type": "web_search", "mode": "sometimes"}), "tools[0].mode",
			"Invalid value: 'sometimes'. Supported values are: 'disabled', 'cached', and 'live'."},
		{"web_search context_size outside the enum", tools(map[string]any{"type": "web_search", "context_size": "huge"}), "tools[0].context_size",
			"Invalid value: 'huge'. Supported values are: 'low', 'medium', and 'high'."},
		{"web_search allowed_domains with a non-string", tools(map[string]any{"type": "web_search", "allowed_domains": []any{1}}), "tools[0].allowed_domains[0]",
			"Invalid type for '{p}tools[0].allowed_domains[0]': expected a string, but got an integer instead."},
		{"web_search location member of the wrong type", tools(map[string]any{"type": "web_search", "location": map[string]any{"city": 1}}), "tools[0].location.city",
			"Invalid type for '{p}tools[0].location.city': expected a string, but got an integer instead."},
		{"web_search unknown location member", tools(map[string]any{"type": "web_search", "location": map[string]any{"street": "x"}}), "tools[0].location.street",
			"Unknown parameter: '{p}tools[0].location.street'."},
		// §3.4 programmatic_tool_calling.
		{"programmatic_tool_calling enabled not a boolean", tools(map[string]any{"type": "programmatic_tool_calling", "enabled": "yes"}), "tools[0].enabled",
			"Invalid type for '{p}tools[0].enabled': expected a boolean, but got a string instead."},
		// §3.5 mcp (pinned shape).
		{"mcp without server_label", tools(without(mcpTool(), "server_label")), "tools[0].server_label", "Missing required parameter: '{p}tools[0].server_label'."},
		{"mcp without transport", tools(without(mcpTool(), "transport")), "tools[0].transport", "Missing required parameter: '{p}tools[0].transport'."},
		{"mcp transport type outside the enum", tools(mcpTool("transport", map[string]any{"type": "websocket"})), "tools[0].transport.type",
			"Invalid value: 'websocket'. Supported values are: 'http' and 'stdio'."},
		{"mcp http transport without server_url", tools(mcpTool("transport", map[string]any{"type": "http"})), "tools[0].transport.server_url",
			"Missing required parameter: '{p}tools[0].transport.server_url'."},
		{"mcp headers with a non-string value", tools(mcpTool("transport", httpTransport("headers", map[string]any{"a": 1}))), "tools[0].transport.headers.a",
			"Invalid type for '{p}tools[0].transport.headers.a': expected a string, but got an integer instead."},
		{"mcp connection_origin outside the enum", tools(mcpTool("connection_origin", "cloud")), "tools[0].connection_origin",
			"Invalid value: 'cloud'. Supported values are: 'service' and 'environment'."},
		{"mcp allowed_tools with a non-string", tools(mcpTool("allowed_tools", []any{1})), "tools[0].allowed_tools[0]",
			"Invalid type for '{p}tools[0].allowed_tools[0]': expected a string, but got an integer instead."},
		{"mcp required not a boolean", tools(mcpTool("required", "yes")), "tools[0].required",
			"Invalid type for '{p}tools[0].required': expected a boolean, but got a string instead."},
		{"mcp request_metadata with a non-string value", tools(mcpTool("request_metadata", map[string]any{"a": true})), "tools[0].request_metadata.a",
			"Invalid type for '{p}tools[0].request_metadata.a': expected a string, but got a boolean instead."},
		// §3.6 text.format json_schema.
		{"json_schema with a name wrapper", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "x", "schema": map[string]any{"type": "object"}}}},
			"text.format.name", "Unknown parameter: '{p}text.format.name'."},
		{"json_schema with strict", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "strict": true, "schema": map[string]any{"type": "object"}}}},
			"text.format.strict", "Unknown parameter: '{p}text.format.strict'."},
		{"json_schema without schema", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema"}}},
			"text.format.schema", "Missing required parameter: '{p}text.format.schema'."},
		{"json_schema with a string root type other than object", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "array"}}}},
			"", `agent.text.format.schema must have top-level type "object"; got "array"`},
		{"text.format type outside the enum", map[string]any{"text": map[string]any{"format": map[string]any{"type": "xml"}}},
			"text.format.type", "Invalid value: 'xml'. Supported values are: 'text' and 'json_schema'."},
		{"text.verbosity outside the enum", map[string]any{"text": map[string]any{"verbosity": "loud"}},
			"text.verbosity", "Invalid value: 'loud'. Supported values are: 'low', 'medium', and 'high'."},
		{"tools are checked before text", map[string]any{"text": map[string]any{"verbosity": "loud"}, "tools": []any{without(fn("f"), "name")}},
			"tools[0].name", "Missing required parameter: '{p}tools[0].name'."},
		// §3.7 and the Agent object.
		{"unpinned tool_choice is unknown", map[string]any{"tool_choice": "auto"}, "tool_choice", "Unknown parameter: '{p}tool_choice'."},
		{"reasoning effort outside the enum", map[string]any{"reasoning": map[string]any{"effort": "extreme"}}, "reasoning.effort",
			"Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'."},
		{"service_tier outside the enum", map[string]any{"service_tier": "slow"}, "service_tier",
			"Invalid value: 'slow'. Supported values are: 'auto', 'default', 'flex', 'priority', 'fast', and 'ultrafast'."},
		{"an unknown x_baton member", map[string]any{"x_baton": map[string]any{"runtime": "x"}}, "x_baton.runtime", "Unknown parameter: '{p}x_baton.runtime'."},
	}
	for _, c := range cases {
		t.Run(c.name+" is 400 invalid_request_error", func(t *testing.T) {
			for _, surface := range []struct {
				name, path, prefix string
				body               map[string]any
			}{
				{"saved Agent create", "/v1/agents", "", with(c.members, "model", "scripted")},
				{"Session create (inline agent)", "/v1/agents/sessions", "agent.", sessionWith(c.members)},
			} {
				want := rejection{status: 400, typ: "invalid_request_error", code: "invalid_request_error",
					message: strings.ReplaceAll(c.message, "{p}", surface.prefix)}
				if c.param != "" {
					want.param = ptr(surface.prefix + c.param)
				}
				wantRejected(t, st, surface.name, surface.path, surface.body, want)
			}
		})
	}
	t.Run("saved mcp has no inline authorization", func(t *testing.T) {
		wantRejected(t, st, "saved Agent create", "/v1/agents", with(tools(mcpTool("transport", httpTransport("authorization", "Bearer x"))), "model", "scripted"),
			rejection{status: 400, typ: "invalid_request_error", code: "invalid_request_error", param: ptr("tools[0].transport.authorization"),
				message: "Unknown parameter: 'tools[0].transport.authorization'."})
	})
}

// TestStageBExecutionAdmission: one case per Stage B line. The saved Agent keeps the declaration; a Session holding
// it inline or through agent_id is 400 unsupported_or_invalid_configuration, null param, and writes nothing.
func TestStageBExecutionAdmission(t *testing.T) {
	st := stack.Shared(t)
	manyFunctions := make([]any, 65)
	for i := range manyFunctions {
		manyFunctions[i] = fn("f" + strings.Repeat("x", i))
	}
	deferred := with(fn("lazy"), "defer_loading", true)
	schemaFormat := func(schema map[string]any) map[string]any {
		return map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}}
	}
	const (
		urlMessage    = "MCP server_url must be an absolute HTTP(S) URL without credentials, query or fragment."
		functionNames = "Function names must be nonempty, unique and at most 512 bytes."
	)
	cases := []struct {
		name    string
		members map[string]any
		message string // "" = not pinned by the digest
		// contains: message is a fragment of the wire message (the digest pins only part of it).
		contains bool
	}{
		// §3.1 functions.
		{"more than 64 functions", tools(manyFunctions...), "This service supports at most 64 function tools.", false},
		{"a blank function name", tools(fn("  ")), functionNames, false},
		{"a function name over 512 bytes", tools(fn(strings.Repeat("n", 513))), functionNames, false},
		{"claude_sdk function schema without an explicit object root", harness("claude_sdk", tools(with(fn("f"), "parameters", map[string]any{"properties": map[string]any{}}))),
			"The configured engine currently requires function schemas with root type object.", false},
		{"mcode with a function", harness("mcode", tools(fn("f"))), "The configured engine does not support public functions.", false},
		{"functions with subagents", with(tools(fn("f")), "multi_agent", map[string]any{"enabled": true}), "", false},
		// §3.2 tool_search.
		{"tool_search without a deferred function", tools(map[string]any{"type": "tool_search"}, fn("f")), "", false},
		{"a deferred function without tool_search", tools(deferred), "", false},
		{"codex with tool_search", harness("codex", tools(map[string]any{"type": "tool_search"}, deferred)), "", false},
		{"mcode with tool_search", harness("mcode", tools(map[string]any{"type": "tool_search"})), "", false},
		{"claude_sdk tool_search with MCP", harness("claude_sdk", tools(map[string]any{"type": "tool_search"}, deferred, mcpTool())),
			"Tool discovery requires a single-agent function profile without Skills or Plugins.", false},
		// §3.3 web_search.
		{"web_search live", tools(map[string]any{"type": "web_search", "mode": "live"}), "Only disabled web_search is qualified for execution.", false},
		{"web_search cached", tools(map[string]any{"type": "web_search", "mode": "cached"}), "Only disabled web_search is qualified for execution.", false},
		{"web_search with mode omitted", tools(map[string]any{"type": "web_search"}), "Only disabled web_search is qualified for execution.", false},
		{"web_search with mode null", tools(map[string]any{"type": "web_search", "mode": nil}), "Only disabled web_search is qualified for execution.", false},
		// §3.4 programmatic_tool_calling.
		{"programmatic_tool_calling enabled", tools(map[string]any{"type": "programmatic_tool_calling", "enabled": true}), "Programmatic tool calling is not qualified for execution.", false},
		{"programmatic_tool_calling with enabled omitted", tools(map[string]any{"type": "programmatic_tool_calling"}), "Programmatic tool calling is not qualified for execution.", false},
		{"two programmatic_tool_calling declarations", tools(map[string]any{"type": "programmatic_tool_calling", "enabled": false},
			map[string]any{"type": "programmatic_tool_calling", "enabled": false}), "Execution requires distinct tool controls.", false},
		// §3.5 mcp.
		{"mcp with a blank server_label", tools(mcpTool("server_label", "  ")), "MCP tools require type=mcp and a nonempty server_label.", false},
		{"mcp with repeated server labels", tools(mcpTool(), mcpTool()), "Execution requires distinct MCP server labels.", false},
		{"mcp stdio transport", tools(mcpTool("transport", map[string]any{"type": "stdio", "command": "srv", "cwd": "/"})), "MCP currently supports HTTP transport only.", false},
		{"mcp relative server_url", tools(mcpTool("transport", httpTransport("server_url", "/mcp"))), urlMessage, false},
		{"mcp non-http server_url", tools(mcpTool("transport", httpTransport("server_url", "ftp://mcp.example.com/mcp"))), urlMessage, false},
		{"mcp server_url without a host", tools(mcpTool("transport", httpTransport("server_url", "https:///mcp"))), urlMessage, false},
		{"mcp server_url with credentials", tools(mcpTool("transport", httpTransport("server_url", "https://user:pw@mcp.example.com/mcp"))), urlMessage, false},
		{"mcp server_url with a query", tools(mcpTool("transport", httpTransport("server_url", "https://mcp.example.com/mcp?x=1"))), urlMessage, false},
		{"mcp server_url with a bare ?", tools(mcpTool("transport", httpTransport("server_url", "https://mcp.example.com/mcp?"))), urlMessage, false},
		{"mcp server_url with a fragment", tools(mcpTool("transport", httpTransport("server_url", "https://mcp.example.com/mcp#top"))), urlMessage, false},
		{"mcp nonempty headers", tools(mcpTool("transport", httpTransport("headers", map[string]any{"X-Key": "v"}))), "Nonempty MCP headers are not supported yet.", false},
		{"mcp nonempty request_metadata", tools(mcpTool("request_metadata", map[string]any{"k": "v"})), "Nonempty MCP request_metadata is not supported yet.", false},
		{"mcp empty credential_id", tools(mcpTool("credential_id", "")), "MCP credential_id must be null or a nonempty string.", false},
		{"mcp allowed_tools with an empty name", tools(mcpTool("allowed_tools", []any{""})), "MCP allowed_tools requires nonempty string names.", false},
		{"codex mcp environment origin on environment none", harness("codex", tools(mcpTool("connection_origin", "environment"))),
			"Environment-origin MCP requires a managed or self-hosted execution Environment.", false},
		// Two lines apply (origin outside the profile, environment-origin on `none`); which message wins is not pinned.
		{"mcp environment origin outside the baton profile", tools(mcpTool("connection_origin", "environment")), "", false},
		{"mcode with service-origin mcp", harness("mcode", tools(mcpTool())), "", false},
		{"claude_sdk mcp label functions", harness("claude_sdk", tools(mcpTool("server_label", "functions"))), "The configured engine does not support this HTTP MCP declaration.", false},
		{"claude_sdk mcp label outside [A-Za-z0-9_-]", harness("claude_sdk", tools(mcpTool("server_label", "my tickets"))), "The configured engine does not support this HTTP MCP declaration.", false},
		{"mcp with subagents", with(tools(mcpTool()), "multi_agent", map[string]any{"enabled": true}), "", false},
		// §3.6 structured output.
		{"codex structured output", harness("codex", schemaFormat(map[string]any{"type": "object"})),
			"Harness codex does not support the requested Agent/environment configuration: Structured output is not qualified for this engine.", false},
		{"mcode structured output", harness("mcode", schemaFormat(map[string]any{"type": "object"})), "", false},
		{"claude_sdk structured output without an explicit object root", harness("claude_sdk", schemaFormat(map[string]any{"properties": map[string]any{}})), "", false},
		{"claude_sdk structured output with a number that changes under binary64",
			harness("claude_sdk", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema",
				"schema": rawJSON(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`)}}}), "", false},
		{"claude_sdk structured output with MCP", harness("claude_sdk", with(schemaFormat(map[string]any{"type": "object"}), "tools", []any{mcpTool()})), "", false},
		{"claude_sdk structured output with tool_search", harness("claude_sdk", with(schemaFormat(map[string]any{"type": "object"}),
			"tools", []any{map[string]any{"type": "tool_search"}, deferred})), "", false},
		// §3.7 other rules.
		{"claude_sdk verbosity other than medium", harness("claude_sdk", map[string]any{"text": map[string]any{"verbosity": "low"}}), "supports medium text verbosity only.", true},
		{"explicit reasoning effort", map[string]any{"reasoning": map[string]any{"effort": "low"}}, "Explicit reasoning execution options are not supported by this service yet.", false},
		{"explicit reasoning summary", map[string]any{"reasoning": map[string]any{"summary": "auto"}}, "Explicit reasoning execution options are not supported by this service yet.", false},
		{"service_tier other than auto", map[string]any{"service_tier": "flex"}, "Execution currently supports service_tier=auto only.", false},
	}
	for _, c := range cases {
		t.Run(c.name+" is saved but not admitted", func(t *testing.T) {
			saved := raw(t, st, http.MethodPost, "/v1/agents", with(c.members, "model", "scripted"))
			if saved.Status != http.StatusCreated {
				t.Fatalf("saved Agent create: %d %s, want 201 (saved Agents keep every declaration)", saved.Status, saved.Body)
			}
			agentID := decodeJSON[map[string]any](t, saved.Body)["id"].(string)
			want := rejection{status: 400, typ: "invalid_request_error", code: "unsupported_or_invalid_configuration", message: c.message, messageContainsOnly: c.contains}
			wantRejected(t, st, "Session create (inline agent)", "/v1/agents/sessions", sessionWith(c.members), want)
			wantRejected(t, st, "Session create (agent_id)", "/v1/agents/sessions",
				map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"}}, want)
			wantRejected(t, st, "Session create (agent_id, with input)", "/v1/agents/sessions",
				map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"}, "input": "hello"}, want)
			wantRejected(t, st, "Session create (agent_id, stream)", "/v1/agents/sessions",
				map[string]any{"agent_id": agentID, "environment": map[string]any{"type": "none"}, "input": "hello", "stream": true}, want)
		})
	}
}

// rawJSON keeps number literals byte-exact inside a request body.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestStageBAdmitsWhatItQualifies: the allowed forms of each Stage B line create a Session (201), and a per-Session
// tools replacement admits a Session whose saved tools would be rejected.
func TestStageBAdmitsWhatItQualifies(t *testing.T) {
	st := stack.Shared(t)
	okFunctions := make([]any, 64)
	for i := range okFunctions {
		okFunctions[i] = fn("f" + strings.Repeat("x", i))
	}
	cases := []struct {
		name    string
		members map[string]any
	}{
		{"64 functions", tools(okFunctions...)},
		{"a function name of 512 bytes", tools(fn(strings.Repeat("n", 512)))},
		{"disabled web_search", tools(map[string]any{"type": "web_search", "mode": "disabled"})},
		{"disabled programmatic_tool_calling", tools(map[string]any{"type": "programmatic_tool_calling", "enabled": false})},
		{"disabled web_search and programmatic_tool_calling together", tools(map[string]any{"type": "web_search", "mode": "disabled"},
			map[string]any{"type": "programmatic_tool_calling", "enabled": false})},
		{"tool_search with a deferred function", tools(map[string]any{"type": "tool_search"}, with(fn("lazy"), "defer_loading", true), fn("eager"))},
		{"service-origin http mcp", tools(mcpTool("allowed_tools", []any{"lookup"}), mcpTool("server_label", "other", "allowed_tools", []any{}))},
		{"structured output with an object root", map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object"}}}}},
		{"reasoning null and service_tier auto", map[string]any{"reasoning": nil, "service_tier": "auto"}},
	}
	for _, c := range cases {
		t.Run(c.name+" is admitted", func(t *testing.T) {
			r := raw(t, st, http.MethodPost, "/v1/agents/sessions", sessionWith(c.members))
			if r.Status != http.StatusCreated {
				t.Errorf("Session create: %d %s, want 201", r.Status, r.Body)
			}
		})
	}
	t.Run("a Session tools replacement admits a saved Agent whose tools would be rejected", func(t *testing.T) {
		saved := raw(t, st, http.MethodPost, "/v1/agents", map[string]any{"model": "scripted", "tools": []any{map[string]any{"type": "web_search", "mode": "live"}}})
		if saved.Status != http.StatusCreated {
			t.Fatalf("saved: %d %s", saved.Status, saved.Body)
		}
		id := decodeJSON[map[string]any](t, saved.Body)["id"].(string)
		for _, replacement := range []any{[]any{map[string]any{"type": "web_search", "mode": "disabled"}}, nil} {
			r := raw(t, st, http.MethodPost, "/v1/agents/sessions", map[string]any{"agent_id": id, "environment": map[string]any{"type": "none"},
				"agent": map[string]any{"tools": replacement}})
			if r.Status != http.StatusCreated {
				t.Errorf("tools %v: %d %s, want 201", replacement, r.Status, r.Body)
			}
		}
	})
}

// TestSavedAgentsKeepEveryDeclaration: saving resolves the documented defaults and keeps declarations that execution
// would reject (docs/agents-api.md §2.1, §3.3–§3.6).
func TestSavedAgentsKeepEveryDeclaration(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	body := []byte(`{"model":"scripted","tools":[` +
		`{"type":"function","name":"f","description":"d","parameters":{"type":"object"}},` +
		`{"type":"web_search"},` +
		`{"type":"programmatic_tool_calling"},` +
		`{"type":"tool_search"},` +
		`{"type":"mcp","server_label":"a","transport":{"type":"http","server_url":"https://x.example/mcp"}},` +
		`{"type":"mcp","server_label":"a","transport":{"type":"http","server_url":"https://x.example/mcp?q=1","headers":{"k":"v"}},"connection_origin":null}` +
		`],"text":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"n":{"maximum":9007199254740993}}}}}}`)
	r := rawRequest(t, st, http.MethodPost, "/v1/agents", body, apiHeader(st))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	got := decodeJSON[struct {
		Tools []map[string]any `json:"tools"`
	}](t, r.Body)
	want := []map[string]any{
		{"type": "function", "name": "f", "description": "d", "parameters": map[string]any{"type": "object"}, "defer_loading": false},
		{"type": "web_search", "mode": "live", "context_size": "medium", "allowed_domains": nil, "location": nil},
		{"type": "programmatic_tool_calling", "enabled": true},
		{"type": "tool_search"},
		{"type": "mcp", "server_label": "a", "transport": map[string]any{"type": "http", "server_url": "https://x.example/mcp", "headers": map[string]any{}},
			"connection_origin": "service", "allowed_tools": nil, "required": false, "credential_id": nil, "request_metadata": map[string]any{}},
		{"type": "mcp", "server_label": "a", "transport": map[string]any{"type": "http", "server_url": "https://x.example/mcp?q=1", "headers": map[string]any{"k": "v"}},
			"connection_origin": "service", "allowed_tools": nil, "required": false, "credential_id": nil, "request_metadata": map[string]any{}},
	}
	if len(got.Tools) != len(want) {
		t.Fatalf("saved tools %s", r.Body)
	}
	for i := range want {
		delete(got.Tools[i], "async")
		for k, v := range want[i] {
			if !jsonEqual(v, got.Tools[i][k]) {
				t.Errorf("tools[%d].%s = %v, want %v", i, k, got.Tools[i][k], v)
			}
		}
		if len(got.Tools[i]) != len(want[i]) {
			t.Errorf("tools[%d] = %v, want exactly the members %v", i, got.Tools[i], want[i])
		}
	}
	if !strings.Contains(string(r.Body), "9007199254740993") {
		t.Errorf("the schema number is not kept byte-exact: %s", r.Body)
	}
	// Web search settings resolution: null context_size → medium, [] domains stay [], {} location has all four keys.
	r = rawRequest(t, st, http.MethodPost, "/v1/agents", []byte(`{"model":"scripted","tools":[`+
		`{"type":"web_search","mode":"cached","context_size":null,"allowed_domains":[],"location":{"city":"Paris"}}]}`), apiHeader(st))
	ws := decodeJSON[struct {
		Tools []map[string]any `json:"tools"`
	}](t, r.Body)
	wantWS := map[string]any{"type": "web_search", "mode": "cached", "context_size": "medium", "allowed_domains": []any{},
		"location": map[string]any{"city": "Paris", "country": nil, "region": nil, "timezone": nil}}
	if r.Status != http.StatusCreated || len(ws.Tools) != 1 || !jsonEqual(wantWS, ws.Tools[0]) {
		t.Errorf("saved web_search: %d %s, want %v", r.Status, r.Body, wantWS)
	}
}

func jsonEqual(a, b any) bool {
	return string(mustJSONBytes(a)) == string(mustJSONBytes(b))
}

func mustJSONBytes(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
