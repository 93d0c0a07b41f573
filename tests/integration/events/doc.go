// Package events replays every sample event of events/ through the handler its Lambda runs (API Gateway proxy
// events through the ApiFunction's and StreamFunction's handlers, task payloads through Park, Settle and
// Reconcile), against the running local stack's DynamoDB and Step Functions endpoints.
package events
