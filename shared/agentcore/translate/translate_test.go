package translate_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/translate"
)

func decode(t *testing.T, s string) agentcore.HarnessConfig {
	t.Helper()
	h, err := agentcore.DecodeConfig([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestToAgentTranslatesEveryToolTypeInOrder(t *testing.T) {
	t.Parallel()
	h := decode(t, `{"model":{"bedrockModelConfig":{"modelId":"us.anthropic.claude"}},
	 "systemPrompt":[{"text":"Be brief."},{"text":"Be kind."}],
	 "tools":[
	  {"type":"inline_function","name":"get_weather","config":{"inlineFunction":{"description":"Weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}}},
	  {"type":"remote_mcp","name":"exa","config":{"remoteMcp":{"url":"https://mcp.example.com/mcp","headers":{"x-api-key":"${arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/k}"}}}},
	  {"type":"agentcore_gateway","name":"gw","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g","outboundAuth":{"awsIam":{}}}}},
	  {"type":"agentcore_browser","name":"browser"},
	  {"type":"agentcore_code_interpreter","name":"code_interpreter","config":{"agentCoreCodeInterpreter":{"codeInterpreterArn":"arn:ci"}}}
	 ],
	 "allowedTools":["get_weather","@exa/*"],"maxIterations":7,"maxTokens":900,"timeoutSeconds":60}`)
	cfg, err := translate.ToAgent(h)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, raw := range cfg.Tools {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	var want []any
	if err := json.Unmarshal([]byte(`[
	 {"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
	 {"type":"mcp","server_label":"exa","transport":{"type":"http","server_url":"https://mcp.example.com/mcp"},"allowed_tools":null,"required":false,
	  "headers":{"x-api-key":"${arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/k}"}},
	 {"type":"agentcore_gateway","name":"gw","gateway_arn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g","outbound_auth":{"awsIam":{}}},
	 {"type":"agentcore_browser","name":"browser"},
	 {"type":"agentcore_code_interpreter","name":"code_interpreter","code_interpreter_arn":"arn:ci"}]`), &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if cfg.Instructions == nil || *cfg.Instructions != "Be brief.\n\nBe kind." {
		t.Errorf("instructions = %v", cfg.Instructions)
	}
	wantCtl := &agent.Controls{AllowedTools: []string{"get_weather", "@exa/*"}, BuiltinTools: true, MaxIterations: 7, MaxTokens: 900, TimeoutSeconds: 60}
	if d := cmp.Diff(wantCtl, cfg.Controls); d != "" {
		t.Errorf("controls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(&agent.ModelProvider{Protocol: "bedrock_converse", Model: "us.anthropic.claude"}, cfg.XBaton.ModelProvider); d != "" {
		t.Errorf("provider (-want +got):\n%s", d)
	}
	// The function and MCP declarations are what the harness reads.
	if fs := cfg.Functions(); len(fs) != 1 || fs[0].Name != "get_weather" {
		t.Errorf("Functions() = %+v", fs)
	}
	if ms := cfg.MCPServers(); len(ms) != 1 || ms[0].ServerLabel != "exa" || ms[0].Headers["x-api-key"] == "" {
		t.Errorf("MCPServers() = %+v", ms)
	}
}

func TestToAgentMapsEachModelConfiguration(t *testing.T) {
	t.Parallel()
	const key = "arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/openai"
	cases := []struct {
		name  string
		model string
		want  agent.ModelProvider
	}{
		{"bedrock runs converse", `{"bedrockModelConfig":{"modelId":"m1"}}`, agent.ModelProvider{Protocol: "bedrock_converse", Model: "m1"}},
		{"openai defaults to chat completions", `{"openAiModelConfig":{"modelId":"gpt","apiKeyArn":"` + key + `"}}`,
			agent.ModelProvider{Protocol: "openai_chat", Model: "gpt", APIKey: "${" + key + "}"}},
		{"openai responses with a base", `{"openAiModelConfig":{"modelId":"gpt","apiKeyArn":"` + key + `","apiFormat":"responses","apiBase":"https://llm.example.com/v1"}}`,
			agent.ModelProvider{Protocol: "openai_responses", Model: "gpt", APIKey: "${" + key + "}", BaseURL: "https://llm.example.com/v1"}},
		{"litellm runs chat on its base", `{"liteLlmModelConfig":{"modelId":"openai/gpt","apiBase":"http://127.0.0.1:4000"}}`,
			agent.ModelProvider{Protocol: "openai_chat", Model: "openai/gpt", BaseURL: "http://127.0.0.1:4000"}},
		{"gemini runs on its OpenAI-compatible endpoint", `{"geminiModelConfig":{"modelId":"gemini-2.5-flash","apiKeyArn":"` + key + `"}}`,
			agent.ModelProvider{Protocol: "openai_chat", Model: "gemini-2.5-flash", APIKey: "${" + key + "}", BaseURL: translate.GeminiBaseURL}},
		{"the scripted model id selects the scripted model", `{"bedrockModelConfig":{"modelId":"baton.scripted"}}`, agent.ModelProvider{Protocol: "scripted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := translate.ToAgent(decode(t, `{"model":`+c.model+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&c.want, cfg.XBaton.ModelProvider); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestToAgentCarriesTheScriptAndTheSmallerTokenLimit(t *testing.T) {
	t.Parallel()
	cfg, err := translate.ToAgent(decode(t, `{"model":{"bedrockModelConfig":{"modelId":"baton.scripted","maxTokens":100,"additionalParams":{"script":{"default_reply":"hi"}}}},"maxTokens":500,"allowedTools":["*"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(cfg.XBaton.Script) != `{"default_reply":"hi"}` {
		t.Errorf("script = %s", cfg.XBaton.Script)
	}
	if cfg.Controls.MaxTokens != 100 {
		t.Errorf("max tokens = %d, want the model's 100", cfg.Controls.MaxTokens)
	}
	if cfg.Controls.AllowedTools != nil {
		t.Errorf(`allowedTools ["*"] must mean every tool (nil), got %v`, cfg.Controls.AllowedTools)
	}
}

func TestToAgentRejectsWhatItCannotRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cfg, field string
	}{
		{"bedrock responses format", `{"model":{"bedrockModelConfig":{"modelId":"m","apiFormat":"responses"}}}`, "model.bedrockModelConfig.apiFormat"},
		{"litellm without a base", `{"model":{"liteLlmModelConfig":{"modelId":"openai/x"}}}`, "model.liteLlmModelConfig.apiBase"},
		{"no model", `{}`, "model"},
		{"additionalParams not an object", `{"model":{"bedrockModelConfig":{"modelId":"baton.scripted","additionalParams":[1]}}}`, "model.additionalParams"},
		{"a gateway with OAuth outbound auth", `{"model":{"bedrockModelConfig":{"modelId":"m"}},"tools":[
		  {"type":"agentcore_gateway","name":"ok","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/a","outboundAuth":{"none":{}}}}},
		  {"type":"agentcore_gateway","name":"gw","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g",
		   "outboundAuth":{"oauth":{"providerArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/oauth2credentialprovider/o","scopes":["read"]}}}}}]}`,
			"tools[1].config.agentCoreGateway.outboundAuth.oauth"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := translate.ToAgent(decode(t, c.cfg))
			var te *translate.Error
			if !errors.As(err, &te) || te.Field != c.field {
				t.Fatalf("err = %v, want a translate.Error on %s", err, c.field)
			}
		})
	}
}

func TestOverridesReplaceForOneCallOnly(t *testing.T) {
	t.Parallel()
	saved := decode(t, `{"model":{"bedrockModelConfig":{"modelId":"m"}},"tools":[{"type":"inline_function","name":"a","config":{"inlineFunction":{"description":"d","inputSchema":{"type":"object"}}}}],"maxIterations":3}`)
	var body map[string]json.RawMessage
	if err := json.Unmarshal([]byte(`{"tools":[],"maxIterations":9,"systemPrompt":[{"text":"x"}]}`), &body); err != nil {
		t.Fatal(err)
	}
	o, err := agentcore.ParseInvokeOverrides(body)
	if err != nil {
		t.Fatal(err)
	}
	eff := o.Apply(saved)
	if len(eff.Tools) != 0 || *eff.MaxIterations != 9 || eff.SystemPrompt[0].Text != "x" {
		t.Errorf("effective = %+v", eff)
	}
	if len(saved.Tools) != 1 || *saved.MaxIterations != 3 {
		t.Errorf("the saved configuration changed: %+v", saved)
	}
	if got := translate.InlineFunctionNames(saved); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("InlineFunctionNames = %v", got)
	}
}

func TestAdmissionLeavesAgentCoreToolsOutOfTheNextCheck(t *testing.T) {
	t.Parallel()
	var seen agent.Config
	next := admitFunc(func(cfg agent.Config) error { seen = cfg; return nil })
	cfg, err := translate.ToAgent(decode(t, `{"model":{"bedrockModelConfig":{"modelId":"m"}},"tools":[{"type":"agentcore_browser","name":"browser"},{"type":"inline_function","name":"a","config":{"inlineFunction":{"description":"d","inputSchema":{"type":"object"}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := (translate.Admission{Next: next}).AdmitSession(cfg); err != nil {
		t.Fatal(err)
	}
	if len(seen.Tools) != 1 || !json.Valid(seen.Tools[0]) || len(cfg.Tools) != 2 {
		t.Fatalf("next saw %d tools (want the function only); the config keeps %d", len(seen.Tools), len(cfg.Tools))
	}
	plain := agent.Config{Tools: []json.RawMessage{json.RawMessage(`{"type":"agentcore_browser"}`)}}
	if err := (translate.Admission{Next: next}).AdmitSession(plain); err != nil || len(seen.Tools) != 1 {
		t.Fatalf("an Agents API configuration must reach next unchanged: %v %d", err, len(seen.Tools))
	}
}

type admitFunc func(agent.Config) error

func (f admitFunc) AdmitSession(cfg agent.Config) error { return f(cfg) }
