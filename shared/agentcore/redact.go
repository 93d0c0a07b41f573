package agentcore

import "maps"

// RedactedHeaderValue replaces, in every control-plane read, a `remote_mcp` header value written as a literal (no
// `${arn:…}` token-vault reference in it): literal values are often credentials, and no read shows them
// (docs/agentcore.md "Header values in reads"). A value that holds a reference is shown as written; the reference
// names a credential, it is not one.
const RedactedHeaderValue = "********"

// RedactHeaders returns tools with every literal remote_mcp header value replaced by RedactedHeaderValue; tools is
// not modified.
func RedactHeaders(tools []Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if t.Config == nil || t.Config.RemoteMCP == nil || len(t.Config.RemoteMCP.Headers) == 0 {
			continue
		}
		cfg, mcp := *t.Config, *t.Config.RemoteMCP
		mcp.Headers = maps.Clone(mcp.Headers)
		for name, v := range mcp.Headers {
			if !vaultRefPattern.MatchString(v) {
				mcp.Headers[name] = RedactedHeaderValue
			}
		}
		cfg.RemoteMCP = &mcp
		out[i].Config = &cfg
	}
	return out
}

// restoreRedactedHeaders gives back, in the tools of an update, every header value sent as RedactedHeaderValue the
// value the old configuration has for the same tool name and header name (a client that read the harness and
// sends its tools back keeps its credentials). A redacted value with no old value stays as sent.
func restoreRedactedHeaders(tools, old []Tool) []Tool {
	prev := map[string]map[string]string{}
	for _, t := range old {
		if t.Config != nil && t.Config.RemoteMCP != nil {
			prev[t.Name] = t.Config.RemoteMCP.Headers
		}
	}
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if t.Config == nil || t.Config.RemoteMCP == nil {
			continue
		}
		var changed map[string]string
		for name, v := range t.Config.RemoteMCP.Headers {
			if was, ok := prev[t.Name][name]; ok && v == RedactedHeaderValue {
				if changed == nil {
					changed = maps.Clone(t.Config.RemoteMCP.Headers)
				}
				changed[name] = was
			}
		}
		if changed != nil {
			cfg, mcp := *t.Config, *t.Config.RemoteMCP
			mcp.Headers = changed
			cfg.RemoteMCP = &mcp
			out[i].Config = &cfg
		}
	}
	return out
}
