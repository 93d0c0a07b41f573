package profile

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/baton-run/baton/shared/agent"
)

// Runtime capability names (docs/agents-api.md §5.3, heartbeat `supported_agent_kinds[].capabilities`). A
// runtime advertises a subset; Requires says which ones a configuration's turns need.
const (
	CapSubagentObservations           = "subagent_observations"
	CapStreaming                      = "streaming"
	CapPermissions                    = "permissions"
	CapUsage                          = "usage"
	CapResume                         = "resume"
	CapNativeSessionRecovery          = "native_session_recovery"
	CapWorkspaceAuthoring             = "workspace_authoring"
	CapSteering                       = "steering"
	CapMessageItems                   = "message_items"
	CapToolObservations               = "tool_observations"
	CapEnvironmentNone                = "environment_none"
	CapLocalEnvironment               = "local_environment"
	CapPreparation                    = "preparation"
	CapWorkspaceReadPreparation       = "workspace_read_preparation"
	CapWorkspaceOutputExport          = "workspace_output_export"
	CapProgrammaticToolCallingDisable = "programmatic_tool_calling_disable"
	CapWebSearchControl               = "web_search_control"
	CapExecutionControls              = "execution_controls"
	CapTextVerbosity                  = "text_verbosity"
	CapStructuredOutput               = "structured_output"
	CapToolSearch                     = "tool_search"
	CapMessageImages                  = "message_images"
	CapFunctionResultImages           = "function_result_images"
	CapSubagentControl                = "subagent_control"
	CapDurableInputReceipts           = "durable_input_receipts"
	CapDurableTurns                   = "durable_turns"
	CapFunctionTools                  = "function_tools"
	CapMCPHTTPTools                   = "mcp_http_tools"
	CapMCPHTTPRequired                = "mcp_http_required"
	CapMCPHTTPBearerAuth              = "mcp_http_bearer_auth"
	// Harness-run tools (docs/tools.md "Builtin tools"): the default shell and file_operations tools in a
	// per-Session workspace, and the declared AgentCore code interpreter, browser and gateway tools.
	CapBuiltinTools    = "builtin_tools"
	CapCodeInterpreter = "agentcore_code_interpreter"
	CapBrowser         = "agentcore_browser"
	CapGateway         = "agentcore_gateway"
)

// Always are the capabilities every turn needs: Baton streams every turn, keeps it durable, and runs only
// Environment `none` (docs/decisions.md §3). The other "always" names of §5.3 (steering, preparation, …) belong to the
// reference daemon protocol and have no Baton counterpart, so no runtime is asked for them.
var Always = []string{CapStreaming, CapDurableTurns, CapEnvironmentNone}

// Requires returns the runtime capabilities the turns of a Session with this effective configuration need
// (docs/agents-api.md §5.3), sorted and without duplicates: Always; function_tools for any function;
// tool_search for a tool_search declaration or a deferred function; structured_output and message_items for
// text.format json_schema; mcp_http_tools for any MCP declaration, mcp_http_required for a required one,
// mcp_http_bearer_auth when a credential is selected; programmatic_tool_calling_disable for an explicit PTC
// disable; builtin_tools when the configuration asks for the default tools; agentcore_code_interpreter,
// agentcore_browser and agentcore_gateway for those declarations; web_search_control and text_verbosity when the kind's profile declares that control and the
// configuration uses it; subagent_observations for multi_agent.enabled. Pure; a declaration that does not decode
// adds nothing (admission has rejected it).
func Requires(cfg agent.Config) []string {
	req := slices.Clone(Always)
	p, _ := Of(cfg.HarnessKind())
	for _, raw := range cfg.Tools {
		var t struct {
			Type         string          `json:"type"`
			DeferLoading bool            `json:"defer_loading"`
			Required     bool            `json:"required"`
			CredentialID *string         `json:"credential_id"`
			ServerLabel  string          `json:"server_label"`
			Enabled      json.RawMessage `json:"enabled"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		switch t.Type {
		case "function":
			req = append(req, CapFunctionTools)
			if t.DeferLoading {
				req = append(req, CapToolSearch)
			}
		case "tool_search":
			req = append(req, CapToolSearch)
		case "mcp":
			req = append(req, CapMCPHTTPTools)
			if t.Required {
				req = append(req, CapMCPHTTPRequired)
			}
			if (t.CredentialID != nil && *t.CredentialID != "") || cfg.MCPBearerTokens[t.ServerLabel] != "" {
				req = append(req, CapMCPHTTPBearerAuth)
			}
		case "programmatic_tool_calling":
			if bytes.Equal(bytes.TrimSpace(t.Enabled), []byte("false")) {
				req = append(req, CapProgrammaticToolCallingDisable)
			}
		case agent.ToolCodeInterpreter:
			req = append(req, CapCodeInterpreter)
		case agent.ToolBrowser:
			req = append(req, CapBrowser)
		case agent.ToolGateway:
			req = append(req, CapGateway)
		case "web_search":
			if p.WebSearchControl.OK() {
				req = append(req, CapWebSearchControl)
			}
		}
	}
	if cfg.BuiltinToolsOn() {
		req = append(req, CapBuiltinTools)
	}
	text := TextOf(cfg)
	if text.Format == "json_schema" {
		req = append(req, CapStructuredOutput, CapMessageItems)
	}
	if p.TextVerbosity.OK() && text.Verbosity != "" && text.Verbosity != "medium" {
		req = append(req, CapTextVerbosity)
	}
	if MultiAgentEnabled(cfg) {
		req = append(req, CapSubagentObservations)
	}
	slices.Sort(req)
	return slices.Compact(req)
}

// Missing returns the names of need that have is lacking, in need's order (nil when none is).
func Missing(need, have []string) []string {
	var out []string
	for _, c := range need {
		if !slices.Contains(have, c) {
			out = append(out, c)
		}
	}
	return out
}

// Text is a configuration's decoded `text`: Format is the text.format type ("" when absent), Schema the json_schema
// schema (raw), Verbosity the text.verbosity ("" when absent).
type Text struct {
	Format    string
	Schema    json.RawMessage
	Verbosity string
}

// TextOf decodes cfg.Text; a missing or undecodable member is the zero Text.
func TextOf(cfg agent.Config) Text {
	var t struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
		Verbosity string `json:"verbosity"`
	}
	if len(cfg.Text) == 0 || json.Unmarshal(cfg.Text, &t) != nil {
		return Text{}
	}
	return Text{Format: t.Format.Type, Schema: t.Format.Schema, Verbosity: t.Verbosity}
}

// MultiAgentEnabled reports whether cfg sets multi_agent.enabled true.
func MultiAgentEnabled(cfg agent.Config) bool {
	var m struct {
		Enabled bool `json:"enabled"`
	}
	return len(cfg.MultiAgent) > 0 && json.Unmarshal(cfg.MultiAgent, &m) == nil && m.Enabled
}
