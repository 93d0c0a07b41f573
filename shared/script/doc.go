// Package script owns the grammar of x_baton.script, the behaviour of the scripted model provider
// (docs/scripted-model.md): the decoded Script with its rules, conditions and call specs, Parse (which admission
// uses to reject a bad script at Agent and Session creation), how a rule matches a step (Rule.Matches), and the
// script templates with their data and functions (Render, RenderArguments).
//
// It imports only the standard library, so admission checks a script without linking the harness loop or any
// model provider. It does not run a model: the scripted model itself (streaming parts, call ids, usage) is
// package harness/scripted.
package script
