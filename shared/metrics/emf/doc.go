// Package emf writes the engine's measurements as CloudWatch embedded metric format (EMF) lines: one JSON object
// per line on an io.Writer (a Lambda function's or a task's stdout), from which CloudWatch Logs extracts the
// metrics (docs/operations.md §3). It owns the line format only; what is measured, and when, belongs to package
// engine (engine.Metrics). It uses the standard library only.
package emf
