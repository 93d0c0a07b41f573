package translate_test

import (
	"testing"

	"github.com/baton-run/baton/shared/agentcore/translate"
)

func TestToAgentCarriesTheSamplingParameters(t *testing.T) {
	t.Parallel()
	cfg, err := translate.ToAgent(decode(t, `{"model":{"openAiModelConfig":{"modelId":"gpt-x","apiKeyArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/k","temperature":0.3,"topP":0.9}},"maxIterations":4,"timeoutSeconds":30}`))
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Controls
	if c.Temperature == nil || *c.Temperature != 0.3 || c.TopP == nil || *c.TopP != 0.9 {
		t.Errorf("temperature, topP = %v, %v; want 0.3, 0.9", c.Temperature, c.TopP)
	}
	if c.MaxIterations != 4 || c.TimeoutSeconds != 30 || c.MaxTokens != 0 {
		t.Errorf("limits = %+v", c)
	}
	cfg, err = translate.ToAgent(decode(t, `{"model":{"bedrockModelConfig":{"modelId":"m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Controls.Temperature != nil || cfg.Controls.TopP != nil {
		t.Errorf("absent sampling parameters must stay unset (the provider's default), got %+v", cfg.Controls)
	}
}
