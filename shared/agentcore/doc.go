// Package agentcore is the AgentCore Harness API's request model and its validation (docs/agentcore.md §3–§5):
// the harness configuration Baton stores for each harness version (tools, model, system prompt, allowedTools,
// limits, truncation), the checks every documented name, id, ARN, length and enum pattern gets, the members Baton
// cannot honour (rejected by name), CreateHarness and UpdateHarness (PATCH with `optionalValue` wrappers) decoding
// and merging, and the token-vault references `${arn:…:token-vault/<vault>/apikeycredentialprovider/<name>}`.
//
// It is pure: no I/O, no clock, no AWS SDK. The control-plane handlers (shared/httpapi) and InvokeHarness (its
// per-invocation overrides) call the same functions, so one request shape is validated one way. Errors are
// *ValidationError values whose Reason and Fields are what the wire's ValidationException carries; the API maps
// them to the wire once. It does not own storage (shared/engine, shared/store/dynamo) nor the wire error writer.
package agentcore
