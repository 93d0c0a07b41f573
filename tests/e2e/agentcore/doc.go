// Package agentcore drives InvokeHarness end to end on the local stack with the official
// github.com/aws/aws-sdk-go-v2/service/bedrockagentcore client (harnesses are created with the official
// bedrockagentcorecontrol client), on the scripted model: the event-stream frames, the inline-function handoff and
// its invalid follow-ups, overrides, a busy session, and concurrent identical follow-ups (docs/agentcore.md
// "InvokeHarness"); and the harness-run tools (docs/tools.md "Builtin tools"): shell and file_operations across two
// runtimes, Session isolation and limits, the code interpreter, tool order around an inline call, the browser on a
// local page and a gateway behind the SigV4-verifying proxy.
package agentcore
