package bedrock_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
)

// TestStreamSendsTheLimitsAndSamplingParameters checks inferenceConfig on the wire and that a response cut at
// the requested output limit ends with a max_tokens stop part (its cut toolUse block dropped) instead of failing.
func TestStreamSendsTheLimitsAndSamplingParameters(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.frames = []frame{ev("messageStart", start), textDelta(0, "Trunc"), blockStop(0),
		toolStart(1, "tu_1", "get_weather"), toolDelta(1, `{"ci`), stop("max_tokens"), ev("metadata", metadata)}
	got, err := modeltest.Collect(t, f.model(t), modeltest.Limited(userRequest("Hello")))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []harness.Part{text("Trunc"), usage(21, 9), modeltest.StopMaxTokens}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if diff := cmp.Diff(map[string]any{"maxTokens": 9.0, "temperature": 0.25, "topP": 0.5}, f.body["inferenceConfig"]); diff != "" {
		t.Errorf("inferenceConfig (-want +got):\n%s", diff)
	}
}

func TestStreamWithoutParametersSendsNoInferenceConfig(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.frames = []frame{ev("messageStart", start), textDelta(0, "Hi"), blockStop(0), stop("end_turn"), ev("metadata", metadata)}
	if _, err := modeltest.Collect(t, f.model(t), userRequest("Hello")); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.body["inferenceConfig"]; ok {
		t.Errorf("inferenceConfig = %v, want absent", v)
	}
}
