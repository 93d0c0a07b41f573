package runtime

// Capabilities a runtime may advertise (docs/agents-api.md §5 lists the full set admission knows).
const (
	CapStreaming       = "streaming"
	CapFunctionTools   = "function_tools"
	CapEnvironmentNone = "environment_none"
	CapDurableTurns    = "durable_turns"
	CapUsage           = "usage"
	// CapStructuredOutput and CapMessageItems: text.format json_schema is validated and the answer published as a
	// final_answer message (docs/structured-output.md).
	CapStructuredOutput = "structured_output"
	CapMessageItems     = "message_items"
	// CapToolSearch: deferred functions are discovered with the harness's tool_search (docs/tool-search.md).
	CapToolSearch = "tool_search"
	// CapMCPHTTPTools, CapMCPHTTPRequired, CapMCPHTTPBearerAuth: HTTP MCP servers are connected, a required one
	// fails the turn when it does not initialize, and a Vault bearer credential is sent (docs/mcp.md).
	CapMCPHTTPTools      = "mcp_http_tools"
	CapMCPHTTPRequired   = "mcp_http_required"
	CapMCPHTTPBearerAuth = "mcp_http_bearer_auth"
	// CapProgrammaticToolCallingDisable: an explicit {type:"programmatic_tool_calling", enabled:false} is honoured
	// (the baton harness has no programmatic tool calling at all).
	CapProgrammaticToolCallingDisable = "programmatic_tool_calling_disable"
)

// BatonCapabilities is what the baton harness runtime advertises: only what works end to end.
var BatonCapabilities = []string{CapStreaming, CapFunctionTools, CapEnvironmentNone, CapDurableTurns, CapUsage,
	CapStructuredOutput, CapMessageItems, CapToolSearch, CapMCPHTTPTools, CapMCPHTTPRequired, CapMCPHTTPBearerAuth,
	CapProgrammaticToolCallingDisable}
