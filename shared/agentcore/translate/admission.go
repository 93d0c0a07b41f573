package translate

import (
	"encoding/json"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
)

// Admission is the engine's Session and Turn admission for both front doors: a configuration that ToAgent made
// (it carries Controls, which the Agents API wire never sets) is admitted by Next without the AgentCore-run tool
// declarations, which no Agents API rule knows and which the harness does not offer yet (docs/agentcore.md
// §3.8); any other configuration goes to Next unchanged. A nil Next admits everything.
type Admission struct {
	Next engine.Admission
}

var _ engine.Admission = Admission{}

// AdmitSession implements engine.Admission.
func (a Admission) AdmitSession(cfg agent.Config) error {
	if a.Next == nil {
		return nil
	}
	if cfg.Controls != nil {
		tools := make([]json.RawMessage, 0, len(cfg.Tools))
		for _, raw := range cfg.Tools {
			if !IsAgentCoreTool(raw) {
				tools = append(tools, raw)
			}
		}
		cfg.Tools = tools
	}
	return a.Next.AdmitSession(cfg)
}
