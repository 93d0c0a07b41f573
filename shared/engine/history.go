package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/baton-run/baton/shared/session"
)

// History cache limits: how many Sessions' histories a process keeps, how many bytes of item content in all (a
// history larger than a quarter of that is not kept), and for how long. A turn's resume usually follows its park
// within seconds (the caller answers a required action); an entry is dropped once used.
const (
	historyCacheSessions = 256
	historyCacheBytes    = 64 << 20
	historyCacheTTL      = 10 * time.Minute
)

// historyCache remembers, per Session, the history a run of this process had when it parked its turn on function
// calls (RequestCalls), tagged with the Session's ItemsRevision at that moment, so the run that resumes the turn in
// this process reads no history: the tool-result writes and the task token's storage change no item, and every write
// of an item moves ItemsRevision (writer.item, writer.replace; Engine.commit refuses items without their Session), so
// an entry whose revision equals the one the resume read is exactly what the store holds. Anything else — another
// process's resume, a cancel that closed an item, an entry evicted or expired — reads the store.
type historyCache struct {
	mu      sync.Mutex
	entries map[string]historyEntry
	// bytes is the sum of the entries' sizes (itemsSize).
	bytes int
}

type historyEntry struct {
	revision int64
	items    []session.Item
	size     int
	at       time.Time
	// turnID and calls are the turn the run parked and the calls of its round (for PeekTurn).
	turnID string
	calls  []string
}

// put remembers a copy of items as the Session's history at revision, with the turn the run parked and its round's
// calls, dropping expired entries and, to stay within historyCacheSessions and historyCacheBytes, the oldest.
func (c *historyCache) put(sessionID string, revision int64, items []session.Item, turnID string, calls []string) {
	now := time.Now()
	size := itemsSize(items)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]historyEntry{}
	}
	c.drop(sessionID)
	for k, e := range c.entries {
		if now.Sub(e.at) > historyCacheTTL {
			c.drop(k)
		}
	}
	if size > historyCacheBytes/4 {
		return
	}
	for len(c.entries) >= historyCacheSessions || c.bytes+size > historyCacheBytes {
		oldest := ""
		for k, e := range c.entries {
			if oldest == "" || e.at.Before(c.entries[oldest].at) {
				oldest = k
			}
		}
		c.drop(oldest)
	}
	c.entries[sessionID] = historyEntry{revision: revision, items: slices.Clone(items), size: size, at: now, turnID: turnID, calls: slices.Clone(calls)}
	c.bytes += size
}

// drop forgets the Session's entry, if any; c.mu is held.
func (c *historyCache) drop(sessionID string) {
	if e, ok := c.entries[sessionID]; ok {
		c.bytes -= e.size
		delete(c.entries, sessionID)
	}
}

// itemsSize estimates the memory of a history: each item's content and raw values plus a fixed part.
func itemsSize(items []session.Item) int {
	n := 0
	for _, it := range items {
		n += 256 + len(it.Arguments) + len(it.Output) + len(it.Error) + len(it.Command) + len(it.Cwd)
		for _, p := range it.Content {
			n += 64 + len(p.Text) + len(p.ImageURL)
		}
	}
	return n
}

// calls returns the calls a run of this process parked the Session's turn on, if it did (the entry stays).
func (c *historyCache) calls(sessionID, turnID string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[sessionID]; ok && e.turnID == turnID && len(e.calls) <= maxPeekedResults {
		return e.calls
	}
	return nil
}

// maxPeekedResults keeps PeekTurn's read to one BatchGetItem (100 keys: META, SNAPSHOT, the turn, the results).
const maxPeekedResults = 97

// take returns and forgets the Session's history if it was remembered at revision (and not expired).
func (c *historyCache) take(sessionID string, revision int64) ([]session.Item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[sessionID]
	c.drop(sessionID)
	if !ok || e.revision != revision || time.Since(e.at) > historyCacheTTL {
		return nil, false
	}
	return e.items, true
}
