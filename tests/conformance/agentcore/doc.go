// Package agentcore proves Baton's AgentCore control plane and token vault against their contracts
// (docs/agentcore.md) on a running local stack, through the official aws-sdk-go-v2 bedrockagentcorecontrol client
// (BaseEndpoint = the stack's API URL, static credentials from the admin API, region us-east-1): every operation,
// every error decoded as the SDK's typed error, clientToken idempotency, the lifecycle, versions and endpoint
// pinning, SigV4 rejections, and every rejected request proved to have left the table unchanged.
//
// Tests that compare table snapshots do not call t.Parallel, so they run before the parallel tests start.
package agentcore
