package engine

import (
	"fmt"
	"testing"

	"github.com/baton-run/baton/shared/session"
)

// TestTheHistoryCacheAnswersOnlyForTheRevisionItWasTakenAt: an entry serves one resume at the Session's items
// revision it was taken at; another revision, a second take, or an entry evicted for room reads the store.
func TestTheHistoryCacheAnswersOnlyForTheRevisionItWasTakenAt(t *testing.T) {
	t.Parallel()
	var c historyCache
	items := []session.Item{{Seq: 1, ID: "msg_1"}, {Seq: 2, ID: "fc_2"}}
	c.put("sess_a", 7, items, "turn_a", []string{"call_1"})
	items[0].ID = "changed after put"
	if _, ok := c.take("sess_a", 8); ok {
		t.Error("an entry taken at revision 7 answered for revision 8")
	}
	c.put("sess_a", 7, items[:1], "turn_a", []string{"call_1"})
	if got := c.calls("sess_a", "turn_a"); len(got) != 1 || got[0] != "call_1" {
		t.Errorf("calls of the parked turn = %v, want [call_1]", got)
	}
	if got := c.calls("sess_a", "turn_b"); got != nil {
		t.Errorf("calls of another turn = %v, want none", got)
	}
	got, ok := c.take("sess_a", 7)
	if !ok || len(got) != 1 || got[0].ID != "changed after put" {
		t.Errorf("take at the same revision = %v, %v; want the copy put", got, ok)
	}
	if _, ok := c.take("sess_a", 7); ok {
		t.Error("an entry answered twice")
	}

	for i := range historyCacheSessions + 1 {
		c.put(fmt.Sprintf("sess_%d", i), 1, items, "turn_a", nil)
	}
	if n := len(c.entries); n != historyCacheSessions {
		t.Errorf("%d entries after %d puts, want at most %d", n, historyCacheSessions+1, historyCacheSessions)
	}
	if _, ok := c.take(fmt.Sprintf("sess_%d", historyCacheSessions), 1); !ok {
		t.Error("the newest entry was evicted")
	}
}

// TestTheHistoryCacheKeepsWithinItsByteBudget: a history larger than a quarter of the budget is not kept, and
// entries are evicted oldest first to stay within historyCacheBytes.
func TestTheHistoryCacheKeepsWithinItsByteBudget(t *testing.T) {
	t.Parallel()
	var c historyCache
	big := []session.Item{{Seq: 1, Output: make([]byte, historyCacheBytes/4+1)}}
	c.put("sess_big", 1, big, "turn_a", nil)
	if _, ok := c.take("sess_big", 1); ok {
		t.Error("a history over a quarter of the budget was kept")
	}
	fifth := []session.Item{{Seq: 1, Output: make([]byte, historyCacheBytes/5)}}
	for i := range 6 {
		c.put(fmt.Sprintf("sess_%d", i), 1, fifth, "turn_a", nil)
	}
	if c.bytes > historyCacheBytes {
		t.Errorf("%d bytes kept, budget %d", c.bytes, historyCacheBytes)
	}
	if _, ok := c.take("sess_0", 1); ok {
		t.Error("the oldest entry was kept over the budget")
	}
	if _, ok := c.take("sess_5", 1); !ok {
		t.Error("the newest entry was evicted")
	}
	if c.bytes != itemsSize(fifth)*(len(c.entries)) {
		t.Errorf("bytes %d do not add up to the %d entries left", c.bytes, len(c.entries))
	}
}

// TestEveryItemWriteMovesTheItemsRevision: appending and rewriting items moves Session.ItemsRevision, which is what
// makes a cached history safe to reuse while it is unchanged.
func TestEveryItemWriteMovesTheItemsRevision(t *testing.T) {
	t.Parallel()
	s := session.Session{ID: "sess_a", ItemsRevision: 3}
	w := newWriter(&s)
	it := w.item("msg", session.Item{})
	if s.ItemsRevision != 4 {
		t.Errorf("revision after an append = %d, want 4", s.ItemsRevision)
	}
	w2 := newWriter(&s)
	w2.replace(it)
	if s.ItemsRevision != 5 {
		t.Errorf("revision after a rewrite = %d, want 5", s.ItemsRevision)
	}
}
