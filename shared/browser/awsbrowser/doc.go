// Package awsbrowser is the AWS provider of the agentcore_browser tool (docs/tools.md "Browser", "Providers"): it
// starts an AgentCore Browser session with the official bedrockagentcore client (StartBrowserSession), drives it
// with chromedp over the session's automation stream — a WebSocket carrying the Chrome DevTools Protocol whose
// upgrade request is signed with AWS Signature Version 4 — and stops it (StopBrowserSession) when the pool closes
// the browser. It owns no tool logic (package browser) and no credentials (the client's).
package awsbrowser
