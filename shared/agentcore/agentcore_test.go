package agentcore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agentcore"
)

// fieldsOf returns the fieldList names of a *ValidationError ("" entries mean none).
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *agentcore.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T); want *ValidationError", err, err)
	}
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Name)
	}
	return out
}

// seedTools is the guide's tool list, exactly as its Python example sends it.
const seedTools = `[
 {"type":"remote_mcp","name":"exa","config":{"remoteMcp":{"url":"https://mcp.exa.ai/mcp"}}},
 {"type":"remote_mcp","name":"my-private-mcp","config":{"remoteMcp":{"url":"https://mcp.example.com/api","headers":{"Authorization":"Bearer <your-token>"}}}},
 {"type":"remote_mcp","name":"exa-secure","config":{"remoteMcp":{"url":"https://mcp.exa.ai/mcp","headers":{"x-api-key":"${arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-exa-key}"}}}},
 {"type":"agentcore_gateway","name":"my-gateway","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gateway"}}},
 {"type":"agentcore_gateway","name":"my-oauth-gateway","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-oauth-gateway","outboundAuth":{"oauth":{"providerArn":"arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/oauth2credentialprovider/my-oauth-provider","scopes":["read","write"]}}}}},
 {"type":"agentcore_browser","name":"browser"},
 {"type":"agentcore_code_interpreter","name":"code_interpreter"},
 {"type":"inline_function","name":"approve_purchase","config":{"inlineFunction":{"description":"Request human approval for a purchase.","inputSchema":{"type":"object","properties":{"item":{"type":"string"},"amount":{"type":"number"}},"required":["item","amount"]}}}}
]`

func TestParseToolsAcceptsTheSeedList(t *testing.T) {
	t.Parallel()
	tools, err := agentcore.ParseTools("tools", json.RawMessage(seedTools))
	if err != nil {
		t.Fatalf("ParseTools: %v", err)
	}
	var got []string
	for _, tool := range tools {
		got = append(got, tool.Type+":"+tool.Name)
	}
	want := []string{"remote_mcp:exa", "remote_mcp:my-private-mcp", "remote_mcp:exa-secure", "agentcore_gateway:my-gateway",
		"agentcore_gateway:my-oauth-gateway", "agentcore_browser:browser", "agentcore_code_interpreter:code_interpreter", "inline_function:approve_purchase"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	if s := string(tools[7].Config.InlineFunction.InputSchema); !strings.Contains(s, `"required":["item","amount"]`) {
		t.Fatalf("inputSchema not kept: %s", s)
	}
	if tools[4].Config.AgentCoreGateway.OutboundAuth.OAuth.Scopes[1] != "write" {
		t.Fatalf("oauth scopes not kept: %+v", tools[4].Config.AgentCoreGateway.OutboundAuth.OAuth)
	}
}

func TestParseToolsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		tools string
		want  []string
	}{
		{"a list that is an object", `{}`, []string{"tools"}},
		{"a tool without type", `[{"name":"x"}]`, []string{"tools[0].type"}},
		{"an unknown type", `[{"type":"lambda","name":"x"}]`, []string{"tools[0].type"}},
		{"an inline function without name", `[{"type":"inline_function","config":{"inlineFunction":{"description":"d","inputSchema":{}}}}]`, []string{"tools[0].name"}},
		{"an inline function without config", `[{"type":"inline_function","name":"f"}]`, []string{"tools[0].config"}},
		{"an inline function without description", `[{"type":"inline_function","name":"f","config":{"inlineFunction":{"inputSchema":{}}}}]`, []string{"tools[0].config.inlineFunction.description"}},
		{"a config with two members", `[{"type":"inline_function","name":"f","config":{"inlineFunction":{"description":"d","inputSchema":{}},"remoteMcp":{"url":"https://x"}}}]`, []string{"tools[0].config"}},
		{"a config of another type", `[{"type":"agentcore_browser","name":"b","config":{"agentCoreCodeInterpreter":{}}}]`, []string{"tools[0].config.agentCoreCodeInterpreter"}},
		{"a gateway with two outbound auths", `[{"type":"agentcore_gateway","name":"g","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g","outboundAuth":{"awsIam":{},"none":{}}}}}]`, []string{"tools[0].config.agentCoreGateway.outboundAuth"}},
		{"an awsIam auth that is not a unit", `[{"type":"agentcore_gateway","name":"g","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g","outboundAuth":{"awsIam":{"role":"x"}}}}}]`, []string{"tools[0].config.agentCoreGateway.outboundAuth.awsIam"}},
		{"an OAuth auth without scopes", `[{"type":"agentcore_gateway","name":"g","config":{"agentCoreGateway":{"gatewayArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g","outboundAuth":{"oauth":{"providerArn":"arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/oauth2credentialprovider/o"}}}}}]`, []string{"tools[0].config.agentCoreGateway.outboundAuth.oauth.scopes"}},
		{"a header value with a line break", `[{"type":"remote_mcp","name":"m","config":{"remoteMcp":{"url":"https://x/mcp","headers":{"a":"b\r\nc: d"}}}}]`, []string{"tools[0].config.remoteMcp.headers.a"}},
		{"a header value that is not a string", `[{"type":"remote_mcp","name":"m","config":{"remoteMcp":{"url":"https://x/mcp","headers":{"a":1}}}}]`, []string{"tools[0].config.remoteMcp.headers.a"}},
		{"two bad tools report both", `[{"type":"inline_function","name":"a b","config":{"inlineFunction":{"description":"d","inputSchema":{}}}},{"type":"remote_mcp","name":"m","config":{"remoteMcp":{}}}]`, []string{"tools[0].name", "tools[1].config.remoteMcp.url"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := agentcore.ParseTools("tools", json.RawMessage(tc.tools))
			if diff := cmp.Diff(tc.want, fieldsOf(t, err)); diff != "" {
				t.Fatalf("fieldList (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseModel(t *testing.T) {
	t.Parallel()
	const arn = `"arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/openai"`
	ok := []string{
		`{"bedrockModelConfig":{"modelId":"us.anthropic.claude-sonnet-4-5","maxTokens":1024,"temperature":0.2,"topP":1,"apiFormat":"converse_stream"}}`,
		`{"openAiModelConfig":{"modelId":"gpt-5","apiKeyArn":` + arn + `,"apiFormat":"responses","temperature":2}}`,
		`{"liteLlmModelConfig":{"modelId":"openai/gpt-5","apiBase":"http://127.0.0.1:4000/v1"}}`,
		`{"geminiModelConfig":{"modelId":"gemini-2.5-pro","apiKeyArn":` + arn + `,"topP":0.5}}`,
		`{"bedrockModelConfig":{"modelId":"baton.scripted","additionalParams":{"script":{"default_reply":"hi"}}}}`,
	}
	for _, m := range ok {
		if _, err := agentcore.ParseModel("model", json.RawMessage(m)); err != nil {
			t.Errorf("ParseModel(%s): %v", m, err)
		}
	}
	bad := map[string]string{
		`{}`: "model",
		`{"bedrockModelConfig":{"modelId":"m"},"geminiModelConfig":{"modelId":"g","apiKeyArn":` + arn + `}}`: "model",
		`{"anthropicModelConfig":{"modelId":"m"}}`:                                                           "model.anthropicModelConfig",
		`{"bedrockModelConfig":{}}`:                                                                          "model.bedrockModelConfig.modelId",
		`{"bedrockModelConfig":{"modelId":"m","apiFormat":"messages"}}`:                                      "model.bedrockModelConfig.apiFormat",
		`{"openAiModelConfig":{"modelId":"m"}}`:                                                              "model.openAiModelConfig.apiKeyArn",
		`{"openAiModelConfig":{"modelId":"m","apiKeyArn":` + arn + `,"apiFormat":"converse_stream"}}`:        "model.openAiModelConfig.apiFormat",
		`{"geminiModelConfig":{"modelId":"g","apiKeyArn":` + arn + `,"topP":1.5}}`:                           "model.geminiModelConfig.topP",
		`{"bedrockModelConfig":{"modelId":"m","maxTokens":1.5}}`:                                             "model.bedrockModelConfig.maxTokens",
		`{"bedrockModelConfig":{"modelId":"m","additionalParams":[1]}}`:                                      "model.bedrockModelConfig.additionalParams",
		// What Baton cannot pass to a provider is rejected, never dropped (docs/agentcore.md §3.3).
		`{"geminiModelConfig":{"modelId":"gemini-2.5-pro","apiKeyArn":` + arn + `,"topK":40}}`:                                "model.geminiModelConfig.topK",
		`{"openAiModelConfig":{"modelId":"gpt-5","apiKeyArn":` + arn + `,"additionalParams":{"reasoning":{"effort":"low"}}}}`: "model.openAiModelConfig.additionalParams",
		`{"bedrockModelConfig":{"modelId":"m","additionalParams":{"top_k":5}}}`:                                               "model.bedrockModelConfig.additionalParams",
		`{"bedrockModelConfig":{"modelId":"baton.scripted","additionalParams":{"script":{},"seed":1}}}`:                       "model.bedrockModelConfig.additionalParams.seed",
	}
	for m, field := range bad {
		_, err := agentcore.ParseModel("model", json.RawMessage(m))
		if got := fieldsOf(t, err); len(got) == 0 || got[0] != field {
			t.Errorf("ParseModel(%s) names %v; want %s", m, got, field)
		}
	}
}

func TestParseAllowedTools(t *testing.T) {
	t.Parallel()
	ok := `["*","shell","file_*","@builtin","@builtin/shell","@git","@git/git_status","@git/read_*","@*-mcp/status"]`
	if got, err := agentcore.ParseAllowedTools("allowedTools", json.RawMessage(ok)); err != nil || len(got) != 9 {
		t.Fatalf("the guide's patterns: %v %v", got, err)
	}
	for _, bad := range []string{`["@git/a/b"]`, `[""]`, `["/x"]`, `[1]`, `"*"`, `["` + strings.Repeat("a", 65) + `"]`} {
		if _, err := agentcore.ParseAllowedTools("allowedTools", json.RawMessage(bad)); err == nil {
			t.Errorf("ParseAllowedTools(%s) accepted", bad)
		}
	}
}

func TestParseCreateHarnessAppliesDefaults(t *testing.T) {
	t.Parallel()
	req, err := agentcore.ParseCreateHarness([]byte(`{"harnessName":"weather","executionRoleArn":"arn:aws:iam::123456789012:role/r","memory":{"disabled":{}},"unknownMember":1}`))
	if err != nil {
		t.Fatalf("ParseCreateHarness: %v", err)
	}
	cfg := req.Config
	if cfg.Model.Bedrock == nil || cfg.Model.Bedrock.ModelID != agentcore.DefaultBedrockModelID || len(cfg.AllowedTools) != 1 || cfg.AllowedTools[0] != "*" ||
		cfg.Truncation.Strategy != "sliding_window" || cfg.Tools == nil || cfg.Skills == nil || cfg.SystemPrompt == nil || cfg.Memory == nil {
		t.Fatalf("defaults: %+v", cfg)
	}
	b, _ := json.Marshal(cfg)
	back, err := agentcore.DecodeConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, back); diff != "" {
		t.Fatalf("stored configuration does not round-trip (-want +got):\n%s", diff)
	}
}

func TestParseCreateHarnessRejectsUnsupportedMembersByName(t *testing.T) {
	t.Parallel()
	base := `"harnessName":"h","executionRoleArn":"arn:aws:iam::123456789012:role/r"`
	cases := map[string]string{
		`"memory":{"managedMemoryConfiguration":{}}`:                                      "memory.managedMemoryConfiguration",
		`"memory":{"agentCoreMemoryConfiguration":{"arn":"a"}}`:                           "memory.agentCoreMemoryConfiguration",
		`"skills":[{"s3":{"uri":"s3://b/"}}]`:                                             "skills[0].s3",
		`"skills":[{"git":{"url":"https://g"}}]`:                                          "skills[0].git",
		`"environmentArtifact":{"containerConfiguration":{"containerUri":"x"}}`:           "environmentArtifact",
		`"authorizerConfiguration":{"customJWTAuthorizer":{}}`:                            "authorizerConfiguration",
		`"hooks":[{"beforeInvocation":{"name":"a","target":{"sns":{"arn":"x"}}}}]`:        "hooks",
		`"environment":{"agentCoreRuntimeEnvironment":{"filesystemConfigurations":[{}]}}`: "environment.agentCoreRuntimeEnvironment.filesystemConfigurations",
	}
	for member, field := range cases {
		_, err := agentcore.ParseCreateHarness([]byte(`{` + base + `,` + member + `}`))
		if got := fieldsOf(t, err); len(got) != 1 || got[0] != field {
			t.Errorf("%s names %v; want %s", member, got, field)
		}
	}
	if _, err := agentcore.ParseCreateHarness([]byte(`{` + base + `,"hooks":[]}`)); err != nil {
		t.Errorf("an empty hooks list: %v", err)
	}
}

func TestUpdateIsAPatch(t *testing.T) {
	t.Parallel()
	created, err := agentcore.ParseCreateHarness([]byte(`{"harnessName":"h","executionRoleArn":"arn:aws:iam::123456789012:role/r","systemPrompt":[{"text":"a"}],"maxIterations":5,"memory":{"disabled":{}},
		"tools":[{"type":"agentcore_browser","name":"browser"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := agentcore.ParseUpdateHarness([]byte(`{"systemPrompt":[{"text":"b"}],"memory":{},"environmentArtifact":{},"authorizerConfiguration":{}}`))
	if err != nil {
		t.Fatalf("ParseUpdateHarness: %v", err)
	}
	if diff := cmp.Diff([]string{"memory", "systemPrompt"}, u.Members()); diff != "" {
		t.Fatalf("members (-want +got):\n%s", diff)
	}
	n := u.Apply(created.Config)
	if n.SystemPrompt[0].Text != "b" || n.Memory != nil || *n.MaxIterations != 5 || len(n.Tools) != 1 || created.Config.SystemPrompt[0].Text != "a" {
		t.Fatalf("after the patch: %+v (old %+v)", n, created.Config)
	}
	_, err = agentcore.ParseUpdateHarness([]byte(`{"authorizerConfiguration":{"optionalValue":{"customJWTAuthorizer":{}}}}`))
	if got := fieldsOf(t, err); len(got) != 1 || got[0] != "authorizerConfiguration.optionalValue" {
		t.Fatalf("JWT authorizer in an update names %v", got)
	}
}

func TestFingerprintIgnoresOrderWhitespaceAndClientToken(t *testing.T) {
	t.Parallel()
	a := agentcore.Fingerprint("CreateHarness", nil, []byte(`{"a":1,"b":[1,2],"clientToken":"x"}`))
	b := agentcore.Fingerprint("CreateHarness", nil, []byte(` { "b":[1,2] , "a":1,"clientToken":"y"}`))
	c := agentcore.Fingerprint("CreateHarness", nil, []byte(`{"a":2,"b":[1,2]}`))
	d := agentcore.Fingerprint("UpdateHarness", []string{"h-0123456789"}, []byte(`{"a":1,"b":[1,2]}`))
	if a != b || a == c || a == d {
		t.Fatalf("fingerprints %s %s %s %s", a, b, c, d)
	}
}

func TestVaultReferences(t *testing.T) {
	t.Parallel()
	arn := "arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-exa-key"
	ref, ok := agentcore.ParseCredentialProviderARN(arn)
	if !ok || ref.Name != "my-exa-key" || ref.Region != "us-west-2" || ref.Account != "123456789012" || ref.Vault != "default" {
		t.Fatalf("ParseCredentialProviderARN = %+v, %v", ref, ok)
	}
	got, err := agentcore.ExpandVaultReferences("Bearer ${"+arn+"} and ${"+arn+"}", func(a string) (string, error) {
		if a != arn {
			return "", errors.New("unexpected " + a)
		}
		return "k", nil
	})
	if err != nil || got != "Bearer k and k" {
		t.Fatalf("ExpandVaultReferences = %q, %v", got, err)
	}
	if _, err := agentcore.ExpandVaultReferences("${"+arn+"}", func(string) (string, error) { return "", errors.New("missing") }); err == nil {
		t.Fatal("a failed resolution expanded")
	}
	if got, _ := agentcore.ExpandVaultReferences("plain", nil); got != "plain" {
		t.Fatalf("plain value changed: %q", got)
	}
}

func TestLiteralHeaderValuesAreRedactedInReadsAndKeptOnUpdate(t *testing.T) {
	t.Parallel()
	ref := "${arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/k}"
	tools := []agentcore.Tool{{Type: "remote_mcp", Name: "exa", Config: &agentcore.ToolConfig{RemoteMCP: &agentcore.RemoteMCP{
		URL: "https://mcp.example.com/mcp", Headers: map[string]string{"x-api-key": "literal-secret", "x-ref": ref, "authorization": "Bearer " + ref}}}}}
	read := agentcore.RedactHeaders(tools)
	want := map[string]string{"x-api-key": agentcore.RedactedHeaderValue, "x-ref": ref, "authorization": "Bearer " + ref}
	if diff := cmp.Diff(want, read[0].Config.RemoteMCP.Headers); diff != "" {
		t.Errorf("redacted headers (-want +got):\n%s", diff)
	}
	if tools[0].Config.RemoteMCP.Headers["x-api-key"] != "literal-secret" {
		t.Fatal("RedactHeaders modified its input")
	}
	// A client that read the harness and sends its tools back (with one more header) keeps the stored secret.
	body := `{"tools":[{"type":"remote_mcp","name":"exa","config":{"remoteMcp":{"url":"https://mcp.example.com/mcp",` +
		`"headers":{"x-api-key":"` + agentcore.RedactedHeaderValue + `","x-new":"v"}}}}]}`
	u, err := agentcore.ParseUpdateHarness([]byte(body))
	if err != nil {
		t.Fatalf("ParseUpdateHarness: %v", err)
	}
	got := u.Apply(agentcore.HarnessConfig{Tools: tools})
	if diff := cmp.Diff(map[string]string{"x-api-key": "literal-secret", "x-new": "v"}, got.Tools[0].Config.RemoteMCP.Headers); diff != "" {
		t.Errorf("headers after the update (-want +got):\n%s", diff)
	}
}
