package frames_test

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/baton-run/baton/shared/agentcore/frames"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestFramesMatchTheGoldenBytes pins the exact bytes of one paused assistant message (docs/agentcore.md
// §3.5), and proves they decode back to the same headers and payloads.
func TestFramesMatchTheGoldenBytes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	flushes := 0
	w := frames.NewWriter(&buf, func() error { flushes++; return nil })
	text := "Let me check."
	steps := []struct {
		typ string
		v   any
	}{
		{frames.TypeMessageStart, frames.MessageStart{Role: "assistant"}},
		{frames.TypeContentBlockDelta, frames.ContentBlockDelta{ContentBlockIndex: 0, Delta: frames.Delta{Text: &text}}},
		{frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: 0}},
		{frames.TypeContentBlockStart, frames.ContentBlockStart{ContentBlockIndex: 1, Start: frames.BlockStart{ToolUse: &frames.ToolUseStart{ToolUseID: "call_1", Name: "get_weather", Type: frames.ToolUseInline}}}},
		{frames.TypeContentBlockDelta, frames.ContentBlockDelta{ContentBlockIndex: 1, Delta: frames.Delta{ToolUse: &frames.ToolUseDelta{Input: `{"city":"Paris"}`}}}},
		{frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: 1}},
		{frames.TypeMessageStop, frames.MessageStop{StopReason: frames.StopToolUse}},
		{frames.TypeMetadata, frames.Metadata{Usage: frames.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}, Metrics: frames.Metrics{LatencyMs: 42}}},
	}
	for _, s := range steps {
		if err := w.Event(s.typ, s.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Exception(frames.ExceptionInternalServer, "boom"); err != nil {
		t.Fatal(err)
	}
	if flushes != len(steps)+1 {
		t.Errorf("flushed %d times, want once per frame (%d)", flushes, len(steps)+1)
	}
	golden := filepath.Join("testdata", "paused_message.hex")
	got := hex.Dump(buf.Bytes())
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("frames differ from %s (run with -update after a deliberate change)", golden)
	}

	dec := eventstream.NewDecoder()
	r := bytes.NewReader(buf.Bytes())
	wantPayloads := []string{
		`{"role":"assistant"}`,
		`{"contentBlockIndex":0,"delta":{"text":"Let me check."}}`,
		`{"contentBlockIndex":0}`,
		`{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"call_1","name":"get_weather","type":"tool_use"}}}`,
		`{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":\"Paris\"}"}}}`,
		`{"contentBlockIndex":1}`,
		`{"stopReason":"tool_use"}`,
		`{"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":15},"metrics":{"latencyMs":42}}`,
		`{"message":"boom"}`,
	}
	for i, p := range wantPayloads {
		m, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		mt, typeHeader, wantType := "event", ":event-type", ""
		if i < len(steps) {
			wantType = steps[i].typ
		} else {
			mt, typeHeader, wantType = "exception", ":exception-type", frames.ExceptionInternalServer
		}
		if v := m.Headers.Get(":message-type"); v == nil || v.String() != mt {
			t.Errorf("frame %d :message-type = %v, want %s", i, v, mt)
		}
		if v := m.Headers.Get(typeHeader); v == nil || v.String() != wantType {
			t.Errorf("frame %d %s = %v, want %s", i, typeHeader, v, wantType)
		}
		if string(m.Payload) != p {
			t.Errorf("frame %d payload = %s, want %s", i, m.Payload, p)
		}
	}
	if r.Len() != 0 {
		t.Errorf("%d trailing bytes", r.Len())
	}
}
