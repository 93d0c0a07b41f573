package engine

import (
	"testing"

	"github.com/baton-run/baton/shared/session"
)

func TestSeqOfID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		id   string
		seq  int64
		ok   bool
	}{
		{"an item id gives back its sequence", itemID("msg", 42), 42, true},
		{"an event id gives back its sequence", eventID(7), 7, true},
		{"a time-ordered id is not an item id", "sess_01a22c20366b53455d7d7d284f91", 0, false},
		{"a short id is rejected", "msg_12", 0, false},
		{"no prefix is rejected", "000000000001abcd", 0, false},
		{"sequence zero is rejected", "msg_000000000000abcdef01", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			seq, ok := SeqOfID(c.id)
			if seq != c.seq || ok != c.ok {
				t.Errorf("SeqOfID(%q) = %d, %v; want %d, %v", c.id, seq, ok, c.seq, c.ok)
			}
		})
	}
}

func TestAccountUsage(t *testing.T) {
	t.Parallel()
	e := New(Options{})
	s := &session.Session{}
	e.accountUsage(s, &session.Turn{Usage: &session.Usage{InputTokens: 3, OutputTokens: 4}})
	e.accountUsage(s, &session.Turn{Usage: &session.Usage{InputTokens: 1, OutputTokens: 1}})
	if s.Usage == nil || *s.Usage != (session.Usage{InputTokens: 4, OutputTokens: 5}) {
		t.Fatalf("usage after two measured turns = %+v, want the sum", s.Usage)
	}
	e.accountUsage(s, &session.Turn{})
	if s.Usage != nil || !s.UsageUnknown {
		t.Fatalf("usage after an unmeasured turn = %+v, want null for good", s.Usage)
	}
	e.accountUsage(s, &session.Turn{Usage: &session.Usage{InputTokens: 1}})
	if s.Usage != nil {
		t.Fatal("usage came back after an unmeasured turn")
	}
}
