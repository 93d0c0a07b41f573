package session

// Input event types accepted on POST …/events (spec/agents-api-wire.md §4.1).
const (
	InputMessage    = "agent.session.input.message"
	InputToolResult = "agent.session.input.tool_result"
	InputCancel     = "agent.session.input.cancel"
)

// Input is one admitted input event of a batch: exactly one of Message (for InputMessage) or ToolResult (for
// InputToolResult) is set; InputCancel carries nothing.
type Input struct {
	Type       string
	Message    []ContentPart
	ToolResult *ToolResult
}
