package session

import (
	"encoding/json"
	"github.com/baton-run/baton/shared/jsonwire"

	"github.com/baton-run/baton/shared/agent"
)

// Status is a Session's status (docs/agents-api.md §2.2).
type Status string

// Session statuses.
const (
	StatusIdle           Status = "idle"
	StatusInProgress     Status = "in_progress"
	StatusRequiresAction Status = "requires_action"
	StatusFailed         Status = "failed"
)

// FailedSessionError is the public `error` of a Session whose latest Turn failed.
const FailedSessionError = "The execution could not complete."

// Session is a conversation with an immutable configuration snapshot. Timestamps are Unix seconds. EventSeq and
// ItemSeq are the last sequence numbers used for its events and items (0 = none yet). ActiveTurnID names the
// root Turn that is queued, in progress or waiting ("" when none).
type Session struct {
	ID              string
	ProjectID       string
	CreatedAt       int64
	LastActiveAt    int64
	Status          Status
	Snapshot        agent.Snapshot
	Environment     json.RawMessage
	Error           *string
	Metadata        map[string]string
	RequiredActions []RequiredAction
	Usage           *Usage
	VaultIDs        []string
	ActiveTurnID    string
	EventSeq        int64
	ItemSeq         int64
	// ItemsRevision changes whenever any of the Session's items is appended or rewritten (0 = none yet): a copy
	// of its items taken at one revision is current for as long as the revision is unchanged.
	ItemsRevision int64
	Deleted       bool
	// UsageUnknown is set once any root Turn ended without measured usage; Usage then stays nil.
	UsageUnknown bool
	// Version is the optimistic-concurrency version of the stored record (0 = not stored yet).
	Version int64
}

// RequiredAction is a pending function call shown in `required_actions`
// (`{type:"function_call", turn_id, call_id, name, arguments}`, docs/agents-api.md §4).
type RequiredAction struct {
	Type      string          `json:"type"`
	TurnID    string          `json:"turn_id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Usage is TokenUsage: token counts of a Turn or the sum over a Session's root Turns.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// MarshalJSON renders TokenUsage with its details objects.
func (u Usage) MarshalJSON() ([]byte, error) {
	return jsonwire.Marshal(map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]int64{"cached_tokens": 0},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]int64{"reasoning_tokens": 0},
		"total_tokens":          u.InputTokens + u.OutputTokens,
	})
}

// MarshalJSON renders the AgentSession object (`object: "agent.session"`, docs/agents-api.md §W4.4). The
// agent snapshot omits tool_search declarations (the pinned Session tool union has none, docs/agents-api.md
// §3.2).
func (s Session) MarshalJSON() ([]byte, error) {
	ag := s.Snapshot.Config.ResourceFields()
	delete(ag, "metadata")
	ag["id"] = nilIfEmpty(s.Snapshot.AgentID)
	ag["tools"] = withoutToolSearch(s.Snapshot.Config.Tools)
	env := s.Environment
	if len(env) == 0 {
		env = json.RawMessage(`{"type":"none"}`)
	}
	actions := s.RequiredActions
	if actions == nil {
		actions = []RequiredAction{}
	}
	meta := s.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	vaults := s.VaultIDs
	if vaults == nil {
		vaults = []string{}
	}
	return jsonwire.Marshal(map[string]any{
		"id":                   s.ID,
		"object":               "agent.session",
		"status":               s.Status,
		"created_at":           s.CreatedAt,
		"last_active_at":       s.LastActiveAt,
		"agent":                ag,
		"environment":          env,
		"error":                s.Error,
		"metadata":             meta,
		"required_actions":     actions,
		"usage":                s.Usage,
		"vault_ids":            vaults,
		"prompt_cache_options": nil,
	})
}

// withoutToolSearch renders a snapshot's tools for the Agents API Session view: without tool_search declarations
// and without MCP `headers` (set only by the AgentCore front door, whose values may be credentials; the Agents API
// wire has no such member, docs/agentcore.md).
func withoutToolSearch(tools []json.RawMessage) []json.RawMessage {
	out := []json.RawMessage{}
	for _, t := range tools {
		var head struct {
			Type    string          `json:"type"`
			Headers json.RawMessage `json:"headers"`
		}
		if json.Unmarshal(t, &head) == nil && head.Type == "tool_search" {
			continue
		}
		if head.Type == "mcp" && head.Headers != nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(t, &m) == nil {
				delete(m, "headers")
				if b, err := jsonwire.Marshal(m); err == nil {
					t = b
				}
			}
		}
		out = append(out, t)
	}
	return out
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
