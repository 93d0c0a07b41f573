// Package architecture holds tests of the code's structural rules: the dependency direction of the domain
// packages, what each Lambda function links (docs/configuration.md "What each function links"), the single copy
// of the state machine's ASL error names (package shared/statemachine), and that no process changes its own
// environment.
package architecture
