// Package sfn holds the integration tests (package sfn_test) of the local Step Functions endpoint
// (local/sfn): each test starts the endpoint on an httptest server and drives it through the unmodified
// aws-sdk-go-v2 sfn client only, with the cases of docs/internals.md "The local Step Functions endpoint".
package sfn
