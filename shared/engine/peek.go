package engine

import (
	"sync"
	"time"

	"github.com/baton-run/baton/shared/session"
)

// peekReuse is how long a PeekTurn read may stand in for BeginRun's own first read of the same turn. A runtime
// peeks and then begins within milliseconds (it only decides whether it can serve the turn in between).
const peekReuse = 2 * time.Second

// peekCache carries what PeekTurn read to the BeginRun that follows it in the same process, so a runtime reads a
// turn's Session and Turn once per activity task, not twice (docs/internals.md "Requests per turn"). An entry is
// taken once; entries nobody took (the runtime declined the task) are dropped once older than peekReuse.
type peekCache struct {
	mu      sync.Mutex
	entries map[string]peekEntry
}

type peekEntry struct {
	s  session.Session
	t  session.Turn
	at time.Time
}

func peekKey(sessionID, turnID string) string { return sessionID + "\x00" + turnID }

// put remembers a peek, dropping stale entries.
func (c *peekCache) put(s session.Session, t session.Turn) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]peekEntry{}
	}
	for k, e := range c.entries {
		if now.Sub(e.at) > peekReuse {
			delete(c.entries, k)
		}
	}
	c.entries[peekKey(s.ID, t.ID)] = peekEntry{s: s, t: t, at: now}
}

// take returns and forgets a fresh peek of the turn.
func (c *peekCache) take(sessionID, turnID string) (session.Session, session.Turn, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := peekKey(sessionID, turnID)
	e, ok := c.entries[k]
	delete(c.entries, k)
	if !ok || time.Since(e.at) > peekReuse {
		return session.Session{}, session.Turn{}, false
	}
	return e.s, e.t, true
}
