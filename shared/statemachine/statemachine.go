package statemachine

// ASL error names. A runtime fails an activity task with the first five (SendTaskFailure); the state machine's
// Run state retries ErrorRuntimeIncapable and catches every other error into Settle, which fails the turn.
const (
	// ErrorModel: the model provider failed (harness.ModelError); the cause is the provider's safe message.
	ErrorModel = "Baton.ModelError"
	// ErrorHarness: the harness could not run the step: an unusable configuration (harness.ConfigError), malformed
	// task input, shutdown, or an internal error (cause "internal harness error"; details only in the log).
	ErrorHarness = "Baton.HarnessError"
	// ErrorRuntimeIncapable: this runtime cannot serve the task (another harness kind, a model provider protocol it
	// does not host, or a required capability it does not advertise); the Run state retries it so another runtime
	// takes the task.
	ErrorRuntimeIncapable = "Baton.RuntimeIncapable"
	// ErrorTurnNotRunnable: the turn was cancelled or has ended (engine.ErrTurnNotRunnable).
	ErrorTurnNotRunnable = "Baton.TurnNotRunnable"
	// ErrorStructuredOutputInvalid: the final answer is not JSON or violates the Session's text.format
	// json_schema (harness.StructuredOutputError); the cause names the violated keywords
	// (docs/structured-output.md).
	ErrorStructuredOutputInvalid = "Baton.StructuredOutputInvalid"
	// ErrorExecutionEnded: the outcome the reconciler settles a turn with when its execution ended without
	// reaching Settle (stopped out of band, or Settle failing for good).
	ErrorExecutionEnded = "Baton.ExecutionEnded"
	// ErrorCancelled: the error StopExecution records when a turn is cancelled.
	ErrorCancelled = "Baton.Cancelled"
	// ErrorTurnFailed: the error of the TurnFailed Fail state, the end of an execution whose turn settled as failed
	// or cancelled.
	ErrorTurnFailed = "Baton.TurnFailed"
)

// ErrorNames lists every ASL error name above.
var ErrorNames = []string{ErrorModel, ErrorHarness, ErrorRuntimeIncapable, ErrorTurnNotRunnable,
	ErrorStructuredOutputInvalid, ErrorExecutionEnded, ErrorCancelled, ErrorTurnFailed}

// MaxCauseBytes is the Step Functions limit on a task failure's cause (SendTaskFailure).
const MaxCauseBytes = 32768

// Statuses of an activity's output (the AfterRun Choice tests "requires_action", and "completed" with settled
// true) and of Settle's output (the Settled Choice tests "completed").
const (
	StatusCompleted      = "completed"
	StatusRequiresAction = "requires_action"
)

// ExecutionInput is the input of one turn's execution (StartExecution on the state machine of the turn's harness
// kind; the execution name is the turn id):
// {"session_id","turn_id","harness","timeouts":{"run_seconds","heartbeat_seconds","await_seconds"}}.
type ExecutionInput struct {
	SessionID string   `json:"session_id"`
	TurnID    string   `json:"turn_id"`
	Harness   string   `json:"harness"`
	Timeouts  Timeouts `json:"timeouts"`
}

// Timeouts of a turn's tasks, in seconds: RunSeconds bounds one activity task (TimeoutSecondsPath),
// HeartbeatSeconds its heartbeat (HeartbeatSecondsPath, below RunSeconds), AwaitSeconds how long AwaitResults
// waits for the caller's tool results.
type Timeouts struct {
	RunSeconds       int `json:"run_seconds"`
	HeartbeatSeconds int `json:"heartbeat_seconds"`
	AwaitSeconds     int `json:"await_seconds"`
}

// ActivityInput is what a runtime gets from GetActivityTask (the Run state's Parameters):
// {"session_id","turn_id","harness","heartbeat_seconds"}. HeartbeatSeconds is the execution's
// timeouts.heartbeat_seconds (0 when absent); the runtime heartbeats at least every third of it.
type ActivityInput struct {
	SessionID        string `json:"session_id"`
	TurnID           string `json:"turn_id"`
	Harness          string `json:"harness"`
	HeartbeatSeconds int    `json:"heartbeat_seconds,omitempty"`
}

// ActivityOutput is what a runtime answers with SendTaskSuccess, always with "settled" (the AfterRun Choice reads
// it): {"status":"requires_action","round":n,"settled":false}, where round is the turn's round the calls were
// requested in (1-based), or {"status":"completed","settled":b}. Settled true means the runtime committed the
// turn as completed itself (engine.Run.Complete, with its final output), so the execution ends at Done with no Settle task; false means the
// harness completed but the runtime did not commit it (the turn was cancelled meanwhile, or the write failed),
// and the Settle task settles it (docs/internals.md "The turn state machine").
type ActivityOutput struct {
	Status  string `json:"status"`
	Round   int    `json:"round,omitempty"`
	Settled bool   `json:"settled"`
}

// ParkInput is the AwaitResults payload the Park function receives: {"task_token","session_id","turn_id","round"}.
// Park answers {} (ParkOutput).
type ParkInput struct {
	TaskToken string `json:"task_token"`
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id"`
	Round     int    `json:"round"`
}

// ParkOutput is Park's answer: {}. The task completes later, with ResumeOutput.
type ParkOutput struct{}

// ResumeOutput is the output whoever completes the rendezvous sends with SendTaskSuccess on the stored task token:
// {"resumed":true}.
type ResumeOutput struct {
	Resumed bool `json:"resumed"`
}

// SettleInput is the Settle payload: {"session_id","turn_id","run"}; Run is the state's $.run, a RunOutcome.
type SettleInput struct {
	SessionID string     `json:"session_id"`
	TurnID    string     `json:"turn_id"`
	Run       RunOutcome `json:"run"`
}

// RunOutcome is what reaches Settle as $.run: an activity output the runtime did not settle
// ({"status":"completed","settled":false}), or the error object of a Catch or of the reconciler
// ({"Error","Cause"}). Zero (null) is not completed.
type RunOutcome struct {
	Status  string `json:"status,omitempty"`
	Round   int    `json:"round,omitempty"`
	Settled bool   `json:"settled,omitempty"`
	Error   string `json:"Error,omitempty"`
	Cause   string `json:"Cause,omitempty"`
}

// Completed reports whether the run ended the turn successfully: status "completed" and no error.
func (o RunOutcome) Completed() bool { return o.Status == StatusCompleted && o.Error == "" }

// SettleOutput is Settle's result, the turn's terminal status: {"status":"completed"|"failed"|"cancelled"}.
type SettleOutput struct {
	Status string `json:"status"`
}

// ReconcileOutput is the scheduled Reconcile function's result: {"started": n}, how many turns the pass acted on.
type ReconcileOutput struct {
	Started int `json:"started"`
}
