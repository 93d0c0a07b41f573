package session

import "github.com/baton-run/baton/shared/agent"

// Input event types accepted on POST …/events (docs/agents-api.md §W4.1).
const (
	InputMessage    = "agent.session.input.message"
	InputToolResult = "agent.session.input.tool_result"
	InputCancel     = "agent.session.input.cancel"
)

// Input is one admitted input event of a batch: exactly one of Message (for InputMessage) or ToolResult (for
// InputToolResult) is set; InputCancel carries nothing. TurnConfig, on a message that opens a new Turn, is the
// configuration that Turn runs with instead of the Session's snapshot (Turn.Config; set only by a front door's
// translation, never from the Agents API wire); nil = the snapshot.
type Input struct {
	Type       string
	Message    []ContentPart
	ToolResult *ToolResult
	TurnConfig *agent.Config
}
