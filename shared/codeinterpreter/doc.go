// Package codeinterpreter is the agentcore_code_interpreter tool (docs/tools.md "Code interpreter"): the tool the
// model sees and the Provider interface its two implementations satisfy — local (the Session's sandboxed
// workspace) and AWS (the AgentCore Code Interpreter, package codeinterpreter/awsci).
package codeinterpreter
