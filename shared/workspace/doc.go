// Package workspace owns the per-Session workspace of the harness-run builtin tools (docs/tools.md "Workspace"): a
// directory that belongs to one Session alone, kept across its Turns and across runtimes (locally a folder under the
// stack's data directory, on AWS a directory of the EFS file system every runtime task mounts), the resolution of
// the paths a model names inside it, and the sandbox that runs commands in it (bubblewrap where the kernel allows
// it, else a plain process with a cleared environment; Manager.Mode says which).
//
// It does not know the tools: package builtintools renders shell and file_operations on top of it and package
// codeinterpreter runs programs with it. It imports only the standard library.
package workspace
