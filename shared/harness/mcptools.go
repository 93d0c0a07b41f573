package harness

import (
	"context"
	"encoding/json"
	"time"
)

// MCPToolSeparator joins a server_label and a server tool name into the name the model sees for an HTTP MCP tool:
// "<server_label>__<tool>" (e.g. "everything__get-sum"). Public mcp_call items keep the original label and name.
const MCPToolSeparator = "__"

// MCPToolName returns the model-facing name of tool `name` of server `label` (MCPToolSeparator).
func MCPToolName(label, name string) string { return label + MCPToolSeparator + name }

// Bounds of MCP work within one activity task.
const (
	// MCPConnectTimeout bounds connecting to one server and listing its tools.
	MCPConnectTimeout = 20 * time.Second
	// MCPCallTimeout bounds one tools/call.
	MCPCallTimeout = 2 * time.Minute
)

// MCPServer is one HTTP MCP server a run connects to: the declaration's server_label and server_url, and the
// bearer token of its selected Vault credential ("" = anonymous). Allowed-tools filtering and the required flag
// are applied by the harness, not by the connector.
type MCPServer struct {
	Label       string
	URL         string
	BearerToken string
}

// MCPConnector opens MCP client sessions (package harness/mcp implements it with the official go-sdk over
// streamable HTTP). Connect initializes the session; it returns an error when the server cannot be reached or
// refuses initialization. The error must not contain the bearer token.
type MCPConnector interface {
	Connect(ctx context.Context, server MCPServer) (MCPSession, error)
}

// MCPSession is an initialized MCP client session.
type MCPSession interface {
	// ListTools returns every tool of the server (all pages), in the server's order.
	ListTools(ctx context.Context) ([]MCPTool, error)
	// CallTool calls a tool with JSON object arguments. A tool-level failure (the result's isError) is a result
	// with IsError set, not an error; an error means the call itself failed (transport, protocol, unknown tool).
	CallTool(ctx context.Context, name string, arguments json.RawMessage) (MCPResult, error)
	// Close ends the session.
	Close() error
}

// MCPTool is a tool a server lists: its original name, description and input JSON Schema (nil = none given).
type MCPTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// MCPResult is the observed result of a tools/call, mapped by the connector (docs/mcp.md "Results"): Output is a
// JSON value — the structuredContent when the server returned one, otherwise the text content parts joined as a
// JSON string ("" when there are none). IsError reports the result's isError.
type MCPResult struct {
	Output  json.RawMessage
	IsError bool
}
