// Package httpapi serves the OpenAI Agents API (beta `agents=v1`, docs/agents-api.md §W1.1–1.3), the AgentCore
// Harness API (`/harnesses…`, `/identities…`; docs/agentcore.md) and Baton's admin API (`/admin/v1`, docs/decisions.md
// §4) as one net/http handler on the engine. The same handler runs under
// aws-lambda-go-api-proxy, under a response-streaming Lambda and under net/http locally; it uses no Lambda types.
//
// It owns the wire: the request gate (OpenAI-Beta, bearer key, request id and response headers), the JSON body
// gate (docs/agents-api.md §1.1), list parameters and envelopes, the SSE stream, and the one error writer that
// maps engine errors to `{"error":{message,type,code,param}}`. Request validation is package admission; use cases
// and storage are package engine and its Store. Resources render themselves (agent.Agent, session.Session, …).
//
// The AgentCore routes have their own gate (SigV4 through shared/sigv4auth, agentcore.go), their own wire shapes
// (agentcore_*.go; request validation in shared/agentcore) and their own single error mapping, writeAgentCoreError;
// the bytes (`X-Amzn-ErrorType` + `{"message",…}`) are written by shared/agentcore/apierror.
//
// Operations (ops.go, docs/operations.md §1–§2): GET /healthz and GET /readyz without authentication, and one JSON
// access log line per request, for both front doors, written when the handler returns (for a stream, when it ends).
//
// The live console (console.go, docs/console.md §1): GET /console and its assets without authentication; the files
// and their security headers are package console's, the routing and the 404/405 answers are this package's.
package httpapi
