// Package metrics counts AWS requests by service and operation (e.g. "DynamoDB.TransactWriteItems") in this
// process, through an aws-sdk-go-v2 middleware, for benchmarks and the admin stats route. It holds counters
// only; it exports nothing to a metrics backend.
package metrics
