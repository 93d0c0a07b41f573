package httpapi

import "net/http"

// invokeHarness: POST /harnesses/invoke (the data plane, docs/agentcore.md §3). The route is mounted behind the
// SigV4 gate (project(r) is the caller's project); the InvokeHarness handler itself is not part of this change:
// until it lands, the operation answers UnknownOperationException and writes nothing.
func (a *api) invokeHarness(w http.ResponseWriter, r *http.Request) {
	a.writeAgentCoreError(w, r, &acError{shape: acUnknownOp, Message: "InvokeHarness is not available in this build."})
}
