// Package runtime owns the worker loop of a harness runtime container (docs/decisions.md "Shape": runtimes/<kind>):
//   - registration: the runtime records {id, kind, capabilities, version, started_at, heartbeat_at, expires_at}
//     with engine.RegisterRuntime at start, renews it every RegisterEvery (live until expires_at, a TTL), and
//     deregisters on shutdown by writing a registration that expires at once;
//   - activity tasks: Concurrency workers each long-poll GetActivityTask on the kind's Activity (worker name = the
//     runtime id); a task is decoded (statemachine.ActivityInput), checked against what the runtime hosts with a read-only
//     engine.PeekTurn (another harness kind, a model provider it lacks or a capability the turn requires that it
//     does not advertise → Baton.RuntimeIncapable before anything is written, which the state machine retries on
//     another runtime), begun with engine.BeginRunFrom from that read (ErrTurnNotRunnable → Baton.TurnNotRunnable) and run through
//     harness.Run while a goroutine sends SendTaskHeartbeat; when Step Functions reports the task timed out or
//     gone the work is cancelled and nothing more is sent for it;
//   - settling: harness.Run commits a completed turn's completion together with its final output
//     (engine.Run.Complete) before the answer, which then says settled:true, so the execution ends without a
//     Settle task;
//   - the answer: SendTaskSuccess with the harness.Outcome JSON, or SendTaskFailure with an ASL error name
//     (package statemachine) and a cause that never carries secrets or internal detail; a failed send is retried with backoff
//     for up to a minute while the heartbeat goes on, until it is accepted or Step Functions says the task can
//     no longer be answered (TaskTimedOut, TaskDoesNotExist, InvalidToken, InvalidOutput);
//   - graceful shutdown when Run's context ends (SIGTERM in runtimes/<kind>): stop polling, let in-flight tasks
//     finish within ShutdownGrace, then cancel and fail them, deregister.
//
// The state machine contract it serves is docs/internals.md "The turn state machine". It does not own the agent
// loop or model providers (package harness), durable state (package engine), or building AWS clients from the
// environment (package setup).
package runtime
