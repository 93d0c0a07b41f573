// Package stack gives end-to-end tests a running local Baton stack and the clients to drive it.
//
// Start runs `bin/baton-local` (through local/stackproc) on free ports with short test timeouts, in its own
// process group, and stops it when the test ends; Shared returns one stack per test binary (TestMain calls Main),
// or attaches to a stack that is already running when BATON_TEST_STATE_FILE names its state file (`make test`
// may start one). Attach adds a second API-only process against a stack (two API servers sharing one table).
// OpenAI builds the official openai-go client for a stack; Do sends raw HTTP requests for status codes and
// headers the SDK hides. Snapshot scans the whole table (runtime heartbeats excluded) and AssertUnchanged compares two
// snapshots, so a test can prove that a rejected request wrote nothing. Everything starts the npm MCP test server
// (server-everything) once per test binary.
//
// Under CI=true a missing binary or a stack that does not start fails the test; otherwise a missing
// bin/baton-local skips it with a message (a stack that fails to start always fails).
//
// It does not own the stack (local/launcher) nor any assertion about it (tests/e2e).
package stack
