// Package launcher runs Baton's local stack (docs/decisions.md "Local stack", §5): DynamoDB Local as a child
// process, the table from template.yaml, the Step Functions–compatible endpoint executing the template's state
// machine with its DefinitionSubstitutions, the Lambda invoke endpoint hosting the task functions in-process, the
// Agents API on plain net/http, and the harness runtimes as child processes. Every child runs in its own process
// group and dies with the launcher. It provisions a stable project and API key so restarts keep credentials.
//
// It owns process wiring only; behaviour lives in shared/ and local/{sfn,lambdahost,ddblocal,template}.
package launcher
