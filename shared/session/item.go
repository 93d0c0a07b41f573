package session

import (
	"encoding/json"

	"github.com/baton-run/baton/shared/jsonwire"
)

// Item types Baton produces (docs/agents-api.md §W4.6).
const (
	ItemMessage            = "message"
	ItemFunctionCall       = "function_call"
	ItemFunctionCallOutput = "function_call_output"
	ItemMCPCall            = "mcp_call"
	// ItemCommandExecution is a call of a harness-run builtin tool (shell, file_operations, a code interpreter, a
	// browser; docs/tools.md "Builtin tools"), rendered as the Agents API's command_execution item.
	ItemCommandExecution = "command_execution"
)

// Item statuses.
const (
	ItemInProgress = "in_progress"
	ItemCompleted  = "completed"
	ItemFailed     = "failed"
	ItemIncomplete = "incomplete"
)

// Message phases.
const (
	PhaseCommentary  = "commentary"
	PhaseFinalAnswer = "final_answer"
)

// Item is one durable history entry of a Session. Seq orders the Session's items (1-based, gap-free).
// OutputIndex is the item's position among its Turn's output items (nil for input items: user messages and
// function results, docs/agents-api.md §2.4). Only the members of the item's Type are rendered.
type Item struct {
	Seq         int64
	ID          string
	Type        string
	TurnID      string
	Status      string
	OutputIndex *int

	// message
	Role    string
	Phase   *string
	Content []ContentPart

	// function_call, function_call_output, mcp_call
	CallID    string
	Name      string
	Arguments json.RawMessage
	// Output and Error are always rendered on function_call_output and mcp_call items (null when absent).
	Output json.RawMessage
	Error  json.RawMessage

	// mcp_call
	ServerLabel string

	// command_execution: Command is a one-line rendering of the call (the shell command; otherwise the tool name and
	// its arguments), Cwd the workspace directory as the tool sees it, ExitCode the process exit status (0 when the
	// tool ran no process or the call failed before one ran), DurationMs the wall time of the call in milliseconds.
	// Output (a JSON string: what the model read) and Name, Arguments and CallID (the original tool name, its input
	// and the model's call id) are shared with the members above.
	Command    string
	Cwd        string
	ExitCode   int
	DurationMs int64
	// StartEventSeq is, for an assistant message, the sequence of the event that added it; the text of a message that
	// is still in progress lives only in its output_text.delta events after it (never rendered).
	StartEventSeq int64
}

// ContentPart is one part of a message: `input_text{text}`, `input_image{image_url}` or `output_text{text}`.
type ContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// MarshalJSON renders the part; text parts always carry `text`, even when empty.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	if p.Type == "input_image" {
		return jsonwire.Marshal(map[string]string{"type": p.Type, "image_url": p.ImageURL})
	}
	return jsonwire.Marshal(map[string]string{"type": p.Type, "text": p.Text})
}

// MarshalJSON renders the item as AgentSessionItemUnion.
func (it Item) MarshalJSON() ([]byte, error) {
	m := map[string]any{"id": it.ID, "type": it.Type, "turn_id": it.TurnID}
	switch it.Type {
	case ItemMessage:
		content := it.Content
		if content == nil {
			content = []ContentPart{}
		}
		m["role"] = it.Role
		m["phase"] = it.Phase
		m["status"] = it.Status
		m["content"] = content
	case ItemFunctionCall:
		m["call_id"] = it.CallID
		m["name"] = it.Name
		m["arguments"] = rawOrNull(it.Arguments)
		m["status"] = it.Status
	case ItemFunctionCallOutput:
		m["call_id"] = it.CallID
		m["output"] = rawOrNull(it.Output)
		m["error"] = rawOrNull(it.Error)
		m["status"] = it.Status
	case ItemMCPCall:
		m["server_label"] = it.ServerLabel
		m["name"] = it.Name
		m["arguments"] = rawOrNull(it.Arguments)
		m["output"] = rawOrNull(it.Output)
		m["error"] = rawOrNull(it.Error)
		m["status"] = it.Status
	case ItemCommandExecution:
		// The pinned members, then Baton's: the original tool name and its input (docs/tools.md "Items").
		out := ""
		_ = json.Unmarshal(it.Output, &out)
		m["command"] = it.Command
		m["cwd"] = it.Cwd
		m["output"] = out
		m["exit_code"] = it.ExitCode
		m["duration_ms"] = it.DurationMs
		m["status"] = it.Status
		m["name"] = it.Name
		m["arguments"] = rawOrNull(it.Arguments)
	default:
		m["status"] = it.Status
	}
	return jsonwire.Marshal(m)
}

// Text returns the concatenated text of a message's text parts.
func (it Item) Text() string {
	var s string
	for _, p := range it.Content {
		s += p.Text
	}
	return s
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}
