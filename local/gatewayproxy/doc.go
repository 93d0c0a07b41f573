// Package gatewayproxy is the local stand-in for an AgentCore gateway with IAM inbound auth (docs/tools.md
// "Gateway"): an http.Handler that verifies each request's AWS Signature Version 4 (signing name
// bedrock-agentcore, the access key pairs it is given; verification by package sigv4auth) and forwards the
// requests it accepts to an MCP server's streamable HTTP endpoint — in tests and `make local` the npm MCP test
// server @modelcontextprotocol/server-everything. An unsigned request, an unknown key, a wrong signature or a
// stale date gets 403 and reaches nothing.
//
// It does not own the MCP server it fronts, the signing (package gateway) or where gateway URLs come from
// (BATON_GATEWAY_URLS, package gateway).
package gatewayproxy
