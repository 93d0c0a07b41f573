// Package harness owns Baton's own harness, `baton`: the native agent loop that runs the model for a Turn
// (docs/decisions.md "Shape": the harness runs the model and tool loop; the core adds no second
// loop). It defines
//   - the provider-neutral model port (Model, Request, Message, Stream, Part) that every model provider implements;
//   - the provider registry (Providers), keyed by x_baton.model_provider.protocol (docs/decisions.md §1), default
//     ProtocolScripted;
//   - the journal port (Journal) through which the loop appends durable output; *engine.Run satisfies it;
//   - Run, the agent loop of one activity task: history → conversation → streamed model responses → messages
//     (streamed as deltas), usage, HTTP MCP calls and tool_search run in the harness (several steps per task), and
//     finally either the function calls the caller must answer (requires_action) or the end of the turn
//     (completed);
//   - the MCP port (MCPConnector, MCPSession; package harness/mcp implements it with the go-sdk), provider-safe
//     tool naming (MCPToolName "<server_label>__<tool>" or its mapping, docs/tools.md), MCP argument validation,
//     MCP headers with token-vault references (CredentialResolver) and the tool_search tool (ToolSearchName,
//     docs/tool-search.md);
//   - what the model is offered and what happens to each call (docs/tools.md): allowedTools patterns
//     (agent.Controls, package toolpattern), an error result for a tool that was not offered, model order of
//     calls across a pause (Job.Queued), and the builtin tool hook (BuiltinTool, Job.Builtins);
//   - structured-output validation of the final answer against text.format json_schema (docs/structured-output.md);
//   - the typed errors a runtime reports to the state machine (ModelError → Baton.ModelError, ConfigError →
//     Baton.HarnessError, StructuredOutputError → Baton.StructuredOutputInvalid).
//
// Contract of one step (docs/internals.md "The turn state machine"):
//   - text of a response with no function calls is one assistant message with phase final_answer;
//   - text that precedes function calls in the same response is one message with phase commentary;
//   - MCP calls become mcp_call items (Journal.StartMCPCall/FinishMCPCall) and, with tool_search calls, feed the
//     next step of the same task;
//   - calls run in model order: at the first function call, it and the function calls directly after it go to
//     Journal.RequestCalls in one commit (the calls after them are stored as queued), and Run returns
//     Outcome{Status: "requires_action", Round: n}; the state machine parks and, once every result is in, runs
//     the next activity task, whose history then holds the function_call_output items and which runs the queued
//     calls first;
//   - measured usage goes to Journal.RecordUsage before the message or calls are finalised.
//
// It does not own: the worker loop that polls activity tasks and heartbeats (package runtime), durable state and
// events (package engine), the concrete providers (packages harness/scripted, harness/bedrock, harness/openai,
// harness/anthropic), the MCP wire client (package harness/mcp), or function execution (functions are executed by
// the caller; environment tools are not supported).
package harness
