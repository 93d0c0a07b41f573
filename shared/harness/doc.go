// Package harness owns Baton's own harness, `baton`: the native agent loop that runs the model for a Turn
// (DESIGN "Shape"; seeds/000 "Admission": "The native Harness runs the model and tool loop. Core adds no second
// loop"). It defines
//   - the provider-neutral model port (Model, Request, Message, Stream, Part) that every model provider implements;
//   - the provider registry (Providers), keyed by x_baton.model_provider.protocol (DESIGN Decision 1), default
//     ProtocolScripted;
//   - the journal port (Journal) through which the loop appends durable output; *engine.Run satisfies it;
//   - Run, one model step per activity task: history → conversation → one streamed model response → a message
//     (streamed as deltas), usage, and either the function calls the caller must answer (requires_action) or the
//     end of the turn (completed);
//   - the typed errors a runtime reports to the state machine (ModelError → Baton.ModelError, ConfigError →
//     Baton.HarnessError).
//
// Contract of one step (docs/internals.md "The turn state machine"):
//   - text of a response with no function calls is one assistant message with phase final_answer;
//   - text that precedes function calls in the same response is one message with phase commentary;
//   - the calls (one or several, in the model's order) go to Journal.RequestCalls in one commit, and Run returns
//     Outcome{Status: "requires_action", Round: n}; the state machine parks and, once every result is in, runs
//     the next activity task, whose history then holds the function_call_output items;
//   - measured usage goes to Journal.RecordUsage before the message or calls are finalised.
//
// It does not own: the worker loop that polls activity tasks and heartbeats (package runtime), durable state and
// events (package engine), the concrete providers (package harness/scripted; Bedrock Converse, OpenAI and
// Anthropic come later), tool execution (functions are executed by the caller; MCP and environment tools are not
// supported yet) or structured-output validation.
package harness
