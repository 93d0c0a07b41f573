package handoff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-run/baton/shared/session"
)

// RuntimeSession maps one runtimeSessionId of one harness and qualifier, in one project, to the Baton Session that
// holds its history (docs/agentcore.md §3.4). Key is Key(…) of those four; it is created once, by a
// conditional write, by the first InvokeHarness that names the runtimeSessionId. LastClaim is the pause round whose
// follow-up was admitted last (ClaimOf), so exactly one of several identical follow-ups resumes a pause.
type RuntimeSession struct {
	Key              string
	ProjectID        string
	HarnessARN       string
	Qualifier        string
	RuntimeSessionID string
	SessionID        string
	CreatedAt        int64
	LastClaim        string
}

// Key returns the mapping key of a runtimeSessionId: project, harness ARN, qualifier ("DEFAULT" when absent) and
// the id, joined by "#" (none of the ARN, qualifier or project id patterns contain "#"; the id is last).
func Key(projectID, harnessARN, qualifier, runtimeSessionID string) string {
	return projectID + "#" + harnessARN + "#" + qualifier + "#" + runtimeSessionID
}

// ClaimOf names one pause: the Turn and its round. A follow-up claims it before it submits results.
func ClaimOf(t session.Turn) string { return fmt.Sprintf("%s#%d", t.ID, t.Round) }

// Message is one request message reduced to what the handoff needs: Role (`user` | `assistant`), Texts (the text
// blocks), ToolUses (the ids of assistant toolUse blocks) and ToolResults (user toolResult blocks, in order).
type Message struct {
	Role        string
	Texts       []string
	ToolUses    []string
	ToolResults []Result
}

// Result is one toolResult block: ToolUseID, Error (status `error`) and Content, the `content` list as sent
// (`[{text}|{json}]`).
type Result struct {
	ToolUseID string
	Error     bool
	Content   []json.RawMessage
}

// Reason classifies a Rejection; each has a pinned wire message (docs/agentcore.md §3.6).
type Reason string

// Rejection reasons.
const (
	// ReasonBusy: the Session's Turn is running (queued or in progress); nothing was changed.
	ReasonBusy Reason = "busy"
	// ReasonAwaitingResults: the Session waits for toolResults and the request brings none (plain user text).
	ReasonAwaitingResults Reason = "awaiting_results"
	// ReasonInvalidResults: a follow-up whose toolResults are missing, duplicate, unknown, stale or replayed.
	ReasonInvalidResults Reason = "invalid_results"
	// ReasonNoPause: toolResults sent while nothing waits for them (stale, or replayed after the pause resumed).
	ReasonNoPause Reason = "no_pause"
	// ReasonNoInput: a request without any user text.
	ReasonNoInput Reason = "no_input"
	// ReasonToolMissing: a pending inline function is not among the tools of the follow-up (an override tool must
	// be sent again).
	ReasonToolMissing Reason = "tool_missing"
)

// Rejection is a request Decide refuses; Message is the wire message, which names the ids concerned.
type Rejection struct {
	Reason  Reason
	Message string
}

func (r *Rejection) Error() string { return r.Message }

// Pending is the pause of a waiting Turn: its call ids in model order with their function names, and the ids that
// already have a stored result (answered by an admitted follow-up that has not resumed yet).
type Pending struct {
	Turn     session.Turn
	Names    map[string]string
	Answered []string
}

// Decision is what an admitted request does: Text, the user text of a new Turn; or Results, the tool results that
// answer the pause, in pending-call order.
type Decision struct {
	Text    string
	Results []session.ToolResult
}

// Decide admits one InvokeHarness request against the Session's state (docs/agentcore.md §3.6):
//   - toolResults while no Turn waits: ReasonNoPause (stale or replayed), also while a Turn runs.
//   - no active Turn (active nil or terminal): the request must carry user text (else ReasonNoInput); assistant
//     messages are ignored. → Decision.Text (texts joined by a blank line).
//   - a queued or in-progress Turn: ReasonBusy.
//   - a waiting Turn (pending != nil): assistant toolUse blocks naming pending ids are ignored (a re-sent copy),
//     any other assistant toolUse is ReasonInvalidResults; user text is ReasonAwaitingResults; the toolResults must
//     name every pending id exactly once and nothing else, none already answered (missing, duplicate, unknown,
//     stale or replayed → ReasonInvalidResults); each pending call's function must be in inlineTools (the inline
//     functions of the request's effective tools) or ReasonToolMissing. → Decision.Results.
//
// Messages are already shape-checked by the caller. Decide never changes anything.
func Decide(active *session.Turn, pending *Pending, msgs []Message, inlineTools []string) (Decision, error) {
	var texts []string
	var results []Result
	var uses []string
	for _, m := range msgs {
		if m.Role == "assistant" {
			uses = append(uses, m.ToolUses...)
			continue
		}
		texts = append(texts, m.Texts...)
		results = append(results, m.ToolResults...)
	}
	if len(results) > 0 && (active == nil || active.Status != session.TurnWaiting || pending == nil) {
		// A result with nothing waiting for it: stale, or replayed after its pause resumed.
		return Decision{}, &Rejection{ReasonNoPause, fmt.Sprintf("No tool call is pending in this session; toolResult %s is stale or replayed.", ids(results))}
	}
	if active == nil || active.Status.Terminal() {
		text := strings.Join(texts, "\n\n")
		if strings.TrimSpace(text) == "" {
			return Decision{}, &Rejection{ReasonNoInput, "The request must contain a user message with text."}
		}
		return Decision{Text: text}, nil
	}
	if active.Status != session.TurnWaiting || pending == nil {
		return Decision{}, &Rejection{ReasonBusy, "The session is processing another invocation; wait for its stream to end."}
	}
	want := active.PendingCalls
	waiting := strings.Join(want, ", ")
	for _, id := range uses {
		if !slices.Contains(want, id) {
			return Decision{}, &Rejection{ReasonInvalidResults, fmt.Sprintf("toolUse %s is not pending in this session; pending: %s.", id, waiting)}
		}
	}
	if len(results) == 0 {
		return Decision{}, &Rejection{ReasonAwaitingResults, fmt.Sprintf("The session is waiting for toolResult for %s; send exactly those results.", waiting)}
	}
	if len(texts) > 0 {
		return Decision{}, &Rejection{ReasonAwaitingResults, fmt.Sprintf("The session is waiting for toolResult for %s; a user text cannot be sent while they are pending.", waiting)}
	}
	seen := map[string]bool{}
	byID := map[string]Result{}
	for _, r := range results {
		switch {
		case seen[r.ToolUseID]:
			return Decision{}, &Rejection{ReasonInvalidResults, fmt.Sprintf("Duplicate toolResult for %s.", r.ToolUseID)}
		case !slices.Contains(want, r.ToolUseID):
			return Decision{}, &Rejection{ReasonInvalidResults, fmt.Sprintf("toolResult %s does not answer a pending tool call (unknown or stale); pending: %s.", r.ToolUseID, waiting)}
		case slices.Contains(pending.Answered, r.ToolUseID):
			return Decision{}, &Rejection{ReasonInvalidResults, fmt.Sprintf("toolResult %s was already submitted (replayed).", r.ToolUseID)}
		}
		seen[r.ToolUseID] = true
		byID[r.ToolUseID] = r
	}
	var missing []string
	for _, id := range want {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return Decision{}, &Rejection{ReasonInvalidResults, fmt.Sprintf("Missing toolResult for %s; send every pending result in one request.", strings.Join(missing, ", "))}
	}
	var out []session.ToolResult
	for _, id := range want {
		name := pending.Names[id]
		if !slices.Contains(inlineTools, name) {
			return Decision{}, &Rejection{ReasonToolMissing, fmt.Sprintf("The pending tool call %s uses the inline function %s, which is not among this request's tools; send the tools override again.", id, name)}
		}
		out = append(out, ToolResultOf(active.ID, byID[id]))
	}
	return Decision{Results: out}, nil
}

// ToolResultOf converts a toolResult block into the engine's tool result: the text and json blocks, in order, as
// one text (json blocks compacted), given as `output` (status success or absent) or `error` (status error), a
// JSON string either way.
func ToolResultOf(turnID string, r Result) session.ToolResult {
	var b strings.Builder
	for _, c := range r.Content {
		var block struct {
			Text *string         `json:"text"`
			JSON json.RawMessage `json:"json"`
		}
		if json.Unmarshal(c, &block) != nil {
			continue
		}
		switch {
		case block.Text != nil:
			b.WriteString(*block.Text)
		case len(block.JSON) > 0:
			if compact, err := compactJSON(block.JSON); err == nil {
				b.Write(compact)
			} else {
				b.Write(block.JSON)
			}
		}
	}
	text, _ := json.Marshal(b.String())
	tr := session.ToolResult{TurnID: turnID, CallID: r.ToolUseID, Success: !r.Error}
	if r.Error {
		tr.Error = text
	} else {
		tr.Output = text
	}
	return tr
}

func ids(rs []Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ToolUseID)
	}
	return strings.Join(out, ", ")
}
