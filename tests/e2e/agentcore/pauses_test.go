package agentcore_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// mcpToolUses returns the names of the harness-run (mcp_tool_use) toolUse blocks of the frames, in order.
func mcpToolUses(frames []frame) []string {
	var out []string
	for _, fr := range frames {
		if v, ok := fr.Value.(dptypes.HarnessContentBlockStartEvent); ok {
			if s, ok := v.Start.(*dptypes.HarnessContentBlockStartMemberToolUse); ok && s.Value.Type == dptypes.HarnessToolUseTypeMcpToolUse {
				out = append(out, aws.ToString(s.Value.ServerName)+"/"+aws.ToString(s.Value.Name))
			}
		}
	}
	return out
}

// inlineToolUses returns the handed-over (not harness-run) toolUse blocks of the frames.
func inlineToolUses(frames []frame) []toolUse {
	mcp := map[string]bool{}
	for _, fr := range frames {
		if v, ok := fr.Value.(dptypes.HarnessContentBlockStartEvent); ok {
			if s, ok := v.Start.(*dptypes.HarnessContentBlockStartMemberToolUse); ok && s.Value.Type == dptypes.HarnessToolUseTypeMcpToolUse {
				mcp[aws.ToString(s.Value.ToolUseId)] = true
			}
		}
	}
	var out []toolUse
	for _, u := range toolUses(frames) {
		if !mcp[u.ID] {
			out = append(out, u)
		}
	}
	return out
}

// cityOf is the "city" argument of a handed-over get_weather call.
func cityOf(t *testing.T, u toolUse) string {
	t.Helper()
	var in struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(u.Input), &in); err != nil {
		t.Fatalf("toolUse %s input %q: %v", u.ID, u.Input, err)
	}
	return in.City
}

// sessionRecords is the part of the table snapshot that belongs to one Session (its records and those naming it).
func sessionRecords(t *testing.T, f *fixture, session string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range stack.Snapshot(t, f.st) {
		if strings.Contains(k, session) || strings.Contains(v, session) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		t.Fatalf("no record of session %s in the table", session)
	}
	return out
}

// TestAnMCPToolBetweenTwoInlineCallsGivesTwoPauses: one model response calls [inline A, MCP echo, inline B]
// (server-everything). The first invoke pauses on A alone; the follow-up with A's result runs echo in the harness
// and pauses on B; the follow-up with B's result finishes, and the model saw the three results in model order.
func TestAnMCPToolBetweenTwoInlineCallsGivesTwoPauses(t *testing.T) {
	t.Parallel()
	url := stack.Everything(t)
	f := newFixture(t, "twopauses", weatherTool(), cptypes.HarnessTool{Type: cptypes.HarnessToolTypeRemoteMcp, Name: aws.String("everything"),
		Config: &cptypes.HarnessToolConfigurationMemberRemoteMcp{Value: cptypes.HarnessRemoteMcpConfig{Url: aws.String(url)}}})
	sid := newSessionID(t)

	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("weather around an echo")}})
	if err != nil {
		t.Fatalf("first invoke: %v", err)
	}
	first := inlineToolUses(frames)
	if len(first) != 1 || first[0].Name != "get_weather" || cityOf(t, first[0]) != "Paris" || lastStop(frames) != "tool_use" {
		t.Fatalf("first pause: handed over %+v, stop %q; want get_weather(Paris) alone ending tool_use (%s)", first, lastStop(frames), shape(frames))
	}
	if m := mcpToolUses(frames); len(m) != 0 {
		t.Fatalf("echo ran before A was answered: %v (%s)", m, shape(frames))
	}

	frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(first[0].ID, "sunny")}})
	if err != nil {
		t.Fatalf("follow-up with A's result: %v", err)
	}
	if m := mcpToolUses(frames); len(m) != 1 || m[0] != "everything/echo" {
		t.Fatalf("second stream's harness-run tools %v; want everything/echo once (%s)", m, shape(frames))
	}
	second := inlineToolUses(frames)
	if len(second) != 1 || second[0].Name != "get_weather" || cityOf(t, second[0]) != "Rome" || second[0].ID == first[0].ID || lastStop(frames) != "tool_use" {
		t.Fatalf("second pause: handed over %+v, stop %q; want get_weather(Rome) alone ending tool_use (%s)", second, lastStop(frames), shape(frames))
	}

	// A's result again is stale now: the pause is B's, and the rejected follow-up writes nothing of this Session.
	session := onlySession(t, f.agentsKey(t))
	waitParked(t, f.st, session)
	before := sessionRecords(t, f, session)
	_, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(first[0].ID, "sunny")}})
	wantValidation(t, "A's result at B's pause", err, "does not answer")
	stack.AssertUnchanged(t, before, sessionRecords(t, f, session))

	frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(second[0].ID, "rainy")}})
	if err != nil {
		t.Fatalf("follow-up with B's result: %v", err)
	}
	if got, want := texts(frames), "Weather: sunny; Echo: between; rainy;"; got != want || lastStop(frames) != "end_turn" {
		t.Fatalf("final answer %q ending %q; want %q ending end_turn (%s)", got, lastStop(frames), want, shape(frames))
	}
	if u := toolUses(frames); len(u) != 0 {
		t.Fatalf("the last stream handed over or ran tools again: %+v", u)
	}
}
