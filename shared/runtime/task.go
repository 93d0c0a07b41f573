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
)

// Capabilities a runtime may advertise (spec/agents-api-rules.md §5 lists the full set admission knows).
const (
	CapStreaming       = "streaming"
	CapFunctionTools   = "function_tools"
	CapEnvironmentNone = "environment_none"
	CapDurableTurns    = "durable_turns"
	CapUsage           = "usage"
)

// BatonCapabilities is what the baton harness runtime advertises today: only what works end to end. Structured
// output, tool search and MCP come with their features.
var BatonCapabilities = []string{CapStreaming, CapFunctionTools, CapEnvironmentNone, CapDurableTurns, CapUsage}
