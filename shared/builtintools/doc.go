// Package builtintools is the default harness-run tools `shell` and `file_operations` (docs/tools.md "shell" and
// "file_operations"): their model-facing definitions (JSON Schemas the harness validates arguments against), their
// semantics, and the text results the model reads. Both work in one Session's workspace (package workspace), which
// owns path confinement, the sandbox and the limits. It does not decide when the tools are offered (package
// harness does) nor journal their calls (the harness writes the command_execution items).
package builtintools
