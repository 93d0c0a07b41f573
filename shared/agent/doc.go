// Package agent owns the saved Agent resource: its configuration (model, instructions, tools, text.format, the
// x_baton extension), the defaults a saved Agent renders with, and the frozen copy a Session takes at creation
// (Snapshot).
//
// It does not validate tool declarations for execution (that is Session admission, package admission) and does not
// store anything (package store/dynamo). Shapes follow docs/agents-api.md §W3 and §2.1.
package agent
