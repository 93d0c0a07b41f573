package httpapi

import (
	"net/http"

	"github.com/baton-run/baton/shared/agentcore/apierror"
)

// invokeHarness: POST /harnesses/invoke (the data plane, docs/agentcore.md §3), mounted behind the
// SigV4 gate (project(r) is the caller's project) and served by package agentcore/invoke. Without
// Options.RuntimeSessions the operation answers UnknownOperationException and writes nothing.
func (a *api) invokeHarness(w http.ResponseWriter, r *http.Request) {
	if a.invoke == nil {
		a.writeAgentCoreError(w, r, apierror.New(apierror.UnknownOperation, "InvokeHarness is not available in this build."))
		return
	}
	a.invoke.ServeHTTP(w, r)
}
