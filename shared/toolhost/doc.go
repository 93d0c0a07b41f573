// Package toolhost supplies a runtime's harness-run builtin tools per Session (docs/tools.md "Builtin tools"):
// Host opens the Session's workspace and returns `shell`, `file_operations` and the configuration's declared
// agentcore_code_interpreter tools (local provider unless the runtime gives another), with the capabilities they
// add to the runtime's advertisement. It satisfies the runtime's ToolHost port; it runs no tool itself.
package toolhost
