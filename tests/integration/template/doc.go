// Package template checks template.yaml and the state machine definitions it references against each other
// and against the code: every function's code folder and build target exist, every ${…} placeholder of
// every ASL file has a DefinitionSubstitution and every substitution is used, the table's keys are the
// store's keys, and the external linters (cfn-lint, asl-validator) pass (docs/decisions.md §11).
package template
