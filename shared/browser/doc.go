// Package browser is the agentcore_browser tool (docs/tools.md "Browser"): the action tool the model sees (Tool),
// the per-Session browser that tool drives (Session, kept in a Pool across the Session's turns on one runtime) and
// the Provider interface behind it. The local provider (Local) runs headless Chromium on this machine, its traffic
// passing a network guard that keeps pages off link-local credential endpoints; the AWS provider (package
// browser/awsbrowser) starts an AgentCore Browser session and drives it over its SigV4-signed automation stream.
// Both are driven with the same CDP client (chromedp), so the model sees the same tool either way. This package
// owns no HTTP front door and no AWS SDK; it does not decide which tools a configuration offers (shared/harness
// does) nor which provider a deployment uses (the runtime's setup does).
package browser
