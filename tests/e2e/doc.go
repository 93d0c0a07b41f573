// Package e2e drives the running local stack end to end with the official openai-go v3 client (and raw HTTP
// where the SDK hides statuses and headers): the inline function round trip of docs/agents-api.md §W7, raw
// and through the SDK's Sessions.Stream helper; the tool-result table of docs/agents-api.md §4 with docs/decisions.md
// §9's wire choices; races of tool results split across two API processes sharing one table; and a
// crash of the whole stack while a required action is pending.
//
// Most tests share one stack (tests/stack.Shared, or the stack named by BATON_TEST_STATE_FILE); the restart
// tests start stacks of their own. Run: `make build && go test ./tests/e2e/` (CI=true: nothing skips).
package e2e
