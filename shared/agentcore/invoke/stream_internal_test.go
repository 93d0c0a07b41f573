package invoke

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/baton-run/baton/shared/agentcore/apierror"
	"github.com/baton-run/baton/shared/agentcore/frames"
	"github.com/baton-run/baton/shared/session"
)

func ev(typ, turnID string, data map[string]any) session.Event {
	b, _ := json.Marshal(data)
	return session.Event{Type: typ, TurnID: turnID, Data: b}
}

func item(m map[string]any) map[string]any { return map[string]any{"item": m} }

// decodeFrames renders frames as "<type>[:<payload>]" tokens.
func decodeFrames(t *testing.T, b []byte) []string {
	t.Helper()
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(b)
	var out []string
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		typ := m.Headers.Get(":event-type")
		if typ == nil {
			typ = m.Headers.Get(":exception-type")
		}
		out = append(out, typ.String()+" "+string(m.Payload))
	}
	return out
}

// TestTranslatorStreamsEachModelCallAsItsOwnMessage feeds the events of a turn that streamed text, ran an MCP tool,
// answered, and completed; events of another turn and the turn's own user input are skipped.
func TestTranslatorStreamsEachModelCallAsItsOwnMessage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tr := &translator{out: frames.NewWriter(&buf, nil), blocks: map[string]int{}}
	events := []session.Event{
		ev(session.EventTurnCreated, "turn_1", nil),
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "msg_1", "type": "message", "role": "user"})),
		ev(session.EventItemAdded, "turn_other", item(map[string]any{"id": "msg_x", "type": "message", "role": "assistant"})),
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "msg_2", "type": "message", "role": "assistant"})),
		ev(session.EventOutputTextDelta, "turn_1", map[string]any{"item_id": "msg_2", "delta": "Checking"}),
		ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "status": "completed"})),
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "mcp_3", "type": "mcp_call", "name": "get-sum", "server_label": "everything", "arguments": map[string]any{"a": 1}})),
		ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "mcp_3", "type": "mcp_call", "status": "completed", "output": "3"})),
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "msg_4", "type": "message", "role": "assistant"})),
		ev(session.EventOutputTextDelta, "turn_1", map[string]any{"item_id": "msg_4", "delta": "It is 3."}),
		ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "msg_4", "type": "message", "role": "assistant", "status": "completed"})),
		ev(session.EventSessionIdle, "", map[string]any{}),
		ev(session.EventTurnCompleted, "turn_1", map[string]any{"turn": map[string]any{"id": "turn_1"}}),
	}
	for _, e := range events {
		if tr.done {
			t.Fatal("the translation ended early")
		}
		if err := tr.handle(e); err != nil {
			t.Fatal(err)
		}
	}
	if !tr.done || tr.turnID != "turn_1" {
		t.Fatalf("done=%v turn=%q", tr.done, tr.turnID)
	}
	want := []string{
		`messageStart {"role":"assistant"}`,
		`contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"Checking"}}`,
		`contentBlockStop {"contentBlockIndex":0}`,
		`contentBlockStart {"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"mcp_3","name":"get-sum","type":"mcp_tool_use","serverName":"everything"}}}`,
		`contentBlockDelta {"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":1}"}}}`,
		`contentBlockStop {"contentBlockIndex":1}`,
		`messageStop {"stopReason":"tool_use"}`,
		`messageStart {"role":"user"}`,
		`contentBlockStart {"contentBlockIndex":0,"start":{"toolResult":{"toolUseId":"mcp_3","status":"success"}}}`,
		`contentBlockDelta {"contentBlockIndex":0,"delta":{"toolResult":[{"text":"3"}]}}`,
		`contentBlockStop {"contentBlockIndex":0}`,
		`messageStop {"stopReason":"tool_result"}`,
		`messageStart {"role":"assistant"}`,
		`contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"It is 3."}}`,
		`contentBlockStop {"contentBlockIndex":0}`,
		`messageStop {"stopReason":"end_turn"}`,
	}
	if got := decodeFrames(t, buf.Bytes()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTranslatorEndsAFailedTurnWithAnException checks that a failure after output is an in-stream exception.
func TestTranslatorEndsAFailedTurnWithAnException(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tr := &translator{out: frames.NewWriter(&buf, nil), blocks: map[string]int{}, turnID: "turn_1"}
	for _, e := range []session.Event{
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "msg_2", "type": "message", "role": "assistant"})),
		ev(session.EventTurnFailed, "turn_1", map[string]any{"turn": map[string]any{"id": "turn_1", "error": map[string]any{"code": "internal_error", "message": "The execution could not complete."}}}),
	} {
		if err := tr.handle(e); err != nil {
			t.Fatal(err)
		}
	}
	got := decodeFrames(t, buf.Bytes())
	if !tr.done || tr.failed == "" || got[len(got)-1] != `internalServerException {"message":"The execution could not complete."}` {
		t.Errorf("frames %v", got)
	}
}

// FuzzParseBody: any body is either a validated request or a ValidationException, never a panic.
func FuzzParseBody(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`,
		`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"a","content":[{"json":{"x":1}}],"status":"error"}}]}],"tools":[]}`,
		`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":{}}}]}],"maxIterations":0}`,
		`[]`, `{"messages":{}}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseBody(body)
		if err != nil {
			if toAPIError(err).Type != apierror.Validation {
				t.Fatalf("%s: %v is not a ValidationException", body, err)
			}
			return
		}
		if len(p.messages) == 0 {
			t.Fatalf("%s: admitted without messages", body)
		}
	})
}

// TestTranslatorStreamsBuiltinToolCallsAsServerToolUse feeds two harness-run tool calls (command_execution items),
// one completed and one failed: each is a server_tool_use block with its original name and input, and its observed
// output is the toolResult (status error for the failed one).
func TestTranslatorStreamsBuiltinToolCallsAsServerToolUse(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tr := &translator{out: frames.NewWriter(&buf, nil), blocks: map[string]int{}, turnID: "turn_1"}
	for _, e := range []session.Event{
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "cmd_2", "type": "command_execution", "name": "shell", "arguments": map[string]any{"command": "cat a.txt"}, "output": "", "status": "in_progress"})),
		ev(session.EventItemAdded, "turn_1", item(map[string]any{"id": "cmd_3", "type": "command_execution", "name": "file_operations", "arguments": map[string]any{"command": "view", "path": "/etc"}, "output": "", "status": "in_progress"})),
		ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "cmd_2", "type": "command_execution", "status": "completed", "output": "hello\n"})),
		ev(session.EventItemDone, "turn_1", item(map[string]any{"id": "cmd_3", "type": "command_execution", "status": "failed", "output": "Error: /etc is outside the workspace"})),
		ev(session.EventTurnCompleted, "turn_1", map[string]any{"turn": map[string]any{"id": "turn_1"}}),
	} {
		if err := tr.handle(e); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`messageStart {"role":"assistant"}`,
		`contentBlockStart {"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"cmd_2","name":"shell","type":"server_tool_use"}}}`,
		`contentBlockDelta {"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"command\":\"cat a.txt\"}"}}}`,
		`contentBlockStop {"contentBlockIndex":0}`,
		`contentBlockStart {"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"cmd_3","name":"file_operations","type":"server_tool_use"}}}`,
		`contentBlockDelta {"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"command\":\"view\",\"path\":\"/etc\"}"}}}`,
		`contentBlockStop {"contentBlockIndex":1}`,
		`messageStop {"stopReason":"tool_use"}`,
		`messageStart {"role":"user"}`,
		`contentBlockStart {"contentBlockIndex":0,"start":{"toolResult":{"toolUseId":"cmd_2","status":"success"}}}`,
		`contentBlockDelta {"contentBlockIndex":0,"delta":{"toolResult":[{"text":"hello\n"}]}}`,
		`contentBlockStop {"contentBlockIndex":0}`,
		`contentBlockStart {"contentBlockIndex":1,"start":{"toolResult":{"toolUseId":"cmd_3","status":"error"}}}`,
		`contentBlockDelta {"contentBlockIndex":1,"delta":{"toolResult":[{"text":"Error: /etc is outside the workspace"}]}}`,
		`contentBlockStop {"contentBlockIndex":1}`,
		`messageStop {"stopReason":"tool_result"}`,
		`messageStart {"role":"assistant"}`,
		`messageStop {"stopReason":"end_turn"}`,
	}
	if got := decodeFrames(t, buf.Bytes()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
