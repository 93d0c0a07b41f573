// Package conformance proves Baton's Agents API (beta agents=v1) against its contracts on a running local stack:
// every route through the official openai-go v3 client (typed params, decoded responses, auto-paging,
// *openai.Error status/type/code) and through raw HTTP for what the SDK hides (headers, exact error bodies, SSE
// framing, the JSON body gate); the request gate; idempotency; cancel; Session status, required actions and usage;
// and one table-driven test per line of the tool-declaration checklists (docs/agents-api.md §3) with the exact
// status, type, code and param, each rejected request proved to have left the table unchanged.
//
// Contracts: docs/agents-api.md §1–§4, §6 and §W1–§W5,
// docs/decisions.md §3, §4, §8, §9 and §10 (which win where they differ).
//
// All tests share one stack (tests/stack.Shared; TestMain is stack.Main). Tests that compare table snapshots do not
// call t.Parallel, so they run before the parallel tests start and see a quiet table.
package conformance
