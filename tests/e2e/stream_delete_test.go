package e2e_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestStreamEndsWhenItsSessionIsDeleted: a stream that watched a turn run and end notices that its Session was
// deleted afterwards and ends (docs/internals.md "Requests per turn": the stream checks for a deletion only while
// no turn is running, which is the only time a Session can be deleted). The wait for the end is bounded only by
// the test's timeout.
func TestStreamEndsWhenItsSessionIsDeleted(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a := newWeatherAgent(t, ctx, client)
	s := newIdleSession(t, ctx, client, a.ID)

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.APIURL+eventsPath(s.ID), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+st.APIKey)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("open the stream: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("open the stream: status %d", resp.StatusCode)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)

	postEvents(t, ctx, client, s.ID, userMessage("hello"))
	for sawIdle := false; !sawIdle; {
		if !lines.Scan() {
			t.Fatalf("the stream ended before the turn did: %v", lines.Err())
		}
		sawIdle = strings.TrimSpace(lines.Text()) == "event: agent.session.idle"
	}
	if r := st.Do(t, http.MethodDelete, "/v1/agents/sessions/"+s.ID, nil, nil); r.Status != http.StatusOK {
		t.Fatalf("DELETE session: %d %s", r.Status, r.Body)
	}
	for lines.Scan() {
		if line := lines.Text(); strings.HasPrefix(line, "event: ") {
			t.Errorf("event after the deletion: %s", line)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the stream did not end after its Session was deleted (test timeout)")
	}
}
