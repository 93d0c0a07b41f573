package httpapi

import (
	"net/http"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agent"
)

// createAgent: POST /v1/agents → 201 Agent.
func (a *api) createAgent(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	cfg, err := admission.AgentCreate(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	ag, err := a.eng.CreateAgent(r.Context(), project(r), cfg)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusCreated, ag)
}

// listAgents: GET /v1/agents → CursorPage[Agent].
func (a *api) listAgents(w http.ResponseWriter, r *http.Request) {
	q, err := parseList(r, false)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	agents, more, err := a.eng.ListAgents(r.Context(), project(r), q.page)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(agents, func(x agent.Agent) string { return x.ID }, more))
}

// getAgent: GET /v1/agents/{agent_id}.
func (a *api) getAgent(w http.ResponseWriter, r *http.Request) {
	ag, err := a.eng.GetAgent(r.Context(), project(r), r.PathValue("agent_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, ag)
}

// updateAgent: POST /v1/agents/{agent_id}, a partial replacement validated before the lookup.
func (a *api) updateAgent(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	update, err := admission.AgentUpdate(body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	ag, err := a.eng.UpdateAgent(r.Context(), project(r), r.PathValue("agent_id"), update)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, ag)
}

// deleteAgent: DELETE /v1/agents/{agent_id} → {id, object:"agent.deleted", deleted:true}; again → 404.
func (a *api) deleteAgent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("agent_id")
	if err := a.eng.DeleteAgent(r.Context(), project(r), id); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, deleted{ID: id, Object: "agent.deleted", Deleted: true})
}
