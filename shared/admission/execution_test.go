package admission

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
)

func fnDecl(name string, extra string) string {
	return fmt.Sprintf(`{"type":"function","name":%q,"description":"d","parameters":{"type":"object"},"defer_loading":false,"async":false%s}`, name, extra)
}

func mcpDecl(label, url, extra string) string {
	return fmt.Sprintf(`{"type":"mcp","server_label":%q,"transport":{"type":"http","server_url":%q,"headers":{}},"connection_origin":"service","allowed_tools":null,"required":false,"credential_id":null,"request_metadata":null%s}`, label, url, extra)
}

func cfgOf(harness string, tools ...string) agent.Config {
	c := agent.Config{Model: agent.ScriptedModel}
	for _, t := range tools {
		c.Tools = append(c.Tools, json.RawMessage(t))
	}
	if harness != "" {
		c.XBaton = &agent.Extension{Harness: harness}
	}
	return c
}

func withText(c agent.Config, text string) agent.Config { c.Text = json.RawMessage(text); return c }

func schemaText(schema string) string {
	return `{"format":{"type":"json_schema","schema":` + schema + `},"verbosity":"medium"}`
}

// TestExecutionAdmission covers every Stage B line of docs/agents-api.md §3.1–3.7: the exact status, code,
// message and null param.
func TestExecutionAdmission(t *testing.T) {
	t.Parallel()
	many := make([]string, 65)
	for i := range many {
		many[i] = fnDecl(fmt.Sprintf("f%d", i), "")
	}
	tests := []struct {
		name string
		cfg  agent.Config
		want string // "" = admitted
	}{
		{"a plain baton agent is admitted", cfgOf(""), ""},
		{"64 functions are admitted", cfgOf("", many[:64]...), ""},
		{"65 functions are rejected", cfgOf("", many...), "This service supports at most 64 function tools."},
		{"a blank function name is rejected", cfgOf("", fnDecl("  ", "")), "Function names must be nonempty, unique and at most 512 bytes."},
		{"a 513-byte function name is rejected", cfgOf("", fnDecl(strings.Repeat("a", 513), "")), "Function names must be nonempty, unique and at most 512 bytes."},
		{"a 512-byte function name is admitted", cfgOf("", fnDecl(strings.Repeat("a", 512), "")), ""},
		{"a duplicate function name is rejected", cfgOf("", fnDecl("a", ""), fnDecl("a", "")), "Function names must be nonempty, unique and at most 512 bytes."},
		{"a function member outside the execution set is rejected", cfgOf("", fnDecl("a", `,"strict":true`)), "Invalid execution function fields."},
		{"an async function is rejected", cfgOf("", strings.Replace(fnDecl("a", ""), `"async":false`, `"async":true`, 1)), "Invalid execution function fields."},
		{"mcode rejects functions", cfgOf("mcode", fnDecl("a", "")), "The configured engine does not support public functions."},
		{"claude_sdk rejects a function schema without an explicit object root", cfgOf("claude_sdk", `{"type":"function","name":"a","description":"d","parameters":{},"defer_loading":false}`),
			"The configured engine currently requires function schemas with root type object."},
		{"baton admits a function schema without a root type", cfgOf("", `{"type":"function","name":"a","description":"d","parameters":{},"defer_loading":false}`), ""},

		{"tool_search with a deferred function is admitted", cfgOf("", `{"type":"function","name":"a","description":"d","parameters":{},"defer_loading":true}`, `{"type":"tool_search"}`), ""},
		{"tool_search without a deferred function is rejected", cfgOf("", fnDecl("a", ""), `{"type":"tool_search"}`), "Qualified discovery requires tool search and deferred functions."},
		{"a deferred function without tool_search is rejected", cfgOf("", `{"type":"function","name":"a","description":"d","parameters":{},"defer_loading":true}`), "Qualified discovery requires tool search and deferred functions."},
		{"tool_search with extra fields is rejected", cfgOf("", `{"type":"tool_search","execution":"client"}`), "Execution requires one type-only tool_search declaration."},
		{"codex rejects tool_search", cfgOf("codex", `{"type":"function","name":"a","description":"d","parameters":{"type":"object"},"defer_loading":true}`, `{"type":"tool_search"}`),
			"Harness codex does not support the requested Agent/environment configuration: Tool search is not qualified for this engine."},
		{"claude_sdk rejects tool_search with MCP", cfgOf("claude_sdk", `{"type":"function","name":"a","description":"d","parameters":{"type":"object"},"defer_loading":true}`, `{"type":"tool_search"}`, mcpDecl("t", "https://x.example/mcp", "")),
			"Tool discovery requires a single-agent function profile without Skills or Plugins."},

		{"disabled web_search is admitted", cfgOf("", `{"type":"web_search","mode":"disabled","context_size":"medium"}`), ""},
		{"live web_search is rejected", cfgOf("", `{"type":"web_search","mode":"live"}`), "Only disabled web_search is qualified for execution."},
		{"cached web_search is rejected", cfgOf("", `{"type":"web_search","mode":"cached"}`), "Only disabled web_search is qualified for execution."},
		{"explicitly disabled PTC is admitted", cfgOf("", `{"type":"programmatic_tool_calling","enabled":false}`), ""},
		{"enabled PTC is rejected", cfgOf("", `{"type":"programmatic_tool_calling","enabled":true}`), "Programmatic tool calling is not qualified for execution."},
		{"PTC twice is rejected", cfgOf("", `{"type":"programmatic_tool_calling","enabled":false}`, `{"type":"programmatic_tool_calling","enabled":false}`), "Execution requires distinct tool controls."},
		{"computer_use is an unsupported execution tool", cfgOf("", `{"type":"computer_use","include_screenshots":false}`), unsupportedToolMessage},

		{"a service-origin HTTP MCP server is admitted", cfgOf("", mcpDecl("tickets", "https://mcp.example.com/mcp", "")), ""},
		{"a blank MCP label is rejected", cfgOf("", mcpDecl(" ", "https://x.example/mcp", "")), "MCP tools require type=mcp and a nonempty server_label."},
		{"duplicate MCP labels are rejected", cfgOf("", mcpDecl("a", "https://x.example/mcp", ""), mcpDecl("a", "https://y.example/mcp", "")), "Execution requires distinct MCP server labels."},
		{"stdio MCP is rejected", cfgOf("", `{"type":"mcp","server_label":"a","transport":{"type":"stdio","command":"x","cwd":"/"}}`), "MCP currently supports HTTP transport only."},
		{"an MCP URL with a query is rejected", cfgOf("", mcpDecl("a", "https://x.example/mcp?a=1", "")), mcpURLMessage},
		{"an MCP URL with a bare ? is rejected", cfgOf("", mcpDecl("a", "https://x.example/mcp?", "")), mcpURLMessage},
		{"an MCP URL with a fragment is rejected", cfgOf("", mcpDecl("a", "https://x.example/mcp#f", "")), mcpURLMessage},
		{"an MCP URL with credentials is rejected", cfgOf("", mcpDecl("a", "https://u:p@x.example/mcp", "")), mcpURLMessage},
		{"a relative MCP URL is rejected", cfgOf("", mcpDecl("a", "/mcp", "")), mcpURLMessage},
		{"an ftp MCP URL is rejected", cfgOf("", mcpDecl("a", "ftp://x.example/mcp", "")), mcpURLMessage},
		{"nonempty MCP headers are rejected", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"headers":{}`, `"headers":{"X":"y"}`, 1)), "Nonempty MCP headers are not supported yet."},
		{"nonempty request_metadata is rejected", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"request_metadata":null`, `"request_metadata":{"a":"b"}`, 1)), "Nonempty MCP request_metadata is not supported yet."},
		{"an empty allowed_tools entry is rejected", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"allowed_tools":null`, `"allowed_tools":[""]`, 1)), "MCP allowed_tools requires nonempty string names."},
		{"allowed_tools [] is admitted", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"allowed_tools":null`, `"allowed_tools":[]`, 1)), ""},
		{"an empty credential_id is rejected", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"credential_id":null`, `"credential_id":""`, 1)), "MCP credential_id must be null or a nonempty string."},
		{"environment-origin MCP needs an execution Environment, which baton never has", cfgOf("", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"service"`, `"environment"`, 1)), "Environment-origin MCP requires a managed or self-hosted execution Environment."},
		{"environment-origin MCP on codex needs an execution Environment", cfgOf("codex", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"service"`, `"environment"`, 1)), "Environment-origin MCP requires a managed or self-hosted execution Environment."},
		{"mcode rejects service-origin MCP", cfgOf("mcode", mcpDecl("a", "https://x.example/mcp", "")), "The configured engine does not support this MCP connection origin."},
		{"claude_sdk reserves the label functions", cfgOf("claude_sdk", mcpDecl("functions", "https://x.example/mcp", "")), mcpDeclarationMessage},
		{"claude_sdk rejects a label outside its pattern", cfgOf("claude_sdk", mcpDecl("my tickets", "https://x.example/mcp", "")), mcpDeclarationMessage},
		{"claude_sdk rejects a tool name outside its pattern", cfgOf("claude_sdk", strings.Replace(mcpDecl("a", "https://x.example/mcp", ""), `"allowed_tools":null`, `"allowed_tools":["get sum"]`, 1)), "The configured engine does not support this MCP tool name."},
		{"multi_agent with MCP is rejected", func() agent.Config {
			c := cfgOf("codex", mcpDecl("a", "https://x.example/mcp", ""))
			c.MultiAgent = json.RawMessage(`{"enabled":true,"max_concurrent_subagents":4}`)
			return c
		}(), subagentsWithToolsMsg},
		{"multi_agent with functions is rejected", func() agent.Config {
			c := cfgOf("", fnDecl("a", ""))
			c.MultiAgent = json.RawMessage(`{"enabled":true,"max_concurrent_subagents":4}`)
			return c
		}(), subagentsWithToolsMsg},
		{"multi_agent disabled with functions is admitted", func() agent.Config {
			c := cfgOf("", fnDecl("a", ""))
			c.MultiAgent = json.RawMessage(`{"enabled":false,"max_concurrent_subagents":0}`)
			return c
		}(), ""},

		{"structured output on baton is admitted", withText(cfgOf(""), schemaText(`{"type":"object","properties":{"n":{"maximum":12345678901234567890}}}`)), ""},
		{"codex rejects structured output", withText(cfgOf("codex"), schemaText(`{"type":"object"}`)),
			"Harness codex does not support the requested Agent/environment configuration: Structured output is not qualified for this engine."},
		{"claude_sdk rejects a schema number that changes under binary64", withText(cfgOf("claude_sdk"), schemaText(`{"type":"object","properties":{"n":{"maximum":12345678901234567891}}}`)),
			"Structured output schemas must not contain numbers that change when read as IEEE-754 binary64; got '12345678901234567891'."},
		{"claude_sdk rejects an over-precise decimal", withText(cfgOf("claude_sdk"), schemaText(`{"type":"object","properties":{"n":{"multipleOf":0.1000000000000000000001}}}`)),
			"Structured output schemas must not contain numbers that change when read as IEEE-754 binary64; got '0.1000000000000000000001'."},
		{"claude_sdk admits exact numbers in any spelling", withText(cfgOf("claude_sdk"), schemaText(`{"type":"object","properties":{"n":{"minimum":-0.5,"maximum":1e3,"multipleOf":0.1,"x":9007199254740992,"y":1.50}}}`)), ""},
		{"claude_sdk requires an explicit object root for structured output", withText(cfgOf("claude_sdk"), schemaText(`{"properties":{}}`)),
			"Structured output requires a schema with an explicit root type object."},
		{"claude_sdk rejects structured output with MCP", withText(cfgOf("claude_sdk", mcpDecl("a", "https://x.example/mcp", "")), schemaText(`{"type":"object"}`)), structuredOutputOnlyMsg},
		{"claude_sdk rejects low verbosity", withText(cfgOf("claude_sdk"), `{"format":{"type":"text"},"verbosity":"low"}`), "Harness claude_sdk supports medium text verbosity only."},
		{"codex admits high verbosity", withText(cfgOf("codex"), `{"format":{"type":"text"},"verbosity":"high"}`), ""},
		{"explicit reasoning effort is rejected", func() agent.Config {
			c := cfgOf("")
			c.Reasoning = json.RawMessage(`{"effort":"low","summary":null}`)
			return c
		}(), "Explicit reasoning execution options are not supported by this service yet."},
		{"reasoning with both members null is admitted", func() agent.Config {
			c := cfgOf("")
			c.Reasoning = json.RawMessage(`{"effort":null,"summary":null}`)
			return c
		}(), ""},
		{"service_tier flex is rejected", func() agent.Config { c := cfgOf(""); c.ServiceTier = "flex"; return c }(), "Execution currently supports service_tier=auto only."},
		{"service_tier auto is admitted", func() agent.Config { c := cfgOf(""); c.ServiceTier = "auto"; return c }(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Execution{}.AdmitSession(tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("AdmitSession = %v, want admitted", err)
				}
				return
			}
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("AdmitSession = %v, want *engine.Error", err)
			}
			want := engine.Error{Status: 400, Code: engine.CodeUnsupportedConfig, Message: tc.want}
			if diff := cmp.Diff(want, *e); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExactBinary64(t *testing.T) {
	t.Parallel()
	for lit, want := range map[string]bool{
		"0": true, "-0": true, "0.0": true, "1": true, "1.5": true, "1e3": true, "1E+3": true, "0.1": true, "100": true,
		"9007199254740993": false, "12345678901234567891": false, "1e400": false, "0.30000000000000004": true,
		"0.3000000000000000444": false, "123.4560": true,
	} {
		if got := exactBinary64(lit); got != want {
			t.Errorf("exactBinary64(%s) = %v, want %v", lit, got, want)
		}
	}
}
