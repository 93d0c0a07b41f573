package stack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// Recorder reads a Session's event stream (the SDK's Sessions.Events.StreamStreaming) in the background and keeps
// every event in arrival order, decoded into the test package's own event type T.
type Recorder[T any] struct {
	timeout time.Duration

	mu      sync.Mutex
	events  []T
	raws    []string
	changed chan struct{} // closed and replaced on every append and at the end
	done    bool
	err     error
}

// Record opens the stream of sessionID; when it returns the subscription is live (the server flushed its
// headers). decode turns one event's raw JSON into a T; WaitFor waits at most timeout for one event. The stream
// closes when the test ends.
func Record[T any](t testing.TB, ctx context.Context, client openai.Client, sessionID string, timeout time.Duration, decode func(raw string) T) *Recorder[T] {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	stream := client.Beta.Agents.Sessions.Events.StreamStreaming(ctx, sessionID)
	if err := stream.Err(); err != nil {
		cancel()
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			err = fmt.Errorf("%w: %s", err, apiErr.RawJSON())
		}
		t.Fatalf("open event stream: %v", err)
	}
	r := &Recorder[T]{timeout: timeout, changed: make(chan struct{})}
	t.Cleanup(func() { cancel(); _ = stream.Close() })
	go func() {
		for stream.Next() {
			raw := stream.Current().RawJSON()
			ev := decode(raw)
			r.mu.Lock()
			r.events, r.raws = append(r.events, ev), append(r.raws, raw)
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.done, r.err = true, stream.Err()
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	}()
	return r
}

// Snapshot returns the events received so far.
func (r *Recorder[T]) Snapshot() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// WaitFor waits until an event at index ≥ from satisfies match and returns its index. It fails the test, listing
// what was received, when the stream ends or the timeout passes first.
func (r *Recorder[T]) WaitFor(t testing.TB, from int, what string, match func(T) bool) int {
	t.Helper()
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for i := from; i < len(r.events); i++ {
			if match(r.events[i]) {
				r.mu.Unlock()
				return i
			}
		}
		done, err, changed := r.done, r.err, r.changed
		r.mu.Unlock()
		if done {
			t.Fatalf("stream ended (err %v) before %s; received:\n%s", err, what, r.dump())
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s within %s; received:\n%s", what, r.timeout, r.dump())
		}
	}
}

func (r *Recorder[T]) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for i, raw := range r.raws {
		fmt.Fprintf(&b, "  %2d %s\n", i, raw)
	}
	return b.String()
}
