// Package scripted owns the deterministic `scripted` model provider (x_baton.model_provider.protocol
// "scripted", the default): the model the local stack runs unless a real provider is configured, and the one the
// tests use. Its behaviour rides in the Session snapshot's x_baton.script (docs/decisions.md §1); nothing else in
// Baton special-cases it — it is a harness.Model like any other.
//
// # Script format
//
// The full reference with examples is docs/scripted-model.md. In short:
//
//	{
//	  "rules": [
//	    {"when": {"user_contains": "weather"},
//	     "commentary": "Checking the weather.",
//	     "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}},
//	               {"name": "get_time",    "arguments": {"tz": "Europe/Paris"}}]},
//	    {"when": {"after_tool": "get_weather"},
//	     "reply": "Sunny in {{tool_arg \"get_weather\" \"city\"}}: {{tool_output \"get_weather\"}}"},
//	    {"when": {"user_matches": "(?i)fail with (?P<why>.+)"}, "error": "provider overloaded"}
//	  ],
//	  "default_reply": "You said: {{.UserText}}",
//	  "chunk_size": 8,
//	  "omit_usage": false
//	}
//
// A step follows either a user message (the user stage) or tool results (the tool stage: the conversation's last
// message holds function results). Rules are tried in order and the first that matches answers:
//   - when.after_tool "" matches only in the user stage; a function name (or "*") only in the tool stage, when a
//     result of that function is among the step's last results;
//   - when.user_contains: the last user text contains it, ignoring case;
//   - when.user_matches: a Go RE2 expression matching the last user text (groups → .Match);
//   - when.tool_offered / when.tool_not_offered: the request offers (does not offer) a tool of that name.
//
// A step follows tool results also when the harness ran MCP tools or tool_search itself within one activity task;
// their results are named "<server_label>__<tool>" and "tool_search". A call spec {"server_label", "name"} calls an
// HTTP MCP tool (model-facing name harness.MCPToolName).
//
// Actions (exactly one): "calls" — one or several function calls in one response, in order, optionally preceded
// by "commentary" text; "reply" — the final answer; "error" — the model fails with a harness.ModelError
// (Baton.ModelError) whose cause is "scripted model: <error>", after streaming "reply" if the rule also has one.
// No match → default_reply (DefaultReply when absent). A rule may also set "delay_ms" (0–MaxDelayMS): the model waits
// that long before its first part, ending early when the step is cancelled (a slow model for tests).
//
// Texts (commentary, reply, default_reply, and every string inside call arguments) are Go text/template templates
// over Data: .UserText, .Instructions, .Match, .ToolNames (the offered tool names), .Tools (the turn's results
// since the last user message, each with .Index (1-based), .CallID, .Name, .Arguments, .ArgumentsJSON, .Output,
// .IsError) and the functions
// tool_output REF, tool_args REF, tool_arg REF KEY (REF = a function name, latest result wins, or a 1-based
// index) and json VALUE. Referring to a missing result or key fails the step with a ModelError.
//
// Text is emitted in deltas of chunk_size runes (default DefaultChunkRunes), with the phase declared on each delta
// (commentary when calls follow, final_answer otherwise) so the harness streams it live. Call ids are
// "call_<turn id without its prefix>_<n>", n counting the calls of the whole conversation from 1 and skipping ids
// the conversation already holds: unique within the Session, identical for the same history. Usage counts words (strings.Fields): input = instructions, message
// texts and tool outputs of the request; output = the emitted text plus each call's name and arguments JSON.
// omit_usage: true leaves the turn's usage null. An error rule emits no usage.
//
// It does not own: the script's grammar, its parser and its templates (package script, which admission also uses
// to check a script at Session creation without linking the harness), or the agent loop (package harness).
package scripted
