package engine

import (
	"context"
	"errors"

	"github.com/baton-run/baton/shared/agent"
)

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
func isConflict(err error) bool { return errors.Is(err, ErrConflict) }

// CreateAgent saves a new Agent in projectID. cfg must already have passed protocol validation (saving never
// qualifies execution, docs/agents-api.md §3). Returns the saved Agent with id and timestamps.
func (e *Engine) CreateAgent(ctx context.Context, projectID string, cfg agent.Config) (agent.Agent, error) {
	now := e.now()
	a := agent.Agent{ID: e.newID("agent"), ProjectID: projectID, CreatedAt: now, UpdatedAt: now, Config: cfg}
	if err := e.store.CreateAgent(ctx, a); err != nil {
		return agent.Agent{}, err
	}
	return a, nil
}

// GetAgent returns an Agent of projectID, or ErrNotFound for a missing, deleted or foreign one.
func (e *Engine) GetAgent(ctx context.Context, projectID, agentID string) (agent.Agent, error) {
	a, err := e.store.GetAgent(ctx, agentID)
	if err != nil {
		return agent.Agent{}, err
	}
	if a.ProjectID != projectID {
		return agent.Agent{}, ErrNotFound
	}
	return a, nil
}

// ListAgents returns one page of projectID's Agents and whether more follow.
func (e *Engine) ListAgents(ctx context.Context, projectID string, p Page) ([]agent.Agent, bool, error) {
	if p.After != "" {
		if _, err := e.GetAgent(ctx, projectID, p.After); err != nil {
			return nil, false, err
		}
	}
	return e.store.ListAgents(ctx, projectID, p)
}

// UpdateAgent applies update to an Agent's configuration and saves it with a new updated_at. Existing Sessions
// keep their snapshots. Returns ErrNotFound for a missing or foreign Agent, or update's error unchanged.
func (e *Engine) UpdateAgent(ctx context.Context, projectID, agentID string, update func(agent.Config) (agent.Config, error)) (agent.Agent, error) {
	a, err := e.GetAgent(ctx, projectID, agentID)
	if err != nil {
		return agent.Agent{}, err
	}
	cfg, err := update(a.Config)
	if err != nil {
		return agent.Agent{}, err
	}
	a.Config = cfg
	a.UpdatedAt = e.now()
	if err := e.store.ReplaceAgent(ctx, a); err != nil {
		return agent.Agent{}, err
	}
	return a, nil
}

// DeleteAgent deletes an Agent; Sessions created from it are unaffected. ErrNotFound when missing or foreign.
func (e *Engine) DeleteAgent(ctx context.Context, projectID, agentID string) error {
	if _, err := e.GetAgent(ctx, projectID, agentID); err != nil {
		return err
	}
	return e.store.DeleteAgent(ctx, projectID, agentID)
}
