package agentcore_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/baton-run/baton/shared/agentcore"
)

// FuzzRequestGate (seeds are kept small: minimising a large interesting input costs minutes) feeds arbitrary bodies to the AgentCore request gate (create, update, endpoint and credential
// provider parsing): it must never panic, must fail only with *ValidationError, and an accepted create must
// store a configuration that decodes back.
func FuzzRequestGate(f *testing.F) {
	f.Add([]byte(`{"harnessName":"h","executionRoleArn":"arn:aws:iam::123456789012:role/r","tools":[{"type":"inline_function","name":"f","config":{"inlineFunction":{"description":"d","inputSchema":{"type":"object"}}}},{"type":"agentcore_browser"}]}`))
	f.Add([]byte(`{"tools":[{"type":"remote_mcp","name":"m","config":{"remoteMcp":{"url":"https://x/mcp","headers":{"k":"${arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/n}"}}}}]}`))
	f.Add([]byte(`{"harnessName":"h","executionRoleArn":"arn:aws:iam::123456789012:role/r","model":{"openAiModelConfig":{"modelId":"m","apiKeyArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/k"}},"allowedTools":["@git/*"],"truncation":{"strategy":"summarization","config":{"summarization":{"summaryRatio":0.5}}}}`))
	f.Add([]byte(`{"memory":{"optionalValue":{"disabled":{}}},"environment":{"agentCoreRuntimeEnvironment":{"lifecycleConfiguration":{"maxLifetime":600}}}}`))
	f.Add([]byte(`{"endpointName":"prod","targetVersion":"2"}`))
	f.Add([]byte(`{"name":"k","apiKey":"v"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"tools":[{"type":"inline_function","name":"f","config":{"inlineFunction":{"description":"d","inputSchema":{"$ref":"http://x"}}}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(what string, err error) {
			var ve *agentcore.ValidationError
			if err != nil && !errors.As(err, &ve) {
				t.Fatalf("%s: %v (%T) is not a *ValidationError", what, err, err)
			}
		}
		req, err := agentcore.ParseCreateHarness(body)
		check("create", err)
		if err == nil {
			b, merr := json.Marshal(req.Config)
			if merr != nil {
				t.Fatalf("marshal accepted configuration: %v", merr)
			}
			if _, derr := agentcore.DecodeConfig(b); derr != nil {
				t.Fatalf("decode stored configuration: %v", derr)
			}
		}
		u, err := agentcore.ParseUpdateHarness(body)
		check("update", err)
		if err == nil {
			_ = u.Apply(req.Config)
		}
		_, err = agentcore.ParseEndpointRequest(body, true)
		check("endpoint", err)
		_, err = agentcore.ParseCredentialProviderRequest(body, true, true)
		check("credential provider", err)
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil {
			for _, k := range []string{"tools", "model", "systemPrompt", "allowedTools", "skills"} {
				if v, ok := m[k]; ok {
					var err error
					switch k {
					case "tools":
						_, err = agentcore.ParseTools(k, v)
					case "model":
						_, err = agentcore.ParseModel(k, v)
					case "systemPrompt":
						_, err = agentcore.ParseSystemPrompt(k, v)
					case "allowedTools":
						_, err = agentcore.ParseAllowedTools(k, v)
					case "skills":
						_, err = agentcore.ParseSkills(k, v)
					}
					check(k, err)
				}
			}
			_, err = agentcore.ParseLimits(m)
			check("limits", err)
		}
	})
}
