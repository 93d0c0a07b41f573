// Package admission turns decoded Agents API request bodies into validated commands for the engine: Agent create
// and update (agent.Config), Session create (engine.NewSession), Session update (metadata) and input event batches
// ([]session.Input). It implements Stage A of docs/agents-api.md §3 — the protocol checks every harness shares:
// pinned member names (`Unknown parameter: '<path>'.`), member types, enums, required members, the per-tool-type
// declaration rules, duplicate functions/controls, schema roots, and JSON Schema compilation with
// santhosh-tekuri/jsonschema/v6 — and the input rules of §2.5 and §4.
//
// Every function here is pure: it reads bytes and returns a command or an *engine.Error (400, with the wire code,
// message and param path) and writes nothing. It does not qualify a configuration for a harness (Stage B, run by the
// engine's Admission port at Session creation) and does not decode HTTP (content type, size, UTF-8, duplicate keys
// are the body gate in package httpapi); callers pass a body that is one JSON object.
package admission
