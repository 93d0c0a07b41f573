// Package session owns the records of a conversation: the Session with its frozen agent snapshot, its Turns,
// the Items of its history, the Events of its stream, the pending function calls (required actions) and the
// caller's tool results. It defines their JSON shapes as the Agents API renders them (docs/agents-api.md §W4,
// docs/agents-api.md §2) so that stored events carry exactly what the stream sends.
//
// It performs no I/O: use cases live in package engine, storage in store/dynamo.
package session
