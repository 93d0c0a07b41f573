package frames

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// ContentType is the HTTP Content-Type of an InvokeHarness response stream.
const ContentType = "application/vnd.amazon.eventstream"

// Event types (`:event-type`, the union member names).
const (
	TypeMessageStart      = "messageStart"
	TypeContentBlockStart = "contentBlockStart"
	TypeContentBlockDelta = "contentBlockDelta"
	TypeContentBlockStop  = "contentBlockStop"
	TypeMessageStop       = "messageStop"
	TypeMetadata          = "metadata"
)

// Exception types (`:exception-type`, the union member names).
const (
	ExceptionInternalServer = "internalServerException"
	ExceptionValidation     = "validationException"
	ExceptionRuntimeClient  = "runtimeClientError"
)

// Stop reasons of messageStop (`stopReason`).
const (
	StopEndTurn                 = "end_turn"
	StopToolUse                 = "tool_use"
	StopToolResult              = "tool_result"
	StopMaxTokens               = "max_tokens"
	StopInterrupted             = "interrupted"
	StopMaxIterationsExceeded   = "max_iterations_exceeded"
	StopMaxOutputTokensExceeded = "max_output_tokens_exceeded"
	StopTimeoutExceeded         = "timeout_exceeded"
	StopPartialTurn             = "partial_turn"
)

// Tool use types of contentBlockStart.start.toolUse.type.
const (
	ToolUseInline = "tool_use"
	ToolUseMCP    = "mcp_tool_use"
	// ToolUseServer is a tool the harness runs itself (shell, file_operations, code interpreter, browser).
	ToolUseServer = "server_tool_use"
)

// MessageStart is `messageStart{role}` (`user` | `assistant`).
type MessageStart struct {
	Role string `json:"role"`
}

// ContentBlockStart is `contentBlockStart{contentBlockIndex, start}`; start is the union {toolUse} | {toolResult}.
// Text blocks have no start frame.
type ContentBlockStart struct {
	ContentBlockIndex int        `json:"contentBlockIndex"`
	Start             BlockStart `json:"start"`
}

// BlockStart is the `start` union: exactly one member is set.
type BlockStart struct {
	ToolUse    *ToolUseStart    `json:"toolUse,omitempty"`
	ToolResult *ToolResultStart `json:"toolResult,omitempty"`
}

// ToolUseStart is `{toolUseId, name, type, serverName}`; serverName only for mcp_tool_use.
type ToolUseStart struct {
	ToolUseID  string `json:"toolUseId"`
	Name       string `json:"name"`
	Type       string `json:"type,omitempty"`
	ServerName string `json:"serverName,omitempty"`
}

// ToolResultStart is `{toolUseId, status}` (`success` | `error`).
type ToolResultStart struct {
	ToolUseID string `json:"toolUseId"`
	Status    string `json:"status,omitempty"`
}

// ContentBlockDelta is `contentBlockDelta{contentBlockIndex, delta}`.
type ContentBlockDelta struct {
	ContentBlockIndex int   `json:"contentBlockIndex"`
	Delta             Delta `json:"delta"`
}

// Delta is the `delta` union: text | toolUse{input: a fragment of the JSON input} | toolResult[{text}|{json}].
type Delta struct {
	Text       *string           `json:"text,omitempty"`
	ToolUse    *ToolUseDelta     `json:"toolUse,omitempty"`
	ToolResult []json.RawMessage `json:"toolResult,omitempty"`
}

// ToolUseDelta is `{input}`: the next fragment of the tool input's JSON text.
type ToolUseDelta struct {
	Input string `json:"input"`
}

// ContentBlockStop is `contentBlockStop{contentBlockIndex}`.
type ContentBlockStop struct {
	ContentBlockIndex int `json:"contentBlockIndex"`
}

// MessageStop is `messageStop{stopReason}`.
type MessageStop struct {
	StopReason string `json:"stopReason"`
}

// Metadata is `metadata{usage, metrics}`: token counts of the invocation and its latency in milliseconds.
type Metadata struct {
	Usage   Usage   `json:"usage"`
	Metrics Metrics `json:"metrics"`
}

// Usage is `{inputTokens, outputTokens, totalTokens}`.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	TotalTokens  int64 `json:"totalTokens"`
}

// Metrics is `{latencyMs}`.
type Metrics struct {
	LatencyMs int64 `json:"latencyMs"`
}

// Exception is the payload of an in-stream exception: `{message}`.
type Exception struct {
	Message string `json:"message"`
}

// Writer writes frames to an InvokeHarness response body, flushing after each frame when Flush is set.
type Writer struct {
	w     io.Writer
	enc   *eventstream.Encoder
	flush func() error
}

// NewWriter returns a Writer on w; flush (nil = none) is called after every frame so each reaches the client.
func NewWriter(w io.Writer, flush func() error) *Writer {
	return &Writer{w: w, enc: eventstream.NewEncoder(), flush: flush}
}

// Event writes one event frame: headers `:message-type: event`, `:event-type: <eventType>`,
// `:content-type: application/json`, payload the JSON of v. It returns the write error (a gone client).
func (w *Writer) Event(eventType string, v any) error {
	return w.write("event", ":event-type", eventType, v)
}

// Exception writes one exception frame (`:message-type: exception`, `:exception-type: <exceptionType>`, payload
// `{message}`); the client's stream then ends with that typed error.
func (w *Writer) Exception(exceptionType, message string) error {
	return w.write("exception", ":exception-type", exceptionType, Exception{Message: message})
}

func (w *Writer) write(messageType, typeHeader, typ string, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s frame: %w", typ, err)
	}
	var m eventstream.Message
	m.Headers.Set(":message-type", eventstream.StringValue(messageType))
	m.Headers.Set(typeHeader, eventstream.StringValue(typ))
	m.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	m.Payload = payload
	if err := w.enc.Encode(w.w, m); err != nil {
		return err
	}
	if w.flush != nil {
		return w.flush()
	}
	return nil
}
