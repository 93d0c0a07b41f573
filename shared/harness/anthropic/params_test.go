package anthropic_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
)

// TestStreamSendsTheLimitsAndSamplingParameters checks max_tokens, temperature and top_p on the wire and that a
// response cut at the requested limit ends with a max_tokens stop part (its cut tool_use block dropped).
func TestStreamSendsTheLimitsAndSamplingParameters(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.events = []sse{messageStart, textStart(0), textDelta(0, "Trunc"), blockStop(0), toolStart(1, "toolu_1", "get_weather"),
		jsonDelta(1, `{"ci`), messageDelta("max_tokens"), messageStop}
	got, err := modeltest.Collect(t, f.model(t), modeltest.Limited(userRequest("Hello")))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []harness.Part{text("Trunc"), usage(30, 15), modeltest.StopMaxTokens}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range map[string]any{"max_tokens": 9.0, "temperature": 0.25, "top_p": 0.5} {
		if diff := cmp.Diff(v, f.body[k]); diff != "" {
			t.Errorf("request %s (-want +got):\n%s", k, diff)
		}
	}
}
