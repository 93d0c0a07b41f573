// Package mcp owns the baton harness's HTTP MCP client: harness.MCPConnector implemented with the official
// github.com/modelcontextprotocol/go-sdk client over streamable HTTP (docs/decisions.md "Libraries"; docs/agents-api.md §3.5).
//
// Connect initializes one client session per server and call; ListTools pages through tools/list; CallTool sends
// tools/call and maps the result (docs/mcp.md "Results"): the structuredContent as the output when the server
// returned one, otherwise the text content parts joined as one JSON string; isError is kept. With a bearer token,
// every HTTP request of the session (initialize, notifications, tools/list, tools/call, session DELETE) carries
// `Authorization: Bearer <token>`, added by the http.Client's RoundTripper.
//
// An agentcore_gateway (docs/tools.md "Gateway") is an MCP server like any other once connected: Connect resolves
// its URL from the gateway ARN through the injected GatewayResolver and, for outboundAuth awsIam (the default),
// sends every request through the injected GatewaySigner's RoundTripper (SigV4; package gateway implements both,
// so this package imports no AWS code); none sends no credentials; oauth is refused (ErrOAuthUnsupported).
//
// It does not own which servers a run connects, allowed_tools, the required flag, tool naming or the mcp_call
// items (package harness), nor the credentials (chosen at Session creation, frozen in the snapshot).
package mcp
