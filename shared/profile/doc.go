// Package profile declares, once and as data, what each harness kind supports (docs/decisions.md "Words": Profile;
// docs/agents-api.md §5.2 support matrix and engine profiles, §3 per-harness limits) and computes, purely, the
// runtime capabilities a Session's configuration needs before its turns may be dispatched (§5.3).
//
// Every Profile field that says whether something is supported is a Support, whose zero value is invalid, so a
// declaration cannot forget a field silently (profile_test.go checks every field of every profile by reflection).
// Only the `baton` kind has a runtime (docs/decisions.md §2); `codex`, `claude_sdk` and `mcode` are admission profiles
// until their native runtimes exist.
//
// It does not own: applying the profile to a configuration (package admission, Stage B), finding a live runtime
// that advertises the capabilities (package engine, before dispatch), or what a runtime advertises (package
// runtime). It imports only package agent.
package profile
