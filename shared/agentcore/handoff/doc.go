// Package handoff owns the AgentCore inline-function handoff rules (docs/agentcore.md §3.6): how a
// runtimeSessionId maps to a Baton Session (RuntimeSession), and the pure decision whether an InvokeHarness
// request may go on — a new user turn, or the follow-up that answers a pause — given the Session's active Turn and
// its pending calls (Decide). It does no I/O and knows no HTTP: the InvokeHarness handler loads the state, calls
// Decide, and maps a *Rejection to its wire error once.
package handoff
