package runtime

// TaskInput is the activity task input (docs/internals.md "Payloads"): {"session_id","turn_id","harness"}.
// HeartbeatSeconds is optional: when the Run state passes the execution's timeouts.heartbeat_seconds, the runtime
// heartbeats at least every third of it.
type TaskInput struct {
	SessionID        string `json:"session_id"`
	TurnID           string `json:"turn_id"`
	Harness          string `json:"harness"`
	HeartbeatSeconds int    `json:"heartbeat_seconds,omitempty"`
}

// ASL error names a runtime fails its activity task with (docs/internals.md "Payloads").
const (
	// ErrorModel: the model provider failed (harness.ModelError); the cause is the provider's safe message.
	ErrorModel = "Baton.ModelError"
	// ErrorHarness: the harness could not run the step: an unusable configuration (harness.ConfigError), malformed
	// task input, shutdown, or an internal error (cause "internal harness error"; details only in the log).
	ErrorHarness = "Baton.HarnessError"
	// ErrorRuntimeIncapable: this runtime cannot serve the task (another harness kind, or a model provider it
	// does not host); the state machine retries so another runtime takes it (DESIGN "Capabilities").
	ErrorRuntimeIncapable = "Baton.RuntimeIncapable"
	// ErrorTurnNotRunnable: the turn was cancelled or has ended (engine.ErrTurnNotRunnable).
	ErrorTurnNotRunnable = "Baton.TurnNotRunnable"
	// ErrorStructuredOutputInvalid: the final answer is not JSON or violates the Session's text.format json_schema
	// (harness.StructuredOutputError); the cause names the violated keywords. Settle fails the turn
	// (docs/structured-output.md).
	ErrorStructuredOutputInvalid = "Baton.StructuredOutputInvalid"
)

// Capabilities a runtime may advertise (spec/agents-api-rules.md §5 lists the full set admission knows).
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
