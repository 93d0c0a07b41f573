// Package sigv4auth verifies AWS Signature Version 4 on requests the AgentCore front door receives
// (docs/agentcore.md §2): it recomputes the signature with aws-sdk-go-v2's aws/signer/v4 over exactly what the
// client signed — only the headers named in SignedHeaders, the host the client used, the full path (with the REST
// API stage prefix when the function sees the path without it, see WithSignedPath) and the SHA-256 of the body —
// and compares it in constant time. It owns no keys: a Lookup function returns the project and secret of an access
// key id. It writes no responses; shared/httpapi maps its errors to the AgentCore wire.
package sigv4auth
