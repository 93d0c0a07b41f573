package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/session"
)

// MessageExecutionUnavailable is the start of the 503 execution_unavailable message; the rest names the harness
// kind and the capabilities no live runtime advertises.
const MessageExecutionUnavailable = "No live runtime can execute this request"

// capabilityHints say what a runtime needs to advertise a capability that depends on the runtime's host rather than
// on its code (docs/tools.md "Builtin tools"); a refusal names them.
var capabilityHints = map[string]string{
	profile.CapBrowser: "agentcore_browser needs Chromium on the runtime's host (Debian package chromium, or " +
		"BATON_CHROMIUM_PATH) or BATON_TOOL_PROVIDER=aws.",
	profile.CapBuiltinTools: "builtin_tools (shell, file_operations) needs BATON_WORKSPACE_ROOT and bash on the runtime's host.",
	profile.CapCodeInterpreter: "agentcore_code_interpreter needs BATON_WORKSPACE_ROOT and python3 or node on the runtime's host, " +
		"or BATON_TOOL_PROVIDER=aws.",
}

// checkDispatch is the dispatch gate of docs/agents-api.md §3 ("Before dispatch, the selected Runtime must also
// advertise the operation's capability. An advertisement alone never enables an operation") and docs/decisions.md
// "Capabilities": a Turn about to be written needs at least one live runtime (registration not expired, i.e. a
// fresh heartbeat) of its harness kind whose advertisement contains every capability in t.Requires. Profile
// qualification (the Admission port) has already run and is never widened by an advertisement. Without such a
// runtime it returns 503 execution_unavailable, and the caller writes nothing. Disabled unless
// Options.RequireLiveRuntime.
//
// A registration list read less than dispatchReuse ago that shows a capable runtime still live (by its own
// ExpiresAt, checked now) admits the turn without a new read; a refusal is only ever decided on a fresh read, so a
// runtime that just registered is never missed. The reuse widens the staleness the eventually consistent index
// already has by at most dispatchReuse, far less than a registration's time to live (3 heartbeats): a runtime that
// deregistered moments ago may still admit a turn, which then waits for a runtime as after any runtime's loss.
func (e *Engine) checkDispatch(ctx context.Context, t session.Turn) error {
	if !e.requireRuntime {
		return nil
	}
	if cached, ok := e.runtimes.get(); ok && capableRuntime(e.liveOf(cached), t) {
		return nil
	}
	all, err := e.store.ListRuntimes(ctx)
	if err != nil {
		return err
	}
	e.runtimes.put(all)
	live := e.liveOf(all)
	if capableRuntime(live, t) {
		return nil
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
	e.record(ctx, MetricDispatchRefusals, 1, t.Harness, t.SessionID, "")
	return &Error{Status: 503, Code: CodeExecutionUnavailable, Message: refusalMessage(t.Harness, missing)}
}

// refusalMessage is the message of a dispatch refusal for harness kind: no live runtime at all (missing nil), or
// none that advertises missing (the fewest any live runtime lacks), followed by what the runtime's host needs for
// each capability that depends on it (capabilityHints).
func refusalMessage(harness string, missing []string) string {
	if missing == nil {
		return fmt.Sprintf("%s: no live %s runtime is registered.", MessageExecutionUnavailable, harness)
	}
	msg := fmt.Sprintf("%s: no live %s runtime advertises %s.", MessageExecutionUnavailable, harness, strings.Join(missing, ", "))
	for _, c := range missing {
		if h, ok := capabilityHints[c]; ok {
			msg += " " + h
		}
	}
	return msg
}

// dispatchReuse is how long checkDispatch reuses a registration list that admits a turn.
const dispatchReuse = 5 * time.Second

// runtimeList is the registration list checkDispatch read last, and when.
type runtimeList struct {
	mu   sync.Mutex
	all  []RuntimeInfo
	read time.Time
}

func (c *runtimeList) get() ([]RuntimeInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read.IsZero() || time.Since(c.read) > dispatchReuse {
		return nil, false
	}
	return c.all, true
}

func (c *runtimeList) put(all []RuntimeInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all, c.read = all, time.Now()
}

// capableRuntime reports whether a runtime of live is of t's harness kind and advertises everything t requires.
func capableRuntime(live []RuntimeInfo, t session.Turn) bool {
	for _, r := range live {
		if r.Kind == t.Harness && len(profile.Missing(t.Requires, r.Capabilities)) == 0 {
			return true
		}
	}
	return false
}
