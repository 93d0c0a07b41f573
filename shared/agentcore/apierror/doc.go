// Package apierror owns the AgentCore error wire format (docs/agentcore.md §5), for both planes: an error
// response is the HTTP status of its shape, the header `X-Amzn-ErrorType: <shape>` and the JSON body
// `{"message", "reason"?, "fieldList"?}` (reason and fieldList only on ValidationException). The control plane
// (shared/httpapi) and InvokeHarness (shared/agentcore/invoke) each map their errors to an *Error once and write it
// with Write; nothing else writes AgentCore error bytes.
package apierror
