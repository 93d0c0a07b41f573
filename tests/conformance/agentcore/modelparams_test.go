package agentcore_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// TestModelParametersBatonCannotPassAreRejected: topK and provider additionalParams cannot reach a model provider
// through Baton, so CreateHarness and UpdateHarness answer ValidationException naming the member (never a silent
// drop), and nothing is written. Not parallel: it needs a quiet table.
func TestModelParametersBatonCannotPassAreRejected(t *testing.T) {
	p := newProject(t, "modelparams")
	c, ctx := p.client, p.ctx
	existing := p.createHarness(t, "params", "x", nil)
	before := stack.Snapshot(t, p.st)

	const keyARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/g"
	gemini := &types.HarnessModelConfigurationMemberGeminiModelConfig{Value: types.HarnessGeminiModelConfig{
		ModelId: aws.String("gemini-2.5-pro"), ApiKeyArn: aws.String(keyARN), TopK: aws.Int32(40)}}
	openAI := &types.HarnessModelConfigurationMemberOpenAiModelConfig{Value: types.HarnessOpenAiModelConfig{
		ModelId: aws.String("gpt-x"), ApiKeyArn: aws.String(keyARN),
		AdditionalParams: document.NewLazyDocument(map[string]any{"reasoning": map[string]any{"effort": "low"}})}}
	bedrock := &types.HarnessModelConfigurationMemberBedrockModelConfig{Value: types.HarnessBedrockModelConfig{
		ModelId: aws.String("us.anthropic.claude-sonnet-4-5"), AdditionalParams: document.NewLazyDocument(map[string]any{"top_k": 5})}}

	_, err := c.CreateHarness(ctx, create(func(in *bac.CreateHarnessInput) { in.Model = gemini }))
	wantField(t, "create with topK", err, "model.geminiModelConfig.topK")
	_, err = c.CreateHarness(ctx, create(func(in *bac.CreateHarnessInput) { in.Model = openAI }))
	wantField(t, "create with OpenAI additionalParams", err, "model.openAiModelConfig.additionalParams")
	_, err = c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, Model: bedrock})
	wantField(t, "update with Bedrock additionalParams", err, "model.bedrockModelConfig.additionalParams")

	stack.AssertUnchanged(t, before, stack.Snapshot(t, p.st))

	// What Baton passes on is accepted: temperature, topP and maxTokens.
	if _, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, Model: &types.HarnessModelConfigurationMemberBedrockModelConfig{
		Value: types.HarnessBedrockModelConfig{ModelId: aws.String("us.anthropic.claude-sonnet-4-5"), Temperature: aws.Float32(0.5), TopP: aws.Float32(0.9), MaxTokens: aws.Int32(256)}}}); err != nil {
		t.Fatalf("UpdateHarness with temperature, topP, maxTokens: %v", err)
	}
}
