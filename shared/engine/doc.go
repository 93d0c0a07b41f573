// Package engine owns Baton's use cases, shared by both front doors and by the task functions: saved Agents,
// Session creation with its snapshot, input admission (messages, tool results, cancel), the durable Turn lifecycle
// (begin, output, function calls, park, resume, settle), stream reads and the runtime registry.
//
// It talks to the outside only through the ports in ports.go (Store, Orchestrator, Admission); it imports no AWS
// SDK. Every state change is a read → decide → conditional commit with optimistic versions, retried on conflict, so
// concurrent API processes, runtimes and task functions agree without locks (docs/decisions.md "Shape", §7).
// Wire encoding and HTTP status mapping belong to package httpapi.
package engine
