// Package translate turns an AgentCore harness configuration — a harness version's saved configuration plus the
// per-invocation overrides of one InvokeHarness call — into the engine's agent.Config (docs/agentcore.md
// §3.2). It is pure: no I/O, no AWS SDK, no HTTP. AgentCore wire shapes stop here; the
// engine, the Session and the harness see only agent.Config.
//
// It owns the mapping rules (inline_function → function tool, remote_mcp → HTTP MCP declaration with headers,
// the three AgentCore-run tool types carried as declarations, model configurations → x_baton.model_provider,
// systemPrompt → instructions, allowedTools and limits → agent.Controls) and the scripted-model selector. It does
// not own request validation of the wire (lengths, patterns, required members): callers validate first.
package translate
