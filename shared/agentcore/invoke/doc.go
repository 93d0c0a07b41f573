// Package invoke serves the AgentCore data plane, InvokeHarness (`POST /harnesses/invoke`), on the engine
// (docs/agentcore.md §3). A request is decoded and validated, its harness version and overrides are
// translated into an agent.Config (package translate), its runtimeSessionId is mapped to a Baton Session
// (created on first use), the inline-function handoff is decided (package handoff), and only then does it change
// state — one engine.PostEvents — and answer 200 with the Turn's output as AWS event-stream frames (package
// frames), translated from the Session's committed events. Every error is decided before the first byte and before
// any state change; errors are mapped in one place (errors.go) and written by package apierror, which owns
// the AgentCore error wire format for both planes.
//
// It does not authenticate: the AgentCore route gate (SigV4) puts the caller's project in the request context and
// Options.Project reads it. It does not store harnesses: Options.Harnesses returns the version an invoke runs.
package invoke
