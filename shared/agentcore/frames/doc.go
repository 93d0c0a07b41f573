// Package frames writes the InvokeHarness response stream: typed payloads of the `InvokeHarnessStreamOutput`
// union (messageStart, contentBlockStart, contentBlockDelta, contentBlockStop, messageStop, metadata) and its
// in-stream exceptions, each framed as one AWS event-stream message with aws-sdk-go-v2's eventstream encoder
// (docs/agentcore.md §3.5). It owns the frame headers and JSON shapes, nothing else.
package frames
