package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// streamBatch is how many events one Store read returns.
const streamBatch = 100

// sessionCheckInterval is how often a stream whose Session is quiet re-reads it to notice a deletion.
const sessionCheckInterval = time.Second

// streamEvents: GET /v1/agents/sessions/{session_id}/events → 200 text/event-stream, live only: it starts after
// the Session's latest committed event (docs/agents-api.md §2.6). As a documented extension, a
// `Last-Event-ID` of this Session's stream resumes right after that event (docs/decisions.md "Streams"). The stream ends when
// the client disconnects, the Session is deleted, or Options.MaxStreamDuration elapses.
func (a *api) streamEvents(w http.ResponseWriter, r *http.Request) {
	s, err := a.eng.GetSession(r.Context(), project(r), r.PathValue("session_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	after := s.EventSeq
	if seq, ok := engine.SeqOfID(r.Header.Get("Last-Event-ID")); ok && seq < after {
		after = seq
	}
	a.stream(w, r, s.ID, after, http.StatusOK, false)
}

// startStream writes the SSE headers and the connection comment and flushes them at once (the SDK's client has
// a 10-minute response-header timeout).
func (a *api) startStream(w http.ResponseWriter, r *http.Request, status int) *http.ResponseController {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	setProcessingMs(w, r)
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	_, _ = w.Write([]byte(": connected\n\n"))
	_ = rc.Flush()
	return rc
}

// stream writes the Session's events with sequence > after as SSE frames
// (`event: <type>\nid: <event_id>\ndata: <json>\n\n`), polling every Options.PollInterval while events flow,
// backing off to Options.MaxActivePollInterval while a running turn writes nothing new and to
// Options.MaxIdlePollInterval while the Session is idle (woken at once by this process's own commits to it), and
// writing a
// `: keep-alive` comment after Options.KeepAliveInterval of silence. untilSettled ends the stream right after the
// first agent.session.idle or agent.session.failed (the creation stream).
func (a *api) stream(w http.ResponseWriter, r *http.Request, sessionID string, after int64, status int, untilSettled bool) {
	ctx := r.Context()
	rc := a.startStream(w, r, status)
	deadline := time.Now().Add(a.opts.MaxStreamDuration)
	lastWrite, lastCheck := time.Now(), time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	wake, stop := a.eng.Wake(sessionID)
	defer stop()
	idle := a.opts.PollInterval
	// quiet: the last event showed no running turn; a stream that has seen nothing yet backs off until it does.
	quiet := true
	// running: the last event read was of a running turn (session.in_progress or a turn's own event; each is
	// followed by session.idle, failed or requires_action); unlike quiet, a wake does not change it.
	running := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-wake:
			// This process committed to the Session (new input, a tool result, a cancel): more is likely to follow.
			// Where every commit wakes the stream, the next commit wakes it again: no faster polling meanwhile.
			quiet = false
			if !a.opts.CommitsWake {
				idle = a.opts.PollInterval
			}
		}
		events, err := a.eng.EventsAfter(ctx, sessionID, after, streamBatch)
		if err != nil {
			if ctx.Err() == nil {
				a.logError(r, "read session events", err)
			}
			return // the client reconnects; nothing is lost, events stay in the log
		}
		for _, ev := range events {
			if _, err := w.Write(frame(ev)); err != nil {
				return
			}
			after = ev.Seq
			// Quiet until further input: idle, failed, or parked on required actions. Anything else means a turn
			// is running and more events follow.
			quiet = ev.Type == session.EventSessionIdle || ev.Type == session.EventSessionFailed || ev.Type == session.EventSessionRequiresAction
			running = ev.Type == session.EventSessionInProgress || ev.TurnID != ""
			if untilSettled && (ev.Type == session.EventSessionIdle || ev.Type == session.EventSessionFailed) {
				_ = rc.Flush()
				return
			}
		}
		now := time.Now()
		if len(events) > 0 {
			lastWrite = now
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return
			}
		} else if now.Sub(lastWrite) >= a.opts.KeepAliveInterval {
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			_ = rc.Flush()
			lastWrite = now
		}
		if now.After(deadline) {
			return
		}
		// A Session with a running turn cannot be deleted (Engine.DeleteSession refuses while a turn is active), so
		// the check only runs unless the last event read showed a turn running; the events that end a turn are
		// committed before any deletion, so such a stream reads them, and checks, first.
		if !running && now.Sub(lastCheck) >= sessionCheckInterval {
			lastCheck = now
			if _, err := a.eng.GetSession(ctx, project(r), sessionID); errors.Is(err, engine.ErrNotFound) {
				return
			}
		}
		switch {
		case len(events) == streamBatch:
			timer.Reset(0) // more are waiting
		case a.opts.CommitsWake && !quiet:
			// A turn runs and every commit wakes the stream: the timer is only the backstop.
			idle = max(a.opts.MaxActivePollInterval, a.opts.PollInterval)
			timer.Reset(idle)
		case a.opts.CommitsWake:
			// A quiet Session whose every commit wakes the stream: nothing to poll for but the backstop.
			idle = max(a.opts.MaxIdlePollInterval, a.opts.PollInterval)
			timer.Reset(idle)
		case len(events) > 0:
			idle = a.opts.PollInterval
			timer.Reset(idle)
		case !quiet:
			// A turn is running but wrote nothing since the last read (the runtime has not taken the task yet, the
			// model is thinking, a tool runs): back off, doubling up to MaxActivePollInterval, so a reader does not
			// read the table every PollInterval for as long as that lasts; its next event or a commit of this
			// process to the Session resets it. Another process's commit (a runtime's) is seen by the next read.
			idle = min(idle, max(a.opts.MaxActivePollInterval, a.opts.PollInterval))
			timer.Reset(idle)
			idle = min(2*idle, max(a.opts.MaxActivePollInterval, a.opts.PollInterval))
		default:
			// A quiet Session (idle, failed, or parked on required actions): back off, doubling up to
			// MaxIdlePollInterval, so a parked stream does not read the table every PollInterval; a commit of this
			// process to the Session (Engine.Wake) or any event resets it.
			timer.Reset(idle)
			idle = min(2*idle, max(a.opts.MaxIdlePollInterval, a.opts.PollInterval))
		}
	}
}

// frame renders one event as an SSE frame. The stored JSON is written as is (it is one line and never has a
// top-level `error` key, docs/agents-api.md §W4.2); a multi-line value is compacted first.
func frame(ev session.Event) []byte {
	data := []byte(ev.Data)
	if bytes.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			data = b.Bytes()
		}
	}
	var b bytes.Buffer
	b.Grow(len(data) + len(ev.Type) + len(ev.ID) + 24)
	b.WriteString("event: ")
	b.WriteString(ev.Type)
	b.WriteString("\nid: ")
	b.WriteString(ev.ID)
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}
