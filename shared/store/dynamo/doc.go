// Package dynamo implements the engine's Store on one DynamoDB table with aws-sdk-go-v2 (docs/internals.md "The
// table"). It owns the item layout: private record structs with dynamodbav tags, explicit toItem/fromItem mapping,
// and the condition expressions that make every invariant hold across processes (optimistic versions on session
// META and TURN items, attribute_not_exists on everything that is created once). Commit writes one
// TransactWriteItems; a failed condition surfaces as engine.ErrConflict, a missing record as engine.ErrNotFound.
//
// It holds no business rules; those are in package engine.
package dynamo
