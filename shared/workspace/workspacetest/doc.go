// Package workspacetest gives the tests of the packages built on package workspace (builtintools, codeinterpreter,
// toolhost) their Manager and Session workspace: rooted in the test's own temporary directory and sandboxed by
// bubblewrap (docs/tools.md "Isolation").
//
// It is for tests only: no production package imports it. It does not fake the sandbox; a machine without a
// working bubblewrap fails the test.
package workspacetest
