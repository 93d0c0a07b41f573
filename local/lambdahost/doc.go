// Package lambdahost hosts Lambda functions in-process behind the Lambda Invoke REST API, so that the local
// Step Functions endpoint and any other aws-sdk-go-v2 lambda client (AWS_ENDPOINT_URL_LAMBDA) invoke them
// exactly as on AWS (docs/decisions.md "Local stack", §5; what `sam local start-lambda` gives).
//
// Functions are registered as aws-lambda-go lambda.Handler values, normally built with lambda.NewHandler(fn),
// so the payload goes through the same reflection and JSON wrapper as in a deployed function. Each invocation
// gets a lambdacontext.LambdaContext (request id, invoked function ARN) in its context.
//
// Implemented: POST /2015-03-31/functions/{FunctionName}/invocations with FunctionName as a name, a partial
// ARN or a full ARN (optionally qualified with $LATEST), and X-Amz-Invocation-Type RequestResponse (200),
// Event (202, run in the background) and DryRun (204). Not implemented: versions and aliases other than
// $LATEST, InvokeWithResponseStream, async retries and destinations, X-Amz-Log-Type tails, client context.
//
// Errors follow the real service (docs/internals.md §L5 notes that the runtime interface emulator gets this
// wrong): an unknown function is 404 with X-Amzn-ErrorType ResourceNotFoundException; a handler error is 200
// with X-Amz-Function-Error: Unhandled and the body {"errorMessage","errorType"} that aws-lambda-go reports.
package lambdahost
