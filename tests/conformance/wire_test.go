package conformance_test

// Wire-fidelity review against openai-go v3.98.0's response structs: every resource and stream event Baton emits is
// decoded with the SDK's own types, and each `api:"required"` member is checked through its respjson metadata
// (omitted, JSON null, or a value of the wrong type). Members the SDK documents as nullable ("or null", "when
// applicable", "when the item is agent output") may be null; nothing else may be.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// wireGap is one required member that the SDK could not decode as a present, non-null value of its type.
type wireGap struct {
	Path string // e.g. "session.agent.id"
	Kind string // "omitted", "null" or "invalid"
	Raw  string
}

func (g wireGap) String() string { return fmt.Sprintf("%s %s (raw %q)", g.Path, g.Kind, g.Raw) }

// sdkGaps walks an SDK response value and reports every required member that is omitted, null or invalid. Unions
// are resolved through their AsAny variant when they have one.
func sdkGaps(path string, v reflect.Value) []wireGap {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		var out []wireGap
		for i := 0; i < v.Len(); i++ {
			out = append(out, sdkGaps(fmt.Sprintf("%s[%d]", path, i), v.Index(i))...)
		}
		return out
	case reflect.Struct:
	default:
		return nil
	}
	if !v.CanAddr() {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		v = p.Elem()
	}
	if m := v.Addr().MethodByName("AsAny"); m.IsValid() {
		res := m.Call(nil)[0]
		if res.IsNil() {
			return nil
		}
		return sdkGaps(path, res)
	}
	meta := v.FieldByName("JSON")
	if !meta.IsValid() || meta.Kind() != reflect.Struct {
		return nil
	}
	var out []wireGap
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "JSON" || !f.IsExported() {
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		sub := path + "." + name
		mf := meta.FieldByName(f.Name)
		if mf.IsValid() {
			fld := mf.Interface().(respjson.Field)
			if !fld.Valid() && f.Tag.Get("api") != "required" {
				continue // an absent or null optional member: nothing below it to check
			}
			if !fld.Valid() {
				kind := "invalid"
				switch fld.Raw() {
				case respjson.Omitted:
					kind = "omitted"
				case respjson.Null:
					kind = "null"
				}
				out = append(out, wireGap{Path: sub, Kind: kind, Raw: fld.Raw()})
				continue
			}
		}
		out = append(out, sdkGaps(sub, v.Field(i))...)
	}
	return out
}

// documentedNullable are the required members (by path suffix) whose SDK doc comment allows null.
var documentedNullable = []string{
	".name", ".instructions", // "or null if it is unnamed" / nullable instructions
	".reasoning.effort", ".reasoning.summary", // "or `null` when …"
	"session.error", "session.usage", // AgentSession.error / usage (string|null, TokenUsage|null)
	"turn.started_at", "turn.completed_at", "turn.error", "turn.usage", "turn.subagent_id",
	"item.phase",                // user messages
	"item.error", "item.output", // function_call_output / mcp_call
	"event.usage",        // terminal turn events: null when unknown
	"event.output_index", // "when the item is agent output"
	// Saved tool members documented as "or null" / "if any" / "if provided".
	".allowed_tools", ".credential_id", ".allowed_domains", ".location",
}

func nullAllowed(path string) bool {
	for _, s := range documentedNullable {
		if strings.HasSuffix(path, s) {
			return true
		}
	}
	return false
}

// strictGaps drops the documented-nullable nulls.
func strictGaps(gaps []wireGap) []wireGap {
	var out []wireGap
	for _, g := range gaps {
		if g.Kind == "null" && nullAllowed(g.Path) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func checkSDK(t *testing.T, what string, root string, v any) {
	t.Helper()
	if gaps := strictGaps(sdkGaps(root, reflect.ValueOf(v))); len(gaps) > 0 {
		var s []string
		for _, g := range gaps {
			s = append(s, g.String())
		}
		t.Errorf("%s: required members the SDK cannot read:\n  %s", what, strings.Join(s, "\n  "))
	}
}

// eventVariant decodes an event's variant and checks it; the root path is "event" so nested members read
// "event.session.…", "event.turn.…", "event.item.…".
func checkEvent(t *testing.T, raw string) {
	t.Helper()
	var ev openai.AgentSessionEventUnion
	if err := json.Unmarshal([]byte(raw), &ev); err != nil {
		t.Errorf("event %s: decode: %v", raw, err)
		return
	}
	if ev.AsAny() == nil {
		t.Errorf("event type %q is unknown to the SDK: %s", ev.Type, raw)
		return
	}
	// Normalise paths so documentedNullable matches: event.session → session, event.turn → turn, event.item → item.
	gaps := sdkGaps("event", reflect.ValueOf(ev.AsAny()))
	var bad []string
	for _, g := range gaps {
		p := g.Path
		for _, pre := range []string{"event.session.", "event.turn.", "event.item."} {
			if strings.HasPrefix(p, pre) {
				p = strings.TrimPrefix(p, "event.")
			}
		}
		if g.Kind == "null" && nullAllowed(p) {
			continue
		}
		bad = append(bad, g.String())
	}
	if len(bad) > 0 {
		t.Errorf("%s event %s: required members the SDK cannot read:\n  %s\n  raw: %s", ev.Type, ev.EventID, strings.Join(bad, "\n  "), raw)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal([]byte(raw), &top)
	if _, ok := top["error"]; ok {
		t.Errorf("%s event has a top-level error key (fatal for the Go SDK): %s", ev.Type, raw)
	}
}

// TestWireToolTurn drives a full tool turn (call → requires_action → tool result → final answer) and checks
// every event and every resource read against the SDK's required members.
func TestWireToolTurn(t *testing.T) {
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "wire-review")
	checkSDK(t, "Agent (create)", "agent", *a)

	s := newSession(t, ctx, client, a.ID, "")
	checkSDK(t, "AgentSession (create)", "session", *s)
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("call the tool"))
	i := rec.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	ev := rec.Snapshot()[i]
	if len(ev.Session.RequiredActions) != 1 {
		t.Fatalf("required actions %+v", ev.Session.RequiredActions)
	}
	act := ev.Session.RequiredActions[0]
	postEvents(t, ctx, client, s.ID, toolResult(act.TurnID, act.CallID, `{"temp_c":21}`))
	rec.WaitFor(t, i, "idle", isType("agent.session.idle"))
	for _, e := range rec.Snapshot() {
		checkEvent(t, e.raw)
	}

	sess, err := client.Beta.Agents.Sessions.Get(ctx, s.ID)
	if err != nil {
		t.Fatal(describe(err))
	}
	checkSDK(t, "AgentSession (get)", "session", *sess)
	turn, err := client.Beta.Agents.Sessions.Turns.Get(ctx, s.ID, act.TurnID)
	if err != nil {
		t.Fatal(describe(err))
	}
	checkSDK(t, "Turn (get)", "turn", *turn)
	items, err := client.Beta.Agents.Sessions.Items.List(ctx, s.ID, openai.BetaAgentSessionItemListParams{Order: openai.BetaAgentSessionItemListParamsOrderAsc})
	if err != nil {
		t.Fatal(describe(err))
	}
	var types []string
	for _, it := range items.Data {
		types = append(types, it.Type)
		checkSDK(t, "item "+it.Type, "item", it)
	}
	if want := "message function_call function_call_output message"; strings.Join(types, " ") != want {
		t.Errorf("items %v, want %s", types, want)
	}
}

// TestWireInlineAgentIDs: a Session created with an inline agent (no agent_id) still has to give the SDK a
// string `agent.id` and Turn `agent_id` (both `api:"required"`, not documented as nullable).
func TestWireInlineAgentIDs(t *testing.T) {
	st, client, ctx := stackClient(t)
	r := raw(t, st, "POST", "/v1/agents/sessions", map[string]any{
		"agent":       map[string]any{"model": "scripted", "x_baton": scripted()},
		"environment": map[string]any{"type": "none"},
		"input":       "hello",
	})
	if r.Status/100 != 2 {
		t.Skipf("inline-agent session not accepted here (%d %s)", r.Status, r.Body)
	}
	var s openai.AgentSession
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	checkSDK(t, "AgentSession (inline agent)", "session", s)
	waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
	turns, err := client.Beta.Agents.Sessions.Turns.List(ctx, s.ID, openai.BetaAgentSessionTurnListParams{})
	if err != nil {
		t.Fatal(describe(err))
	}
	for _, tr := range turns.Data {
		checkSDK(t, "Turn (inline agent)", "turn", tr)
	}
}

// TestWireFailedAndCancelled checks the failed and cancelled terminal paths (turn.failed with turn.error,
// session.failed, turn.cancelled) and the items they leave behind.
func TestWireFailedAndCancelled(t *testing.T) {
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")

	s := newSession(t, ctx, client, a.ID, "")
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("please fail"))
	rec.WaitFor(t, 0, "session.failed", isType("agent.session.failed"))
	for _, e := range rec.Snapshot() {
		checkEvent(t, e.raw)
	}

	s2 := newSession(t, ctx, client, a.ID, "")
	rec2 := record(t, ctx, client, s2.ID)
	postEvents(t, ctx, client, s2.ID, userMessage("call the tool"))
	i := rec2.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	postEvents(t, ctx, client, s2.ID, cancelInput())
	rec2.WaitFor(t, i, "idle", isType("agent.session.idle"))
	for _, e := range rec2.Snapshot() {
		checkEvent(t, e.raw)
	}
	items, err := client.Beta.Agents.Sessions.Items.List(ctx, s2.ID, openai.BetaAgentSessionItemListParams{})
	if err != nil {
		t.Fatal(describe(err))
	}
	for _, it := range items.Data {
		checkSDK(t, "item "+it.Type, "item", it)
	}
}

// TestWireHelperFinalResult runs the SDK's Sessions.Stream helper with a tool handler and FinalResult.
func TestWireHelperFinalResult(t *testing.T) {
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "")
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	stream := client.Beta.Agents.Sessions.Stream(ctx, s.ID, openai.AgentSessionStreamParams{
		Input: "call the tool",
		ToolHandlers: map[string]openai.AgentToolHandler{"get_weather": func(_ context.Context, args map[string]any) (any, error) {
			return map[string]any{"temp_c": 21, "city": args["city"]}, nil
		}},
	})
	res, err := stream.FinalResult()
	if err != nil {
		t.Fatalf("FinalResult: %v", describe(err))
	}
	if !strings.HasPrefix(res.OutputText(), "done:") {
		t.Errorf("FinalResult text %q", res.OutputText())
	}
	checkSDK(t, "FinalResult turn", "turn", res.Turn)
	keys := []string{}
	for _, m := range res.Messages {
		keys = append(keys, m.ID)
	}
	sort.Strings(keys)
	_ = keys
}

// TestWireAgentTools saves an Agent with each tool family Baton admits and decodes it as the SDK's Agent
// (PersistedAgentToolUnion variants: function, mcp, web_search, tool_search, programmatic_tool_calling).
func TestWireAgentTools(t *testing.T) {
	st, _, _ := stackClient(t)
	tools := []map[string]any{
		{"type": "function", "name": "get_weather", "description": "d", "parameters": weatherParameters()},
		{"type": "mcp", "server_label": "docs", "transport": map[string]any{"type": "http", "server_url": "https://mcp.example.com/mcp"}},
		{"type": "web_search"},
		{"type": "tool_search"},
		{"type": "programmatic_tool_calling"},
	}
	for _, tool := range tools {
		r := raw(t, st, "POST", "/v1/agents", map[string]any{"model": "scripted", "tools": []any{tool}, "x_baton": scripted()})
		if r.Status/100 != 2 {
			t.Logf("%s tool not admitted here (%d): %s", tool["type"], r.Status, r.Body)
			continue
		}
		var a openai.Agent
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		checkSDK(t, fmt.Sprintf("Agent with %s tool", tool["type"]), "agent", a)
	}
}

// TestWireCreationStream: POST /agents/sessions with stream:true through Sessions.NewStreaming; the first
// event must be agent.session.created and every event must decode.
func TestWireCreationStream(t *testing.T) {
	_, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	stream := client.Beta.Agents.Sessions.NewStreaming(ctx, openai.BetaAgentSessionNewParams{
		AgentID: openai.String(a.ID), Environment: noneEnvironment,
		Input: openai.BetaAgentSessionNewParamsInputUnion{OfString: openai.String("hello")},
	})
	defer stream.Close()
	var types []string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		checkEvent(t, ev.RawJSON())
		if ev.Type == "agent.session.idle" {
			break
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("creation stream: %v", describe(err))
	}
	if len(types) == 0 || types[0] != "agent.session.created" {
		t.Errorf("creation stream events %v, want agent.session.created first", types)
	}
}

// TestWireCancelMidMessage cancels a turn while its assistant message is streaming: the message must not stay
// `in_progress` in the item history (docs/agents-api.md §2.4: cancelled/failed Turns mark unfinished Items
// `incomplete`) and keep the text streamed so far. The model streams slowly (chunk_delay_ms), so the cancel meets a
// turn that writes the Session with every flush: the cancel must win, never answer 500 (it fences the turn off).
func TestWireCancelMidMessage(t *testing.T) {
	st, client, ctx := stackClient(t)
	long := strings.Repeat("slow text ", 300)
	r := raw(t, st, "POST", "/v1/agents", map[string]any{"model": "scripted", "x_baton": map[string]any{
		"model_provider": map[string]any{"protocol": "scripted"},
		"script": map[string]any{"chunk_size": 8, "rules": []any{map[string]any{"when": map[string]any{"user_contains": "long"}, "reply": long,
			"chunk_delay_ms": 5}}},
	}})
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	agentID := decodeJSON[struct{ ID string }](t, r.Body).ID
	s := newSession(t, ctx, client, agentID, "")
	rec := record(t, ctx, client, s.ID)
	postEvents(t, ctx, client, s.ID, userMessage("long please"))
	rec.WaitFor(t, 0, "first delta", isType("agent.session.turn.output_text.delta"))
	postEvents(t, ctx, client, s.ID, cancelInput())
	rec.WaitFor(t, 0, "turn.cancelled", isType("agent.session.turn.cancelled"))
	waitSession(t, ctx, client, s.ID, "idle", hasStatus("idle"))
	time.Sleep(500 * time.Millisecond)
	items, err := client.Beta.Agents.Sessions.Items.List(ctx, s.ID, openai.BetaAgentSessionItemListParams{})
	if err != nil {
		t.Fatal(describe(err))
	}
	var streamed strings.Builder
	for _, ev := range rec.Snapshot() {
		if ev.Type == "agent.session.turn.output_text.delta" {
			var d struct{ Delta string }
			_ = json.Unmarshal([]byte(ev.raw), &d)
			streamed.WriteString(d.Delta)
		}
		if ev.Type == "agent.session.turn.completed" {
			t.Errorf("the cancelled turn completed: %s", ev.raw)
		}
	}
	found := false
	for _, it := range items.Data {
		if it.Type != "message" || it.Role != "assistant" {
			continue
		}
		found = true
		if it.Status != "incomplete" {
			t.Errorf("cancelled turn left assistant message %s in status %s (want incomplete)", it.ID, it.Status)
		}
		// The item keeps exactly the text the stream delivered: a non-empty proper prefix of the answer.
		var msg struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal([]byte(it.RawJSON()), &msg); err != nil {
			t.Fatalf("decode item %s: %v", it.ID, err)
		}
		text := ""
		for _, c := range msg.Content {
			text += c.Text
		}
		if text == "" || text != streamed.String() || !strings.HasPrefix(long, text) || len(text) >= len(long) {
			t.Errorf("cancelled message text (%d bytes) = %.60q…, streamed deltas (%d bytes) = %.60q…; want the same non-empty proper prefix of the answer",
				len(text), text, streamed.Len(), streamed.String())
		}
	}
	if !found {
		t.Errorf("no assistant message in the cancelled turn's items")
	}
}

// TestWireStreamingCoalescesDeltas: text deltas are written by size and time (engine.DeltaFlushBytes,
// engine.DeltaFlushInterval), so a long answer streamed in tiny chunks costs about one event per KiB, while a slow
// model's text still arrives progressively, and the deltas always add up to the answer.
func TestWireStreamingCoalescesDeltas(t *testing.T) {
	st, client, ctx := stackClient(t)
	long := strings.Repeat("0123456789abcdef", 4096) // 64 KiB in 8192 chunks of 8 runes
	slow := "one two three four five six "           // 4 chunks, 80 ms apart
	r := raw(t, st, "POST", "/v1/agents", map[string]any{"model": "scripted", "x_baton": map[string]any{
		"model_provider": map[string]any{"protocol": "scripted"},
		"script": map[string]any{"chunk_size": 8, "rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "long"}, "reply": long},
			map[string]any{"when": map[string]any{"user_contains": "slow"}, "reply": slow, "chunk_delay_ms": 80},
		}},
	}})
	if r.Status/100 != 2 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	agentID := decodeJSON[struct{ ID string }](t, r.Body).ID
	for _, c := range []struct {
		input, want string
		min, max    int
	}{
		{"long please", long, 1, 8192 / 16}, // 8192 chunks must not become 8192 events (64 at 1 KiB each)
		{"slow please", slow, 2, 4},         // four chunks 80 ms apart: the text is not held back to the end
	} {
		s := newSession(t, ctx, client, agentID, "")
		rec := record(t, ctx, client, s.ID)
		postEvents(t, ctx, client, s.ID, userMessage(c.input))
		rec.WaitFor(t, 0, "turn.completed", isType("agent.session.turn.completed"))
		var streamed strings.Builder
		n := 0
		for _, ev := range rec.Snapshot() {
			if ev.Type == "agent.session.turn.output_text.delta" {
				var d struct{ Delta string }
				_ = json.Unmarshal([]byte(ev.raw), &d)
				streamed.WriteString(d.Delta)
				n++
			}
		}
		if streamed.String() != c.want {
			t.Errorf("%s: the deltas add up to %d bytes, want the %d-byte answer", c.input, streamed.Len(), len(c.want))
		}
		if n < c.min || n > c.max {
			t.Errorf("%s: %d output_text.delta events, want %d..%d", c.input, n, c.min, c.max)
		}
	}
}
