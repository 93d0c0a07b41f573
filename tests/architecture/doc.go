// Package architecture holds tests of the code's structural rules: the dependency direction of the domain
// packages, what each Lambda function links (docs/configuration.md "What each function links"), the single copy
// of the state machine's ASL error names (package shared/statemachine), that no process changes its own
// environment, and that the repository is self-contained: no tracked file cites a source outside it, and every
// "docs/<page>.md §n" names a section that exists.
package architecture
