// Package sfn is Baton's offline, Step Functions–compatible endpoint (docs/decisions.md "Local stack";
// docs/internals.md "The local Step Functions endpoint").
//
// It owns:
//   - the awsJson1_0 wire protocol (X-Amz-Target: AWSStepFunctions.<Op>) for the operations Baton and its
//     tests use, so that the unmodified aws-sdk-go-v2 sfn client works with BaseEndpoint pointing at it (§1, §2);
//   - an interpreter for the JSONPath flavour of the Amazon States Language: Pass, Task, Choice, Wait,
//     Succeed and Fail states, paths, payload templates, intrinsic functions, Retry/Catch, task timeouts and
//     heartbeats (§4);
//   - the task resources of §3: activities, lambda:invoke, lambda:invoke.waitForTaskToken and legacy
//     function ARNs, the Lambda calls going through the Invoker port;
//   - durable state: with Options.DataDir set, state machines, activities and executions (cursor, history,
//     open task tokens) are written to JSON files at every transition and resumed by New.
//
// It does not own: DefinitionSubstitutions taken from template.yaml (local/template does that and passes a
// substituted definition), the Lambda functions themselves (the local Lambda invoke endpoint hosts them),
// Express workflows, Parallel/Map states, JSONata, variables, and every service integration other than Lambda;
// CreateStateMachine rejects those loudly with InvalidDefinition.
package sfn
