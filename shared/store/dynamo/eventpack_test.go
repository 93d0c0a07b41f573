package dynamo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-run/baton/shared/session"
)

func events(n int, dataBytes int) []session.Event {
	out := make([]session.Event, n)
	for i := range out {
		data, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", dataBytes)})
		out[i] = session.Event{Seq: int64(i + 1), ID: fmt.Sprintf("evt_%012d", i+1), Type: "agent.session.turn.item.added", TurnID: "turn_1", Data: data}
	}
	return out
}

func TestPackEventsRoundTripsEveryEventOnceFromAnyPosition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		events      []session.Event
		maxRecords  int
		wantRecords int
	}{
		{"events that fit are one item each", events(5, 10), 10, 5},
		{"66 events in 33 slots are one pack", events(66, 10), 33, 1},
		{"large events are split into several packs", events(8, 100_000), 5, 4},
		{"no events are no items", nil, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, err := packEvents("sess_1", tc.events, tc.maxRecords)
			if err != nil {
				t.Fatalf("packEvents: %v", err)
			}
			if len(recs) != tc.wantRecords {
				t.Errorf("%d records, want %d", len(recs), tc.wantRecords)
			}
			for after := int64(0); after <= int64(len(tc.events)); after++ {
				var got []session.Event
				for _, r := range recs {
					if r.SK < eventSK(after+1) { // what the query's key condition leaves out
						continue
					}
					evs, err := expandEvents(r, after)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, evs...)
				}
				if diff := cmp.Diff(tc.events[after:], got, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
					t.Fatalf("events after %d (-want +got):\n%s", after, diff)
				}
			}
		})
	}
}

func TestPackEventsFailsWhenEvenPacksDoNotFit(t *testing.T) {
	t.Parallel()
	if _, err := packEvents("sess_1", events(8, 200_000), 2); err == nil {
		t.Error("packEvents fitted 1.6 MB of events into 2 items")
	}
}
