// Package lambdahttp runs the API's http.Handler inside Lambda for API Gateway's REST API: buffered responses
// through aws-lambda-go-api-proxy (the ApiFunction), and streamed responses for the REST API's response-streaming
// integration (the StreamFunction: `responseTransferMode: STREAM`, Lambda InvokeWithResponseStream), where
// aws-lambda-go-api-proxy would buffer the whole SSE stream.
//
// It owns the Lambda ↔ net/http glue only; routes and wire formats are in httpapi.
package lambdahttp
