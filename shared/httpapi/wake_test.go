package httpapi

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// TestAStreamWhoseCommitsWakeItReadsWhenWoken: with Options.CommitsWake (the local stack, where every commit is
// reported to Engine.Committed), a stream of a running turn reads the log when a commit wakes it, not every
// PollInterval; an event another process committed reaches the client as soon as Committed reports it.
func TestAStreamWhoseCommitsWakeItReadsWhenWoken(t *testing.T) {
	t.Parallel()
	st := newFakeStore()
	eng := engine.New(engine.Options{Store: st})
	if err := eng.ProvisionKey(context.Background(), "proj_1", testKey); err != nil {
		t.Fatal(err)
	}
	h := New(eng, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), AccessLog: slog.New(slog.NewTextHandler(io.Discard, nil)), PollInterval: time.Millisecond,
		MaxActivePollInterval: time.Hour, MaxIdlePollInterval: time.Hour, KeepAliveInterval: time.Hour,
		MaxStreamDuration: time.Minute, CommitsWake: true})
	f := &fixture{store: st, eng: eng, h: h}
	sid := decode[map[string]any](t, f.do("POST", "/v1/agents/sessions", `{"agent":{"model":"m"},"environment":{"type":"none"}}`))["id"].(string)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if typ, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- typ
			}
		}
		close(events)
	}()
	next := func(want string) {
		t.Helper()
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("event %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event", want)
		}
	}
	// The stream tails the log from its end: wait until it has read once.
	reads := func() int { st.mu.Lock(); defer st.mu.Unlock(); return st.eventReads }
	for reads() == 0 {
		time.Sleep(time.Millisecond)
	}

	// Another process commits turn events (a runtime): each reaches the client when Committed reports it.
	for i, typ := range []string{session.EventTurnInProgress, session.EventItemAdded} {
		st.mu.Lock()
		evs := st.events[sid]
		st.events[sid] = append(evs, session.Event{Seq: evs[len(evs)-1].Seq + 1, ID: "event_x" + string(rune('a'+i)), Type: typ,
			TurnID: "turn_1", Data: []byte(`{"type":"` + typ + `"}`)})
		st.mu.Unlock()
		eng.Committed(sid)
		next(typ)
		// The turn is running and wrote nothing since: without a wake, the stream does not read again. A stream
		// polling every PollInterval (1 ms) would read dozens of times here.
		before := reads()
		time.Sleep(50 * time.Millisecond)
		if n := reads() - before; n > 1 {
			t.Errorf("after %s the stream read the log %d more times without a wake, want at most 1", typ, n)
		}
	}
}
