// Package awsci is the AWS provider of the agentcore_code_interpreter tool (docs/tools.md "Code interpreter on
// AWS"): codeinterpreter.Provider implemented on the AgentCore Code Interpreter data plane with the official
// aws-sdk-go-v2 bedrockagentcore client. One Provider is one interpreter session: StartCodeInterpreterSession on
// the first Execute (identifier = the last path segment of the declared codeInterpreterArn, else the built-in
// aws.codeinterpreter.v1), InvokeCodeInterpreter executeCode {code, language} for each Execute, reading the event
// stream's result events, and StopCodeInterpreterSession on Close.
//
// It does not own the tool the model sees or its result mapping (package codeinterpreter and the harness), the
// local sandboxed provider, or the AWS credentials and endpoint (the client it is given).
package awsci
