package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-run/baton/tests/stack"
)

// Races of tool results split across two API processes that share the table (so no in-process lock can make
// them pass). These tests are not parallel: they read the processes' AWS request counters, which other tests on
// the shared stack would move.

const racers = 32

// race sends one POST per body at once, alternately to each API process, and returns the statuses in body order.
func race(t *testing.T, apis [2]*stack.Stack, sessionID string, bodies []map[string]any) []stack.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	out := make([]stack.Response, len(bodies))
	errs := make([]error, len(bodies))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i], errs[i] = apis[i%2].DoContext(ctx, http.MethodPost, eventsPath(sessionID), map[string]any{"events": []any{body}}, nil)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	return out
}

// counters reads the AWS request counters of both API processes (the launcher's process also hosts Park). ok is
// false when other processes may share the stack (BATON_TEST_STATE_FILE), so deltas would not be this test's.
func counters(t *testing.T, apis [2]*stack.Stack) (c [2]map[string]int64, ok bool) {
	t.Helper()
	if os.Getenv(stack.StateFileEnv) != "" {
		return c, false
	}
	for i, st := range apis {
		c[i] = st.Metrics(t)
	}
	return c, true
}

// wantOneResume checks that the API processes called SendTaskSuccess exactly once between before and now: each
// call is one resume of a parked turn.
func wantOneResume(t *testing.T, apis [2]*stack.Stack, before [2]map[string]int64, counted bool) {
	t.Helper()
	after, ok := counters(t, apis)
	if !counted || !ok {
		return
	}
	var n int64
	for i := range apis {
		n += after[i]["SFN.SendTaskSuccess"] - before[i]["SFN.SendTaskSuccess"]
	}
	if n != 1 {
		t.Errorf("SendTaskSuccess calls = %d, want 1 (one resume); AWS requests of API 0: %v, of API 1: %v",
			n, delta(before[0], after[0]), delta(before[1], after[1]))
	}
}

func delta(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// wantOneRun checks the stream of a completed turn for a single resume: one function_call_output, one
// turn.completed, and the event order of exactly one inline round trip (a second resume would add a
// turn.in_progress and a second answer). It waits a second first, so that a late duplicate would be seen.
func wantOneRun(t *testing.T, rec *recorder, turnID string) {
	t.Helper()
	time.Sleep(time.Second)
	events := rec.Snapshot()
	if n := count(events, isTurnEvent("agent.session.turn.completed", turnID)); n != 1 {
		t.Errorf("turn.completed events = %d, want 1", n)
	}
	if n := count(events, isItemAdded("function_call_output")); n != 1 {
		t.Errorf("function_call_output item.added events = %d, want 1", n)
	}
	window := turnWindow(t, events, turnID)
	if order := inlineRoundTripOrder(1); !order.MatchString(tokens(window)) {
		t.Errorf("event order of the turn:\n  got  %s\n  want %s", tokens(window), order)
	}
	if rest := events[len(events)-1]; rest.Type != "agent.session.idle" {
		t.Errorf("events after the turn's idle: last is %s", rest.raw)
	}
}

func TestConcurrentIdenticalResultsAcrossTwoAPIProcessesResumeOnce(t *testing.T) {
	st, client := stackClient(t)
	apis := [2]*stack.Stack{st, stack.Attach(t, st)}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Lisbon")
	before, counted := counters(t, apis)

	const out = `{"temp_c":25}`
	bodies := make([]map[string]any, racers)
	for i := range bodies {
		bodies[i] = resultEvent(turnID, actions[0].CallID, out)
	}
	for i, r := range race(t, apis, sid, bodies) {
		if r.Status != http.StatusAccepted {
			t.Errorf("identical submission %d (API %d): %d %s, want 202", i, i%2, r.Status, r.Body)
		}
	}
	if text := completeTurn(t, rec, 0, turnID); !strings.Contains(text, "["+out+"]") {
		t.Errorf("final answer %q does not contain [%s]", text, out)
	}
	wantOneRun(t, rec, turnID)
	checkRoundTripItems(t, listItems(t, ctx, client, sid), actions[0].CallID, out)
	wantOneResume(t, apis, before, counted)
}

func TestConcurrentDifferentResultsAcrossTwoAPIProcessesHaveOneWinner(t *testing.T) {
	st, client := stackClient(t)
	apis := [2]*stack.Stack{st, stack.Attach(t, st)}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sid, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Madrid")
	before, counted := counters(t, apis)

	output := func(i int) string { return fmt.Sprintf(`{"submitter":%d}`, i) }
	bodies := make([]map[string]any, racers)
	for i := range bodies {
		bodies[i] = resultEvent(turnID, actions[0].CallID, output(i))
	}
	winner := -1
	for i, r := range race(t, apis, sid, bodies) {
		switch r.Status {
		case http.StatusAccepted:
			if winner >= 0 {
				t.Errorf("submissions %d and %d were both accepted", winner, i)
			}
			winner = i
		default:
			wantConflict(t, fmt.Sprintf("losing submission %d (API %d)", i, i%2), r)
		}
	}
	if winner < 0 {
		t.Fatal("no submission was accepted")
	}
	text := completeTurn(t, rec, 0, turnID)
	if !strings.Contains(text, "["+output(winner)+"]") || strings.Count(text, `"submitter"`) != 1 {
		t.Errorf("final answer %q: want exactly the winner's output %s", text, output(winner))
	}
	wantOneRun(t, rec, turnID)
	checkRoundTripItems(t, listItems(t, ctx, client, sid), actions[0].CallID, output(winner))
	// Nothing lost: the winner's retry is still an identical retry, every loser still conflicts.
	wantAccepted(t, "winner's retry", postRaw(t, apis[1-winner%2], sid, bodies[winner]))
	wantConflict(t, "a loser's retry", postRaw(t, apis[winner%2], sid, bodies[(winner+1)%racers]))
	wantOneResume(t, apis, before, counted)
}
