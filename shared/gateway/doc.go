// Package gateway is the AWS side of the agentcore_gateway tool (docs/tools.md "Gateway"): it finds a gateway's
// MCP URL from its ARN and signs the MCP requests the harness sends to it.
//
//   - ParseARN reads the region and the gateway id out of a gateway ARN
//     (`arn:aws:bedrock-agentcore:<region>:<account>:gateway/<id>`).
//   - AWSResolver asks the AgentCore control plane's GetGateway (the official bedrockagentcorecontrol client) for
//     `gatewayUrl`, in the ARN's region, and caches the answer; StaticResolver maps ARNs to URLs from deployment
//     configuration (BATON_GATEWAY_URLS, LoadURLs), for the local stack and emulated gateways.
//   - Signer (an http.RoundTripper factory for package harness/mcp) signs every request with AWS Signature
//     Version 4 (aws-sdk-go-v2's aws/signer/v4, signing name `bedrock-agentcore`, the ARN's region) over the SHA-256
//     of the body, with the runtime's credentials, fresh for each request.
//
// It does not own the MCP client (package harness/mcp), which servers a run connects or the outbound-auth rules
// (the connector reads outboundAuth and asks for a signer only for awsIam), nor any verification of signatures
// (package sigv4auth; the local gateway proxy, package local/gatewayproxy).
package gateway
