// Package setup builds Baton's components from configuration: Load reads and checks the settings of one component
// (docs/configuration.md) through a getenv function and names every missing or malformed one; New builds the AWS
// clients (DynamoDB, Step Functions), the DynamoDB store, the Step Functions orchestrator and the engine from a
// Config; FromEnvironment does both for a deployed process. Functions and runtimes call it; the local launcher
// fills in a Config itself and calls New. No other package reads the environment for these settings.
//
// It holds no local defaults (the local stack's names live in local/launcher) and links no Session admission:
// the caller passes the admission port, so the task functions (Park, Settle, Reconcile) link neither admission nor
// the harness.
package setup
