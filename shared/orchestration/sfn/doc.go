// Package sfn runs turns on the Step Functions state machine with aws-sdk-go-v2 (engine.Orchestrator): it starts
// executions named after turn ids, resumes parked AwaitResults tasks with SendTaskSuccess, stops executions, and
// translates the service's errors (ExecutionAlreadyExists for the same input → idempotent success). It also
// defines the payload types of the task functions and activities (docs/internals.md "The turn state machine").
package sfn
