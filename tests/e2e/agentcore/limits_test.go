package agentcore_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/document"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
)

// loopingModel is a scripted-model override that never finishes on its own: every response streams a
// commentary and calls a tool nobody offered, which the harness answers with an error result, so the loop goes
// on until a limit ends it (docs/agentcore.md §3.5).
func loopingModel() dptypes.HarnessModelConfiguration {
	loop := map[string]any{"commentary": "Step.", "calls": []any{map[string]any{"name": "lookup", "arguments": map[string]any{}}}}
	withWhen := func(when map[string]any) map[string]any {
		r := map[string]any{"when": when}
		for k, v := range loop {
			r[k] = v
		}
		return r
	}
	script := map[string]any{"rules": []any{withWhen(map[string]any{"user_contains": "loop"}), withWhen(map[string]any{"after_tool": "*"})}}
	return &dptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: dptypes.HarnessBedrockModelConfig{
		ModelId: aws.String("baton.scripted"), AdditionalParams: dpdoc.NewLazyDocument(map[string]any{"script": script})}}
}

func TestMaxIterationsEndsTheTurnWithItsStopReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "maxiter")
	sid := newSessionID(t)
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("loop forever")},
		Model: loopingModel(), MaxIterations: aws.Int32(3)})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	// Three model calls, each one commentary message, then the limit.
	want := "messageStart:assistant text stop:0 text stop:1 text stop:2 messageStop:max_iterations_exceeded metadata"
	if got := shape(frames); got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
	if got := texts(frames); got != strings.Repeat("Step.", 3) {
		t.Errorf("text = %q", got)
	}
	// The limit was this invocation's only: the next invocation on the session runs the saved harness and ends
	// on its own.
	frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello again")}})
	if err != nil {
		t.Fatalf("second InvokeHarness: %v", err)
	}
	if got := lastStop(frames); got != "end_turn" {
		t.Fatalf("second invocation stopped with %q, want end_turn; frames %s", got, shape(frames))
	}
}

func TestTimeoutEndsTheTurnWithItsStopReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "timeout")
	sid := newSessionID(t)
	// The saved script answers "slowly" only after 8 s; the invocation allows 1 s.
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("answer slowly")},
		TimeoutSeconds: aws.Int32(1)})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	if got, want := shape(frames), "messageStart:assistant messageStop:timeout_exceeded metadata"; got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
	if got := texts(frames); got != "" {
		t.Errorf("text = %q, want none (the model was cut before its first part)", got)
	}
}

func TestAnInvocationWithinItsLimitsEndsOnItsOwn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "withinlimits")
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello there")},
		MaxIterations: aws.Int32(1), TimeoutSeconds: aws.Int32(60), MaxTokens: aws.Int32(1000)})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	if got, want := shape(frames), "messageStart:assistant text stop:0 messageStop:end_turn metadata"; got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
}

func TestAModelOverrideWithTopKIsRejectedBeforeAnythingChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "topk")
	gemini := &dptypes.HarnessModelConfigurationMemberGeminiModelConfig{Value: dptypes.HarnessGeminiModelConfig{ModelId: aws.String("gemini-2.5-pro"),
		ApiKeyArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/g"), TopK: aws.Int32(40)}}
	_, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello")}, Model: gemini})
	wantValidation(t, "invoke with a topK override", err, "topK")
	api := f.agentsKey(t)
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions", nil, nil)
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), `"id"`) {
		t.Fatalf("sessions after the rejected invocation: %d %s; want none", r.Status, r.Body)
	}
}

func TestMaxTokensEndsALoopWithMaxOutputTokensExceeded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "maxtokens")
	// Each looping response is a few output tokens (docs/scripted-model.md counts words); 5 allow two responses.
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("loop forever")},
		Model: loopingModel(), MaxTokens: aws.Int32(5)})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	if got := lastStop(frames); got != "max_output_tokens_exceeded" {
		t.Fatalf("stopReason %q, want max_output_tokens_exceeded; frames %s", got, shape(frames))
	}
	md := frames[len(frames)-1].Value.(dptypes.HarnessMetadataEvent)
	if md.Usage == nil || aws.ToInt32(md.Usage.OutputTokens) < 5 {
		t.Fatalf("metadata usage %+v: the turn stopped before its output reached maxTokens", md.Usage)
	}
	if got := strings.Count(texts(frames), "Step."); got < 1 || got > 5 {
		t.Fatalf("%d model responses; want the loop cut after a few", got)
	}
}
