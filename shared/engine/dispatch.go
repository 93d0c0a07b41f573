package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/session"
)

// MessageExecutionUnavailable is the start of the 503 execution_unavailable message; the rest names the harness
// kind and the capabilities no live runtime advertises.
const MessageExecutionUnavailable = "No live runtime can execute this request"

// checkDispatch is the dispatch gate of docs/agents-api.md §3 ("Before dispatch, the selected Runtime must also
// advertise the operation's capability. An advertisement alone never enables an operation") and docs/decisions.md
// "Capabilities": a Turn about to be written needs at least one live runtime (registration not expired, i.e. a
// fresh heartbeat) of its harness kind whose advertisement contains every capability in t.Requires. Profile
// qualification (the Admission port) has already run and is never widened by an advertisement. Without such a
// runtime it returns 503 execution_unavailable, and the caller writes nothing. Disabled unless
// Options.RequireLiveRuntime.
func (e *Engine) checkDispatch(ctx context.Context, t session.Turn) error {
	if !e.requireRuntime {
		return nil
	}
	live, err := e.LiveRuntimes(ctx)
	if err != nil {
		return err
	}
	var missing []string
	for _, r := range live {
		if r.Kind != t.Harness {
			continue
		}
		m := profile.Missing(t.Requires, r.Capabilities)
		if len(m) == 0 {
			return nil
		}
		if missing == nil || len(m) < len(missing) {
			missing = m
		}
	}
	msg := fmt.Sprintf("%s: no live %s runtime is registered.", MessageExecutionUnavailable, t.Harness)
	if missing != nil {
		msg = fmt.Sprintf("%s: no live %s runtime advertises %s.", MessageExecutionUnavailable, t.Harness, strings.Join(missing, ", "))
	}
	e.record(ctx, MetricDispatchRefusals, 1, t.Harness, t.SessionID, "")
	return &Error{Status: 503, Code: CodeExecutionUnavailable, Message: msg}
}
