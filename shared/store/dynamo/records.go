package dynamo

import (
	"encoding/json"
	"fmt"
	"github.com/baton-run/baton/shared/jsonwire"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

const (
	skMeta       = "META"
	skSnapshot   = "SNAPSHOT"
	gsiUnstarted = string(session.MarkUnstarted)
	gsiResuming  = string(session.MarkResuming)
	gsiActive    = string(session.MarkActive)
	gsiRuntimes  = "RUNTIMES"
)

func sessionPK(id string) string         { return "SESSION#" + id }
func agentPK(id string) string           { return "AGENT#" + id }
func turnSK(id string) string            { return "TURN#" + id }
func callSK(id string) string            { return "CALL#" + id }
func resultSK(id string) string          { return "RESULT#" + id }
func itemSK(seq int64) string            { return fmt.Sprintf("ITEM#%012d", seq) }
func eventSK(seq int64) string           { return fmt.Sprintf("EVENT#%012d", seq) }
func projectAgentsGSI(p string) string   { return "PROJECT#" + p + "#AGENT" }
func projectSessionsGSI(p string) string { return "PROJECT#" + p + "#SESSION" }

type keyRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	ProjectID string `dynamodbav:"project_id"`
}

type agentRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	GSI1PK    string `dynamodbav:"gsi1pk"`
	GSI1SK    string `dynamodbav:"gsi1sk"`
	ID        string `dynamodbav:"id"`
	ProjectID string `dynamodbav:"project_id"`
	CreatedAt int64  `dynamodbav:"created_at"`
	UpdatedAt int64  `dynamodbav:"updated_at"`
	Config    string `dynamodbav:"config"`
}

func agentToItem(a agent.Agent) (agentRecord, error) {
	cfg, err := jsonwire.Marshal(a.Config)
	if err != nil {
		return agentRecord{}, fmt.Errorf("encode agent %s config: %w", a.ID, err)
	}
	return agentRecord{PK: agentPK(a.ID), SK: skMeta, GSI1PK: projectAgentsGSI(a.ProjectID), GSI1SK: a.ID,
		ID: a.ID, ProjectID: a.ProjectID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, Config: string(cfg)}, nil
}

func agentFromItem(r agentRecord) (agent.Agent, error) {
	a := agent.Agent{ID: r.ID, ProjectID: r.ProjectID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal([]byte(r.Config), &a.Config); err != nil {
		return agent.Agent{}, fmt.Errorf("decode agent %s config: %w", r.ID, err)
	}
	return a, nil
}

type sessionRecord struct {
	PK              string            `dynamodbav:"pk"`
	SK              string            `dynamodbav:"sk"`
	GSI1PK          string            `dynamodbav:"gsi1pk"`
	GSI1SK          string            `dynamodbav:"gsi1sk"`
	Version         int64             `dynamodbav:"version"`
	ID              string            `dynamodbav:"id"`
	ProjectID       string            `dynamodbav:"project_id"`
	AgentID         string            `dynamodbav:"agent_id"`
	CreatedAt       int64             `dynamodbav:"created_at"`
	LastActiveAt    int64             `dynamodbav:"last_active_at"`
	Status          string            `dynamodbav:"status"`
	Environment     string            `dynamodbav:"environment"`
	Error           *string           `dynamodbav:"error"`
	Metadata        map[string]string `dynamodbav:"metadata"`
	RequiredActions string            `dynamodbav:"required_actions"`
	Usage           string            `dynamodbav:"usage,omitempty"`
	UsageUnknown    bool              `dynamodbav:"usage_unknown"`
	VaultIDs        []string          `dynamodbav:"vault_ids"`
	ActiveTurnID    string            `dynamodbav:"active_turn_id"`
	EventSeq        int64             `dynamodbav:"event_seq"`
	ItemSeq         int64             `dynamodbav:"item_seq"`
	ItemsRevision   int64             `dynamodbav:"items_rev"`
	Deleted         bool              `dynamodbav:"deleted"`
}

type snapshotRecord struct {
	PK       string `dynamodbav:"pk"`
	SK       string `dynamodbav:"sk"`
	Snapshot string `dynamodbav:"snapshot"`
}

func sessionToItem(s session.Session, version int64) (sessionRecord, error) {
	actions, err := jsonwire.Marshal(s.RequiredActions)
	if err != nil {
		return sessionRecord{}, fmt.Errorf("encode session %s required actions: %w", s.ID, err)
	}
	r := sessionRecord{PK: sessionPK(s.ID), SK: skMeta, GSI1PK: projectSessionsGSI(s.ProjectID), GSI1SK: s.ID,
		Version: version, ID: s.ID, ProjectID: s.ProjectID, AgentID: s.Snapshot.AgentID, CreatedAt: s.CreatedAt,
		LastActiveAt: s.LastActiveAt, Status: string(s.Status), Environment: string(s.Environment), Error: s.Error,
		Metadata: s.Metadata, RequiredActions: string(actions), UsageUnknown: s.UsageUnknown, VaultIDs: s.VaultIDs,
		ActiveTurnID: s.ActiveTurnID, EventSeq: s.EventSeq, ItemSeq: s.ItemSeq, ItemsRevision: s.ItemsRevision, Deleted: s.Deleted}
	if s.Usage != nil {
		u, _ := jsonwire.Marshal(usageDoc(*s.Usage))
		r.Usage = string(u)
	}
	return r, nil
}

func sessionFromItem(r sessionRecord, snap snapshotRecord) (session.Session, error) {
	s := session.Session{ID: r.ID, ProjectID: r.ProjectID, CreatedAt: r.CreatedAt, LastActiveAt: r.LastActiveAt,
		Status: session.Status(r.Status), Error: r.Error, Metadata: r.Metadata, UsageUnknown: r.UsageUnknown,
		VaultIDs: r.VaultIDs, ActiveTurnID: r.ActiveTurnID, EventSeq: r.EventSeq, ItemSeq: r.ItemSeq,
		ItemsRevision: r.ItemsRevision, Deleted: r.Deleted, Version: r.Version}
	if r.Environment != "" {
		s.Environment = json.RawMessage(r.Environment)
	}
	if r.RequiredActions != "" && r.RequiredActions != "null" {
		if err := json.Unmarshal([]byte(r.RequiredActions), &s.RequiredActions); err != nil {
			return session.Session{}, fmt.Errorf("decode session %s required actions: %w", r.ID, err)
		}
	}
	if r.Usage != "" {
		var u usageDoc
		if err := json.Unmarshal([]byte(r.Usage), &u); err != nil {
			return session.Session{}, fmt.Errorf("decode session %s usage: %w", r.ID, err)
		}
		su := session.Usage(u)
		s.Usage = &su
	}
	if snap.Snapshot != "" {
		if err := json.Unmarshal([]byte(snap.Snapshot), &s.Snapshot); err != nil {
			return session.Session{}, fmt.Errorf("decode session %s snapshot: %w", r.ID, err)
		}
	}
	return s, nil
}

// usageDoc is the stored form of session.Usage (whose MarshalJSON renders the wire form).
type usageDoc struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// turnDoc is the stored form of session.Turn (whose MarshalJSON renders the wire form).
type turnDoc struct {
	ID              string               `json:"id"`
	SessionID       string               `json:"session_id"`
	AgentID         string               `json:"agent_id"`
	Status          string               `json:"status"`
	CreatedAt       int64                `json:"created_at"`
	StartedAt       *int64               `json:"started_at"`
	CompletedAt     *int64               `json:"completed_at"`
	Error           *session.TurnError   `json:"error"`
	Usage           *usageDoc            `json:"usage"`
	Harness         string               `json:"harness"`
	Round           int                  `json:"round"`
	PendingCalls    []string             `json:"pending_calls"`
	CallsTotal      int                  `json:"calls_total"`
	Answered        []string             `json:"answered"`
	TokenRound      int                  `json:"token_round"`
	ResumedRound    int                  `json:"resumed_round"`
	OutputCount     int                  `json:"output_count"`
	CancelRequested bool                 `json:"cancel_requested"`
	ResumeClaimedAt int64                `json:"resume_claimed_at,omitempty"`
	ClaimedToken    string               `json:"claimed_token,omitempty"`
	Requires        []string             `json:"requires,omitempty"`
	Queued          []session.QueuedCall `json:"queued,omitempty"`
	Config          *agent.Config        `json:"config,omitempty"`
	StopReason      string               `json:"stop_reason,omitempty"`
}

type turnRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	GSI1PK    string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK    string `dynamodbav:"gsi1sk,omitempty"`
	Version   int64  `dynamodbav:"version"`
	TaskToken string `dynamodbav:"task_token,omitempty"`
	Doc       string `dynamodbav:"doc"`
}

func turnToItem(t session.Turn, version int64) (turnRecord, error) {
	d := turnDoc{ID: t.ID, SessionID: t.SessionID, AgentID: t.AgentID, Status: string(t.Status), CreatedAt: t.CreatedAt,
		StartedAt: t.StartedAt, CompletedAt: t.CompletedAt, Error: t.Error, Harness: t.Harness, Round: t.Round,
		PendingCalls: t.PendingCalls, CallsTotal: t.CallsTotal, Answered: t.Answered, TokenRound: t.TokenRound,
		ResumedRound: t.ResumedRound, OutputCount: t.OutputCount, CancelRequested: t.CancelRequested, ResumeClaimedAt: t.ResumeClaimedAt, ClaimedToken: t.ClaimedToken, Requires: t.Requires, Queued: t.Queued, Config: t.Config, StopReason: t.StopReason}
	if t.Usage != nil {
		u := usageDoc(*t.Usage)
		d.Usage = &u
	}
	doc, err := jsonwire.Marshal(d)
	if err != nil {
		return turnRecord{}, fmt.Errorf("encode turn %s: %w", t.ID, err)
	}
	r := turnRecord{PK: sessionPK(t.SessionID), SK: turnSK(t.ID), Version: version, TaskToken: t.TaskToken, Doc: string(doc)}
	// One reconciler mark per turn, derived from its state (session.Turn.Mark).
	switch t.Mark() {
	case session.MarkUnstarted:
		r.GSI1PK, r.GSI1SK = gsiUnstarted, t.ID
	case session.MarkResuming:
		r.GSI1PK, r.GSI1SK = gsiResuming, t.ID
	case session.MarkActive:
		r.GSI1PK, r.GSI1SK = gsiActive, t.ID
	}
	return r, nil
}

func turnFromItem(r turnRecord) (session.Turn, error) {
	var d turnDoc
	if err := json.Unmarshal([]byte(r.Doc), &d); err != nil {
		return session.Turn{}, fmt.Errorf("decode turn %s: %w", r.SK, err)
	}
	t := session.Turn{ID: d.ID, SessionID: d.SessionID, AgentID: d.AgentID, Status: session.TurnStatus(d.Status),
		CreatedAt: d.CreatedAt, StartedAt: d.StartedAt, CompletedAt: d.CompletedAt, Error: d.Error, Harness: d.Harness,
		Round: d.Round, PendingCalls: d.PendingCalls, CallsTotal: d.CallsTotal, Answered: d.Answered,
		TaskToken: r.TaskToken, TokenRound: d.TokenRound, ResumedRound: d.ResumedRound, OutputCount: d.OutputCount,
		CancelRequested: d.CancelRequested, ResumeClaimedAt: d.ResumeClaimedAt, ClaimedToken: d.ClaimedToken, Version: r.Version, Requires: d.Requires, Queued: d.Queued, Config: d.Config, StopReason: d.StopReason}
	if d.Usage != nil {
		u := session.Usage(*d.Usage)
		t.Usage = &u
	}
	return t, nil
}

type callRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	CallID    string `dynamodbav:"call_id"`
	TurnID    string `dynamodbav:"turn_id"`
	Round     int    `dynamodbav:"round"`
	Name      string `dynamodbav:"name"`
	Arguments string `dynamodbav:"arguments"`
	ItemID    string `dynamodbav:"item_id"`
}

func callToItem(sessionID string, c session.Call) callRecord {
	return callRecord{PK: sessionPK(sessionID), SK: callSK(c.CallID), CallID: c.CallID, TurnID: c.TurnID, Round: c.Round,
		Name: c.Name, Arguments: string(c.Arguments), ItemID: c.ItemID}
}

func callFromItem(r callRecord) session.Call {
	return session.Call{CallID: r.CallID, TurnID: r.TurnID, Round: r.Round, Name: r.Name, Arguments: json.RawMessage(r.Arguments), ItemID: r.ItemID}
}

// resultRecord keeps a tool result exactly as submitted: output and error are stored as their raw JSON text, and
// an absent member is an absent attribute (presence is part of the result's identity, docs/agents-api.md §4).
type resultRecord struct {
	PK      string  `dynamodbav:"pk"`
	SK      string  `dynamodbav:"sk"`
	TurnID  string  `dynamodbav:"turn_id"`
	CallID  string  `dynamodbav:"call_id"`
	Success bool    `dynamodbav:"success"`
	Output  *string `dynamodbav:"output,omitempty"`
	Error   *string `dynamodbav:"error,omitempty"`
}

func resultToItem(sessionID string, r session.ToolResult) resultRecord {
	rec := resultRecord{PK: sessionPK(sessionID), SK: resultSK(r.CallID), TurnID: r.TurnID, CallID: r.CallID, Success: r.Success}
	if r.Output != nil {
		s := string(r.Output)
		rec.Output = &s
	}
	if r.Error != nil {
		s := string(r.Error)
		rec.Error = &s
	}
	return rec
}

func resultFromItem(r resultRecord) session.ToolResult {
	out := session.ToolResult{TurnID: r.TurnID, CallID: r.CallID, Success: r.Success}
	if r.Output != nil {
		out.Output = json.RawMessage(*r.Output)
	}
	if r.Error != nil {
		out.Error = json.RawMessage(*r.Error)
	}
	return out
}

// itemDoc is the stored form of session.Item (whose MarshalJSON renders the wire form).
type itemDoc struct {
	Role        string                `json:"role,omitempty"`
	Phase       *string               `json:"phase,omitempty"`
	Content     []session.ContentPart `json:"content,omitempty"`
	CallID      string                `json:"call_id,omitempty"`
	Name        string                `json:"name,omitempty"`
	Arguments   json.RawMessage       `json:"arguments,omitempty"`
	Output      json.RawMessage       `json:"output,omitempty"`
	Error       json.RawMessage       `json:"error,omitempty"`
	ServerLabel string                `json:"server_label,omitempty"`
	// StartEventSeq: session.Item.StartEventSeq.
	StartEventSeq int64 `json:"start_event_seq,omitempty"`
	// command_execution: session.Item.Command, Cwd, ExitCode, DurationMs.
	Command    string `json:"command,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	ExitCode   int    `json:"exit_code,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
}

type itemRecord struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	Seq         int64  `dynamodbav:"seq"`
	ID          string `dynamodbav:"id"`
	Type        string `dynamodbav:"type"`
	TurnID      string `dynamodbav:"turn_id"`
	Status      string `dynamodbav:"status"`
	OutputIndex *int   `dynamodbav:"output_index"`
	Doc         string `dynamodbav:"doc"`
}

func itemToItem(sessionID string, it session.Item) (itemRecord, error) {
	doc, err := jsonwire.Marshal(itemDoc{Role: it.Role, Phase: it.Phase, Content: it.Content, CallID: it.CallID, Name: it.Name,
		Arguments: it.Arguments, Output: it.Output, Error: it.Error, ServerLabel: it.ServerLabel, StartEventSeq: it.StartEventSeq,
		Command: it.Command, Cwd: it.Cwd, ExitCode: it.ExitCode, DurationMs: it.DurationMs})
	if err != nil {
		return itemRecord{}, fmt.Errorf("encode item %s: %w", it.ID, err)
	}
	return itemRecord{PK: sessionPK(sessionID), SK: itemSK(it.Seq), Seq: it.Seq, ID: it.ID, Type: it.Type, TurnID: it.TurnID,
		Status: it.Status, OutputIndex: it.OutputIndex, Doc: string(doc)}, nil
}

func itemFromItem(r itemRecord) (session.Item, error) {
	var d itemDoc
	if err := json.Unmarshal([]byte(r.Doc), &d); err != nil {
		return session.Item{}, fmt.Errorf("decode item %s: %w", r.ID, err)
	}
	return session.Item{Seq: r.Seq, ID: r.ID, Type: r.Type, TurnID: r.TurnID, Status: r.Status, OutputIndex: r.OutputIndex,
		Role: d.Role, Phase: d.Phase, Content: d.Content, CallID: d.CallID, Name: d.Name, Arguments: d.Arguments,
		Output: d.Output, Error: d.Error, ServerLabel: d.ServerLabel, StartEventSeq: d.StartEventSeq,
		Command: d.Command, Cwd: d.Cwd, ExitCode: d.ExitCode, DurationMs: d.DurationMs}, nil
}

type eventRecord struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	Seq    int64  `dynamodbav:"seq"`
	ID     string `dynamodbav:"id"`
	Type   string `dynamodbav:"type"`
	TurnID string `dynamodbav:"turn_id,omitempty"`
	Data   string `dynamodbav:"data"`
	// Pack, when set, holds several consecutive events (eventpack.go); the other members describe its last one.
	Pack string `dynamodbav:"pack,omitempty"`
}

func eventToItem(sessionID string, e session.Event) eventRecord {
	return eventRecord{PK: sessionPK(sessionID), SK: eventSK(e.Seq), Seq: e.Seq, ID: e.ID, Type: e.Type, TurnID: e.TurnID, Data: string(e.Data)}
}

func eventFromItem(r eventRecord) session.Event {
	return session.Event{Seq: r.Seq, ID: r.ID, Type: r.Type, TurnID: r.TurnID, Data: json.RawMessage(r.Data)}
}

type idempotencyRecord struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	RequestHash string `dynamodbav:"request_hash"`
	Response    string `dynamodbav:"response"`
	CreatedAt   int64  `dynamodbav:"created_at"`
	ExpiresAt   int64  `dynamodbav:"expires_at"`
}

type runtimeRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	GSI1PK    string `dynamodbav:"gsi1pk"`
	GSI1SK    string `dynamodbav:"gsi1sk"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
	Doc       string `dynamodbav:"doc"`
}

func runtimeToItem(r engine.RuntimeInfo) (runtimeRecord, error) {
	doc, err := jsonwire.Marshal(r)
	if err != nil {
		return runtimeRecord{}, fmt.Errorf("encode runtime %s: %w", r.ID, err)
	}
	return runtimeRecord{PK: "RUNTIME#" + r.ID, SK: skMeta, GSI1PK: gsiRuntimes, GSI1SK: r.ID, ExpiresAt: r.ExpiresAt, Doc: string(doc)}, nil
}
