// Package statemachine is the one home of the turn state machine's contract (statemachines/turn.asl.json,
// docs/internals.md "The turn state machine"): the execution input, the payloads of its Activities and task
// functions (Run, AwaitResults → Park, Settle) and of the scheduled Reconcile function, the statuses the
// state machine's Choice states test, and every ASL error name Baton reports or the definition names.
//
// It imports only the standard library, so the engine (a domain package), the orchestration adapter, the task
// functions and the runtimes all share it without linking an AWS SDK into the domain. Which domain error becomes
// which ASL error name is documented on each name; the runtime's classify is the one place that maps a harness
// step's error to a name, and Settle (engine) the one place that maps a run outcome back to a turn status.
package statemachine
