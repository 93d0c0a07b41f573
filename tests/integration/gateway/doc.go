// Package gateway holds the end-to-end test of an agentcore_gateway tool on a local stack of its own: an
// AgentCore harness declares the gateway, a harness runtime whose MCP connector resolves and signs for it runs the
// turn, and the local SigV4-verifying gateway (package local/gatewayproxy) in front of the npm MCP test server
// checks every request (docs/tools.md "Gateway").
package gateway
