package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/session"
)

// createSession: POST /v1/agents/sessions → 201 AgentSession, or with `"stream": true` a 201 SSE response that
// starts with agent.session.created and carries every event of the Session from its creation until the first
// agent.session.idle or agent.session.failed (docs/agents-api.md §2.6 "Creation stream"). A Session created
// without input stays open the same way, because the SDK's helpers post the input on the events route. A same-key
// retry with stream:true gets 201 with only the connection comment.
func (a *api) createSession(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxSessionCreateBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	req, err := admission.ParseSessionCreate(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if key, present := idempotencyKey(r); present {
		if err := admission.CheckIdempotencyKey(key); err != nil {
			a.writeError(w, r, err)
			return
		}
		req.Session.IdempotencyKey = key
		req.Session.RequestHash = admission.RequestHash(body)
	}
	s, replayed, err := a.eng.CreateSession(r.Context(), project(r), req.Session)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if !req.Stream {
		a.writeJSON(w, r, http.StatusCreated, s)
		return
	}
	if replayed {
		a.startStream(w, r, http.StatusCreated)
		return
	}
	a.stream(w, r, s.ID, 0, http.StatusCreated, true)
}

// idempotencyKey returns the Idempotency-Key header and whether it was sent at all.
func idempotencyKey(r *http.Request) (string, bool) {
	v := r.Header.Values("Idempotency-Key")
	if len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// listSessions: GET /v1/agents/sessions (optional agent_id filter) → CursorPage[AgentSession].
func (a *api) listSessions(w http.ResponseWriter, r *http.Request) {
	q, err := parseList(r, false)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	list, more, err := a.eng.ListSessions(r.Context(), project(r), q.agentID, q.page)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(list, func(s session.Session) string { return s.ID }, more))
}

// getSession: GET /v1/agents/sessions/{session_id}.
func (a *api) getSession(w http.ResponseWriter, r *http.Request) {
	s, err := a.eng.GetSession(r.Context(), project(r), r.PathValue("session_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, s)
}

// updateSession: POST /v1/agents/sessions/{session_id}, metadata only.
func (a *api) updateSession(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	metadata, err := admission.ParseSessionUpdate(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	s, err := a.eng.UpdateSessionMetadata(r.Context(), project(r), r.PathValue("session_id"), metadata)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, s)
}

// deleteSession: DELETE /v1/agents/sessions/{session_id} → {id, object:"agent.session.deleted", deleted:true}.
func (a *api) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	if err := a.eng.DeleteSession(r.Context(), project(r), id); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, deleted{ID: id, Object: "agent.session.deleted", Deleted: true})
}

// postEvents: POST /v1/agents/sessions/{session_id}/events → 202 with an empty body once the batch is stored.
func (a *api) postEvents(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	inputs, err := admission.ParseEvents(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	key, hash := "", ""
	if k, present := idempotencyKey(r); present {
		if err := admission.CheckIdempotencyKey(k); err != nil {
			a.writeError(w, r, err)
			return
		}
		key, hash = k, admission.RequestHash(body)
	}
	// A request that arrived whole is carried out whole: a client that disconnects right after sending (a tool
	// result, a cancel) does not cut the admission, the commit or what follows it (the start or resume of the turn).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), inputTimeout)
	defer cancel()
	if err := a.eng.PostEvents(ctx, project(r), r.PathValue("session_id"), inputs, key, hash); err != nil {
		a.writeError(w, r, err)
		return
	}
	setProcessingMs(w, r)
	w.WriteHeader(http.StatusAccepted)
}

// listTurns: GET …/turns → CursorPage[Turn].
func (a *api) listTurns(w http.ResponseWriter, r *http.Request) {
	q, err := parseList(r, false)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	turns, more, err := a.eng.ListTurns(r.Context(), project(r), r.PathValue("session_id"), q.page)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(turns, func(t session.Turn) string { return t.ID }, more))
}

// getTurn: GET …/turns/{turn_id}.
func (a *api) getTurn(w http.ResponseWriter, r *http.Request) {
	t, err := a.eng.GetTurn(r.Context(), project(r), r.PathValue("session_id"), r.PathValue("turn_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, t)
}

// listSessionItems: GET …/items → CursorPage[AgentSessionItemUnion].
func (a *api) listSessionItems(w http.ResponseWriter, r *http.Request) { a.listItems(w, r, "") }

// listTurnItems: GET …/turns/{turn_id}/items → ConversationCursorPage (the SDK pages by last_id).
func (a *api) listTurnItems(w http.ResponseWriter, r *http.Request) {
	a.listItems(w, r, r.PathValue("turn_id"))
}

func (a *api) listItems(w http.ResponseWriter, r *http.Request, turnID string) {
	q, err := parseList(r, true)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	items, more, err := a.eng.ListItems(r.Context(), project(r), r.PathValue("session_id"), turnID, q.page)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(items, func(it session.Item) string { return it.ID }, more))
}

// inputTimeout bounds the work of one events POST once its body has arrived, independent of the client's connection.
const inputTimeout = 60 * time.Second
