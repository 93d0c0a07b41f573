package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

// Bounds of every wait in this package.
const (
	testTimeout  = 90 * time.Second // one scenario, end to end
	eventTimeout = 30 * time.Second // one awaited stream event
)

// weatherScript is the x_baton.script of the weather agent: "weather in <City>" calls get_weather once,
// "two cities" calls it twice in one response (Paris, then Rome), and the tool stage answers with every tool
// output of the turn in brackets — so the final text proves which output the harness saw.
func weatherScript() map[string]any {
	call := func(city string) map[string]any {
		return map[string]any{"name": "get_weather", "arguments": map[string]any{"city": city}}
	}
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "two cities"}, "calls": []any{call("Paris"), call("Rome")}},
			map[string]any{"when": map[string]any{"user_matches": `(?i)weather in (?P<city>\w+)`}, "calls": []any{call("{{.Match.city}}")}},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"},
				"reply": "Weather report: {{range .Tools}}[{{.Output}}]{{end}}"},
		},
		"chunk_size": 8,
	}
}

// newWeatherAgent creates the docs/agents-api.md §W7 agent (function tool get_weather) with weatherScript,
// through the official SDK with x_baton as an extra field (docs/decisions.md §1).
func newWeatherAgent(t *testing.T, ctx context.Context, client openai.Client) *openai.Agent {
	t.Helper()
	params := openai.BetaAgentNewParams{
		Model:        "scripted",
		Instructions: openai.String("Answer weather questions."),
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"city": map[string]any{"type": "string"}},
				"required":             []string{"city"},
				"additionalProperties": false,
			})},
	}
	a, err := client.Beta.Agents.New(ctx, params, option.WithJSONSet("x_baton", map[string]any{
		"model_provider": map[string]any{"protocol": "scripted"},
		"script":         weatherScript(),
	}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	return a
}

// newIdleSession creates a Session of agentID with environment none and no input (docs/decisions.md §3).
func newIdleSession(t *testing.T, ctx context.Context, client openai.Client, agentID string) *openai.AgentSession {
	t.Helper()
	s, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{
		AgentID:     openai.String(agentID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}},
	})
	if err != nil {
		t.Fatalf("create session: %v", describe(err))
	}
	if s.Status != "idle" {
		t.Fatalf("new session status = %q, want idle", s.Status)
	}
	return s
}

func userMessage(text string) openai.AgentSessionInputParamUnion {
	return openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText(text)}}})
}

func toolResult(turnID, callID, output string) openai.AgentSessionInputParamUnion {
	in := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(callID, true, turnID)
	in.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{OfString: openai.String(output)}
	return in
}

func postEvents(t *testing.T, ctx context.Context, client openai.Client, sessionID string, events ...openai.AgentSessionInputParamUnion) {
	t.Helper()
	if err := client.Beta.Agents.Sessions.Events.New(ctx, sessionID, openai.BetaAgentSessionEventNewParams{Events: events}); err != nil {
		t.Fatalf("POST /events: %v", describe(err))
	}
}

// describe adds the Agents API error body to an SDK error (its Error() has only the status).
func describe(err error) error {
	var apiErr *openai.Error
	if e, ok := err.(*openai.Error); ok {
		apiErr = e
	}
	if apiErr == nil {
		return err
	}
	return fmt.Errorf("%w: type=%q code=%q message=%q", err, apiErr.Type, apiErr.Code, apiErr.Message)
}

// Wire shapes the assertions read (decoded from the raw JSON the SDK received).
type (
	wireEvent struct {
		Type        string       `json:"type"`
		EventID     string       `json:"event_id"`
		TurnID      string       `json:"turn_id"`
		OutputIndex *int         `json:"output_index"`
		ItemID      string       `json:"item_id"`
		Delta       string       `json:"delta"`
		Text        string       `json:"text"`
		Item        *wireItem    `json:"item"`
		Session     *wireSession `json:"session"`
		Turn        *wireTurn    `json:"turn"`
		raw         string
	}
	wireItem struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		TurnID    string          `json:"turn_id"`
		Role      string          `json:"role"`
		Phase     string          `json:"phase"`
		Status    string          `json:"status"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Output    json.RawMessage `json:"output"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	wireSession struct {
		ID              string           `json:"id"`
		Status          string           `json:"status"`
		RequiredActions []requiredAction `json:"required_actions"`
	}
	// requiredAction is a function_call required action with its arguments decoded (an object).
	requiredAction struct {
		Type      string         `json:"type"`
		TurnID    string         `json:"turn_id"`
		CallID    string         `json:"call_id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	wireTurn struct {
		ID         string  `json:"id"`
		SessionID  string  `json:"session_id"`
		Status     string  `json:"status"`
		SubagentID *string `json:"subagent_id"`
	}
)

// text joins the item's text parts.
func (it wireItem) text() string {
	var b strings.Builder
	for _, c := range it.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// outputString is a function_call_output's output when it is a JSON string.
func (it wireItem) outputString() string {
	var s string
	_ = json.Unmarshal(it.Output, &s)
	return s
}

func decode[T any](t *testing.T, raw string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// getSession reads a Session through the SDK.
func getSession(t *testing.T, ctx context.Context, client openai.Client, id string) wireSession {
	t.Helper()
	s, err := client.Beta.Agents.Sessions.Get(ctx, id)
	if err != nil {
		t.Fatalf("GET session %s: %v", id, describe(err))
	}
	return decode[wireSession](t, s.RawJSON())
}

// listItems lists a Session's items in ascending order through the SDK's auto-pager, two per page (so the
// cursor is exercised).
func listItems(t *testing.T, ctx context.Context, client openai.Client, sessionID string) []wireItem {
	t.Helper()
	var out []wireItem
	for _, raw := range rawItems(t, ctx, client, sessionID) {
		out = append(out, decode[wireItem](t, raw))
	}
	return out
}

// rawItems lists a Session's items in ascending order as raw JSON, two per page.
func rawItems(t *testing.T, ctx context.Context, client openai.Client, sessionID string) []string {
	t.Helper()
	pager := client.Beta.Agents.Sessions.Items.ListAutoPaging(ctx, sessionID, openai.BetaAgentSessionItemListParams{
		Order: openai.BetaAgentSessionItemListParamsOrderAsc, Limit: openai.Int(2)})
	var out []string
	for pager.Next() {
		out = append(out, pager.Current().RawJSON())
		if len(out) > 200 {
			t.Fatal("items list does not end")
		}
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("list items: %v", describe(err))
	}
	return out
}

// itemShape is the comparable summary of an item in a list.
func itemShape(it wireItem) string {
	switch it.Type {
	case "message":
		return "message/" + it.Role
	default:
		return it.Type
	}
}

// recorder is the Session event stream of a test (stack.Recorder with this package's wireEvent).
type recorder = stack.Recorder[wireEvent]

// record opens the stream; when it returns, the subscription is live (the server flushed the headers).
func record(t *testing.T, ctx context.Context, client openai.Client, sessionID string) *recorder {
	t.Helper()
	return stack.Record(t, ctx, client, sessionID, eventTimeout, func(raw string) wireEvent {
		var w wireEvent
		_ = json.Unmarshal([]byte(raw), &w)
		w.raw = raw
		return w
	})
}

func isType(typ string) func(wireEvent) bool {
	return func(e wireEvent) bool { return e.Type == typ }
}

func isItemAdded(itemType string) func(wireEvent) bool {
	return func(e wireEvent) bool {
		return e.Type == "agent.session.turn.item.added" && e.Item != nil && e.Item.Type == itemType
	}
}

func isTurnEvent(typ, turnID string) func(wireEvent) bool {
	return func(e wireEvent) bool { return e.Type == typ && e.TurnID == turnID }
}

func dump(events []wireEvent) string {
	var b strings.Builder
	for i, e := range events {
		fmt.Fprintf(&b, "  %2d %s\n", i, e.raw)
	}
	return b.String()
}

// turnWindow returns the events of one root turn: from its turn.created through the first agent.session.idle
// after its terminal event (both included).
func turnWindow(t *testing.T, events []wireEvent, turnID string) []wireEvent {
	t.Helper()
	start, terminal := -1, -1
	for i, e := range events {
		switch {
		case start < 0 && e.Type == "agent.session.turn.created" && e.TurnID == turnID:
			start = i
		case start >= 0 && terminal < 0 && e.TurnID == turnID && (e.Type == "agent.session.turn.completed" ||
			e.Type == "agent.session.turn.failed" || e.Type == "agent.session.turn.cancelled"):
			terminal = i
		case terminal >= 0 && e.Type == "agent.session.idle":
			return events[start : i+1]
		}
	}
	t.Fatalf("turn %s has no complete window (created at %d, terminal at %d) in:\n%s", turnID, start, terminal, dump(events))
	return nil
}

// token names an event for order checks: the type without "agent.session." and, for items, the item type
// (messages: role and phase).
func token(e wireEvent) string {
	name := strings.TrimPrefix(strings.TrimPrefix(e.Type, "agent.session."), "turn.")
	switch e.Type {
	case "agent.session.turn.created", "agent.session.turn.in_progress", "agent.session.turn.completed",
		"agent.session.turn.failed", "agent.session.turn.cancelled":
		name = "turn." + name
	}
	if e.Item != nil && (e.Type == "agent.session.turn.item.added" || e.Type == "agent.session.turn.item.done") {
		name += "(" + e.Item.Type
		if e.Item.Type == "message" {
			name += "/" + e.Item.Role
			if e.Item.Phase != "" {
				name += "/" + e.Item.Phase
			}
		}
		name += ")"
	}
	return name
}

// assistantMessage is the token pattern of one assistant message with the given phase
// (docs/agents-api.md §2.6 "Assistant message").
func assistantMessage(phase string) string {
	return `item\.added\(message/assistant/` + phase + `\) content_part\.added (output_text\.delta )+output_text\.done content_part\.done item\.done\(message/assistant/` + phase + `\) `
}

// inlineRoundTripOrder is the event order of a root turn that calls `calls` functions in one response, waits for
// their results and answers (docs/agents-api.md §2.6, the order rules for a turn that calls a function
// and resumes). The agent.session.in_progress at the resume is optional: §2.6 leaves it out, the §W7 scenario of
// docs/agents-api.md shows it, and it is the session's status change from requires_action.
func inlineRoundTripOrder(calls int) *regexp.Regexp {
	fc := strings.Repeat(`item\.added\(function_call\) item\.done\(function_call\) `, calls)
	fco := strings.Repeat(`item\.added\(function_call_output\) `, calls)
	return regexp.MustCompile(`^turn\.created item\.added\(message/user\) in_progress turn\.in_progress ` +
		`(` + assistantMessage("commentary") + `)?` + fc + `requires_action ` + fco + `(in_progress )?turn\.in_progress ` +
		assistantMessage("final_answer") + `turn\.completed idle $`)
}

func tokens(events []wireEvent) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(token(e))
		b.WriteByte(' ')
	}
	return b.String()
}

// checkEventIDs fails unless every event has a non-empty event_id and no two share one.
func checkEventIDs(t *testing.T, events []wireEvent) {
	t.Helper()
	seen := map[string]int{}
	for i, e := range events {
		if e.EventID == "" {
			t.Errorf("event %d (%s) has no event_id", i, e.Type)
			continue
		}
		if j, dup := seen[e.EventID]; dup {
			t.Errorf("events %d and %d share event_id %q", j, i, e.EventID)
		}
		seen[e.EventID] = i
	}
}

// count returns how many events satisfy match.
func count(events []wireEvent, match func(wireEvent) bool) int {
	n := 0
	for _, e := range events {
		if match(e) {
			n++
		}
	}
	return n
}

// pendingTurn drives a fresh session of a new weather agent to a pending required action: it opens the stream,
// posts text and waits for requires_action. It returns the session, the recorder and the turn id with the
// required actions (in call order).
func pendingTurn(t *testing.T, ctx context.Context, client openai.Client, text string) (string, *recorder, string, []requiredAction) {
	t.Helper()
	a := newWeatherAgent(t, ctx, client)
	s := newIdleSession(t, ctx, client, a.ID)
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage(text))
	i := rec.WaitFor(t, 0, "agent.session.requires_action", isType("agent.session.requires_action"))
	ev := rec.Snapshot()[i]
	if ev.Session == nil || len(ev.Session.RequiredActions) == 0 {
		t.Fatalf("requires_action without required actions: %s", ev.raw)
	}
	return s.ID, rec, ev.Session.RequiredActions[0].TurnID, ev.Session.RequiredActions
}

// stackClient returns the shared stack and its SDK client.
func stackClient(t *testing.T) (*stack.Stack, openai.Client) {
	t.Helper()
	st := stack.Shared(t)
	return st, stack.OpenAI(st)
}
