package engine

import "sync"

// wakeHub tells this process's event readers that a commit of this process touched their Session, so a reader
// that backs off while its Session is idle (docs/internals.md "Reading the event log") polls again at once. Commits
// of other processes (runtimes, other API instances) are not seen here unless reported with Committed (the local
// stack does, for its runtimes); readers find the others by polling.
type wakeHub struct {
	mu      sync.Mutex
	readers map[string]map[chan struct{}]struct{}
}

// Wake returns a channel that receives (without blocking the committer) after each commit of this process that
// appends events to the Session, and a function that stops it. The channel holds at most one pending wake.
func (e *Engine) Wake(sessionID string) (<-chan struct{}, func()) {
	h := &e.wake
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.readers == nil {
		h.readers = map[string]map[chan struct{}]struct{}{}
	}
	if h.readers[sessionID] == nil {
		h.readers[sessionID] = map[chan struct{}]struct{}{}
	}
	h.readers[sessionID][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.readers[sessionID], ch)
		if len(h.readers[sessionID]) == 0 {
			delete(h.readers, sessionID)
		}
	}
}

// Committed wakes this process's event readers of the Session, as a commit of this process would: another
// process (the local stack's runtime, through Options.CommitListener and the launcher) reports that it committed
// to the Session, so a reader backing off reads at once instead of at its next poll.
func (e *Engine) Committed(sessionID string) { e.wake.notify(sessionID) }

// notify wakes every reader of sessionID.
func (h *wakeHub) notify(sessionID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.readers[sessionID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
