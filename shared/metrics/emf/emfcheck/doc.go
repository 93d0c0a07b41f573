// Package emfcheck verifies that a line is CloudWatch embedded metric format that CloudWatch Logs can extract
// metrics from (docs/operations.md §3), for tests of package emf and of the running stack. It is kept apart from
// package emf so that the functions, which only write EMF, do not link a JSON Schema validator.
package emfcheck
