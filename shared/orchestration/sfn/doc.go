// Package sfn runs turns on the Step Functions state machine with aws-sdk-go-v2 (engine.Orchestrator): it starts
// executions named after turn ids, resumes parked AwaitResults tasks with SendTaskSuccess, stops executions, and
// translates the service's errors (ExecutionAlreadyExists for the same input → idempotent success; TaskTimedOut,
// TaskDoesNotExist, InvalidToken → engine.ErrTaskClosed). It also holds the handlers of the task functions (Park,
// Settle, Reconcile); their payloads and the ASL error names are package statemachine's.
package sfn
