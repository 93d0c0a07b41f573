// Package setup builds Baton's components from configuration: the environment variables of docs/internals.md,
// the AWS SDK configuration (endpoints from AWS_ENDPOINT_URL_* or the default chain), the DynamoDB store, the
// Step Functions orchestrator, execution admission and the engine. Functions, runtimes and the local launcher call
// it; no other package reads the environment for these settings.
package setup
