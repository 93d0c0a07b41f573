package agentcore_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

func create(mod func(*bac.CreateHarnessInput)) *bac.CreateHarnessInput {
	in := &bac.CreateHarnessInput{HarnessName: aws.String("rejected"), ExecutionRoleArn: aws.String(roleARN)}
	mod(in)
	return in
}

func mcpTool(name, url string, headers map[string]string) types.HarnessTool {
	return types.HarnessTool{Type: types.HarnessToolTypeRemoteMcp, Name: aws.String(name),
		Config: &types.HarnessToolConfigurationMemberRemoteMcp{Value: types.HarnessRemoteMcpConfig{Url: aws.String(url), Headers: headers}}}
}

// TestRejectedRequestsLeaveTheTableUnchanged: every documented pattern, length and shape rule, every member Baton
// cannot honour, a duplicate name, an unknown or foreign harness — each answered with the SDK's typed error
// naming the member, and the table compared before and after. Not parallel: it needs a quiet table.
func TestRejectedRequestsLeaveTheTableUnchanged(t *testing.T) {
	p := newProject(t, "rejected")
	other := newProject(t, "intruder")
	c, ctx := p.client, p.ctx
	existing := p.createHarness(t, "existing", "x", []types.HarnessTool{inlineTool("get_weather")})
	ep, err := c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("prod")})
	if err != nil {
		t.Fatalf("CreateHarnessEndpoint: %v", err)
	}
	_ = ep
	if _, err := c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("exa"), ApiKey: aws.String("k-1")}); err != nil {
		t.Fatalf("CreateApiKeyCredentialProvider: %v", err)
	}
	before := stack.Snapshot(t, p.st)

	long := strings.Repeat("a", 41)
	creates := []struct {
		name  string
		in    *bac.CreateHarnessInput
		field string
	}{
		{"a name starting with a digit", create(func(in *bac.CreateHarnessInput) { in.HarnessName = aws.String("1weather") }), "harnessName"},
		{"a name with a dash", create(func(in *bac.CreateHarnessInput) { in.HarnessName = aws.String("my-harness") }), "harnessName"},
		{"a 41-character name", create(func(in *bac.CreateHarnessInput) { in.HarnessName = aws.String(long) }), "harnessName"},
		{"an execution role that is not an IAM role ARN", create(func(in *bac.CreateHarnessInput) { in.ExecutionRoleArn = aws.String("arn:aws:s3:::bucket") }), "executionRoleArn"},
		{"a short clientToken", create(func(in *bac.CreateHarnessInput) { in.ClientToken = aws.String("short") }), "clientToken"},
		{"a tool name with a space", create(func(in *bac.CreateHarnessInput) {
			tool := inlineTool("get weather")
			in.Tools = []types.HarnessTool{tool}
		}), "tools[0].name"},
		{"a 65-character tool name", create(func(in *bac.CreateHarnessInput) { in.Tools = []types.HarnessTool{inlineTool(strings.Repeat("t", 65))} }), "tools[0].name"},
		{"two tools of one name", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{inlineTool("get_weather"), inlineTool("get_weather")}
		}), "tools[1].name"},
		{"a type whose config is another type's", create(func(in *bac.CreateHarnessInput) {
			tool := inlineTool("get_weather")
			tool.Type = types.HarnessToolTypeRemoteMcp
			in.Tools = []types.HarnessTool{tool}
		}), "tools[0].config.inlineFunction"},
		{"an inline function schema that is not an object", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{{Type: types.HarnessToolTypeInlineFunction, Name: aws.String("f"),
				Config: &types.HarnessToolConfigurationMemberInlineFunction{Value: types.HarnessInlineFunctionConfig{Description: aws.String("d"), InputSchema: schema(map[string]any{"type": "string"})}}}}
		}), "tools[0].config.inlineFunction.inputSchema.type"},
		{"an inline function schema that does not compile", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{{Type: types.HarnessToolTypeInlineFunction, Name: aws.String("f"),
				Config: &types.HarnessToolConfigurationMemberInlineFunction{Value: types.HarnessInlineFunctionConfig{Description: aws.String("d"),
					InputSchema: schema(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": 7}}})}}}}
		}), "tools[0].config.inlineFunction.inputSchema"},
		{"an MCP URL that is not http", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{mcpTool("git", "ftp://example.com/mcp", nil)}
		}), "tools[0].config.remoteMcp.url"},
		{"a vault reference that is not a credential provider ARN", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{mcpTool("git", "https://example.com/mcp", map[string]string{"x-api-key": "${arn:aws:iam::123456789012:role/r}"})}
		}), "tools[0].config.remoteMcp.headers.x-api-key"},
		{"an MCP header name that is not a token", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{mcpTool("git", "https://example.com/mcp", map[string]string{"bad header": "v"})}
		}), "tools[0].config.remoteMcp.headers.bad header"},
		{"a gateway ARN of another service", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{{Type: types.HarnessToolTypeAgentcoreGateway, Name: aws.String("gw"),
				Config: &types.HarnessToolConfigurationMemberAgentCoreGateway{Value: types.HarnessAgentCoreGatewayConfig{GatewayArn: aws.String("arn:aws:lambda:us-east-1:123456789012:function:f")}}}}
		}), "tools[0].config.agentCoreGateway.gatewayArn"},
		{"an OAuth gateway with the authorization-code grant", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{{Type: types.HarnessToolTypeAgentcoreGateway, Name: aws.String("gw"),
				Config: &types.HarnessToolConfigurationMemberAgentCoreGateway{Value: types.HarnessAgentCoreGatewayConfig{
					GatewayArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/g-1"),
					OutboundAuth: &types.HarnessGatewayOutboundAuthMemberOauth{Value: types.OAuthCredentialProvider{
						ProviderArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/oauth2credentialprovider/o"),
						Scopes:      []string{"read"}, GrantType: types.OAuthGrantTypeAuthorizationCode}}}}}}
		}), "tools[0].config.agentCoreGateway.outboundAuth.oauth.grantType"},
		{"a browser ARN of another resource", create(func(in *bac.CreateHarnessInput) {
			in.Tools = []types.HarnessTool{{Type: types.HarnessToolTypeAgentcoreBrowser, Name: aws.String("b"),
				Config: &types.HarnessToolConfigurationMemberAgentCoreBrowser{Value: types.HarnessAgentCoreBrowserConfig{BrowserArn: aws.String("arn:aws:s3:::b")}}}}
		}), "tools[0].config.agentCoreBrowser.browserArn"},
		{"an OpenAI model whose apiKeyArn is not a credential provider", create(func(in *bac.CreateHarnessInput) {
			in.Model = &types.HarnessModelConfigurationMemberOpenAiModelConfig{Value: types.HarnessOpenAiModelConfig{ModelId: aws.String("gpt-x"), ApiKeyArn: aws.String("arn:k")}}
		}), "model.openAiModelConfig.apiKeyArn"},
		{"a Bedrock temperature above 2", create(func(in *bac.CreateHarnessInput) {
			in.Model = &types.HarnessModelConfigurationMemberBedrockModelConfig{Value: types.HarnessBedrockModelConfig{ModelId: aws.String("m"), Temperature: aws.Float32(3)}}
		}), "model.bedrockModelConfig.temperature"},
		{"a Gemini topK above 500", create(func(in *bac.CreateHarnessInput) {
			in.Model = &types.HarnessModelConfigurationMemberGeminiModelConfig{Value: types.HarnessGeminiModelConfig{ModelId: aws.String("g"),
				ApiKeyArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/g"), TopK: aws.Int32(501)}}
		}), "model.geminiModelConfig.topK"},
		{"a LiteLLM apiBase that is not a URL", create(func(in *bac.CreateHarnessInput) {
			in.Model = &types.HarnessModelConfigurationMemberLiteLlmModelConfig{Value: types.HarnessLiteLlmModelConfig{ModelId: aws.String("openai/x"), ApiBase: aws.String("localhost")}}
		}), "model.liteLlmModelConfig.apiBase"},
		{"an allowedTools entry with two slashes", create(func(in *bac.CreateHarnessInput) { in.AllowedTools = []string{"@git/a/b"} }), "allowedTools[0]"},
		{"an allowedTools entry over 64 characters", create(func(in *bac.CreateHarnessInput) { in.AllowedTools = []string{strings.Repeat("x", 65)} }), "allowedTools[0]"},
		{"maxIterations 0", create(func(in *bac.CreateHarnessInput) { in.MaxIterations = aws.Int32(0) }), "maxIterations"},
		{"timeoutSeconds beyond 8 hours", create(func(in *bac.CreateHarnessInput) { in.TimeoutSeconds = aws.Int32(28801) }), "timeoutSeconds"},
		{"managed memory", create(func(in *bac.CreateHarnessInput) {
			in.Memory = &types.HarnessMemoryConfigurationMemberManagedMemoryConfiguration{Value: types.HarnessManagedMemoryConfiguration{}}
		}), "memory.managedMemoryConfiguration"},
		{"skills from S3", create(func(in *bac.CreateHarnessInput) {
			in.Skills = []types.HarnessSkill{&types.HarnessSkillMemberS3{Value: types.HarnessSkillS3Source{Uri: aws.String("s3://b/skills/")}}}
		}), "skills[0].s3"},
		{"skills from git", create(func(in *bac.CreateHarnessInput) {
			in.Skills = []types.HarnessSkill{&types.HarnessSkillMemberGit{Value: types.HarnessSkillGitSource{Url: aws.String("https://example.com/s.git")}}}
		}), "skills[0].git"},
		{"a custom container image", create(func(in *bac.CreateHarnessInput) {
			in.EnvironmentArtifact = &types.HarnessEnvironmentArtifactMemberContainerConfiguration{Value: types.ContainerConfiguration{ContainerUri: aws.String("123456789012.dkr.ecr.us-east-1.amazonaws.com/x:1")}}
		}), "environmentArtifact"},
		{"a JWT authorizer", create(func(in *bac.CreateHarnessInput) {
			in.AuthorizerConfiguration = &types.AuthorizerConfigurationMemberCustomJWTAuthorizer{Value: types.CustomJWTAuthorizerConfiguration{DiscoveryUrl: aws.String("https://idp.example.com/.well-known/openid-configuration")}}
		}), "authorizerConfiguration"},
		{"a lifecycle hook", create(func(in *bac.CreateHarnessInput) {
			in.Hooks = []types.HarnessHook{&types.HarnessHookMemberBeforeToolCall{Value: types.HarnessBeforeToolCallHook{Name: aws.String("audit"),
				Target: &types.HarnessHookTargetMemberLambda{Value: types.HarnessHookLambdaTarget{Arn: aws.String("arn:aws:lambda:us-east-1:123456789012:function:f")}}}}}
		}), "hooks"},
		{"VPC networking", create(func(in *bac.CreateHarnessInput) {
			in.Environment = &types.HarnessEnvironmentProviderRequestMemberAgentCoreRuntimeEnvironment{Value: types.HarnessAgentCoreRuntimeEnvironmentRequest{
				NetworkConfiguration: &types.NetworkConfiguration{NetworkMode: types.NetworkModeVpc}}}
		}), "environment.agentCoreRuntimeEnvironment.networkConfiguration.networkMode"},
	}
	for _, tc := range creates {
		t.Run("CreateHarness with "+tc.name, func(t *testing.T) {
			_, err := c.CreateHarness(ctx, tc.in)
			wantField(t, tc.name, err, tc.field)
		})
	}

	t.Run("CreateHarness with a taken name is ConflictException", func(t *testing.T) {
		_, err := c.CreateHarness(ctx, &bac.CreateHarnessInput{HarnessName: aws.String("existing"), ExecutionRoleArn: aws.String(roleARN)})
		asError[*types.ConflictException](t, "duplicate name", err)
	})
	t.Run("UpdateHarness with managed memory names the member", func(t *testing.T) {
		_, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, Memory: &types.UpdatedHarnessMemoryConfiguration{
			OptionalValue: &types.HarnessMemoryConfigurationMemberManagedMemoryConfiguration{Value: types.HarnessManagedMemoryConfiguration{}}}})
		wantField(t, "update memory", err, "memory.optionalValue.managedMemoryConfiguration")
	})
	t.Run("UpdateHarness with an invalid tool names it", func(t *testing.T) {
		_, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, Tools: []types.HarnessTool{mcpTool("git", "mcp.example.com", nil)}})
		wantField(t, "update tools", err, "tools[0].config.remoteMcp.url")
	})
	t.Run("UpdateHarness with a custom container image names it", func(t *testing.T) {
		_, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, EnvironmentArtifact: &types.UpdatedHarnessEnvironmentArtifact{
			OptionalValue: &types.HarnessEnvironmentArtifactMemberContainerConfiguration{Value: types.ContainerConfiguration{ContainerUri: aws.String("x")}}}})
		wantField(t, "update artifact", err, "environmentArtifact.optionalValue")
	})
	t.Run("UpdateHarness of an unknown harness is ResourceNotFoundException", func(t *testing.T) {
		_, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: aws.String("nothing-0123456789"), MaxIterations: aws.Int32(2)})
		asError[*types.ResourceNotFoundException](t, "unknown harness", err)
	})
	t.Run("GetHarness with a malformed id names harnessId", func(t *testing.T) {
		_, err := c.GetHarness(ctx, &bac.GetHarnessInput{HarnessId: aws.String("no_suffix")})
		wantField(t, "malformed id", err, "harnessId")
	})
	t.Run("another project cannot update, delete or add endpoints", func(t *testing.T) {
		_, err := other.client.UpdateHarness(other.ctx, &bac.UpdateHarnessInput{HarnessId: existing.HarnessId, MaxIterations: aws.Int32(2)})
		asError[*types.ResourceNotFoundException](t, "foreign update", err)
		_, err = other.client.DeleteHarness(other.ctx, &bac.DeleteHarnessInput{HarnessId: existing.HarnessId})
		asError[*types.ResourceNotFoundException](t, "foreign delete", err)
		_, err = other.client.DeleteHarnessEndpoint(other.ctx, &bac.DeleteHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("prod")})
		asError[*types.ResourceNotFoundException](t, "foreign endpoint delete", err)
		_, err = other.client.DeleteApiKeyCredentialProvider(other.ctx, &bac.DeleteApiKeyCredentialProviderInput{Name: aws.String("exa")})
		asError[*types.ResourceNotFoundException](t, "foreign credential provider delete", err)
	})
	t.Run("endpoint rules", func(t *testing.T) {
		_, err := c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("prod")})
		asError[*types.ConflictException](t, "duplicate endpoint", err)
		_, err = c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("DEFAULT")})
		asError[*types.ConflictException](t, "an endpoint named DEFAULT", err)
		_, err = c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("9lives")})
		wantField(t, "endpoint name", err, "endpointName")
		_, err = c.UpdateHarnessEndpoint(ctx, &bac.UpdateHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("prod"), TargetVersion: aws.String("2")})
		wantField(t, "target version", err, "targetVersion")
		_, err = c.DeleteHarnessEndpoint(ctx, &bac.DeleteHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("DEFAULT")})
		wantField(t, "delete DEFAULT", err, "endpointName")
		_, err = c.DeleteHarnessEndpoint(ctx, &bac.DeleteHarnessEndpointInput{HarnessId: existing.HarnessId, EndpointName: aws.String("staging")})
		asError[*types.ResourceNotFoundException](t, "unknown endpoint", err)
	})
	t.Run("credential provider rules", func(t *testing.T) {
		_, err := c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("exa"), ApiKey: aws.String("k-2")})
		asError[*types.ConflictException](t, "duplicate provider", err)
		_, err = c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("no spaces"), ApiKey: aws.String("k")})
		wantField(t, "provider name", err, "name")
		_, err = c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("nokey")})
		wantField(t, "provider without apiKey", err, "apiKey")
		_, err = c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("ext"),
			ApiKeySecretSource: types.SecretSourceTypeExternal, ApiKeySecretConfig: &types.SecretReference{SecretId: aws.String("s"), JsonKey: aws.String("k")}})
		wantField(t, "external secret", err, "apiKeySecretSource")
		_, err = c.UpdateApiKeyCredentialProvider(ctx, &bac.UpdateApiKeyCredentialProviderInput{Name: aws.String("missing"), ApiKey: aws.String("k")})
		asError[*types.ResourceNotFoundException](t, "update an unknown provider", err)
	})
	t.Run("a body that is not JSON is CannotParse", func(t *testing.T) {
		r := signedRequest(t, p.st, p.keyID, p.secret, http.MethodPost, "/harnesses", []byte(`{"harnessName":`), time.Now(), nil)
		wantWireError(t, "broken JSON", r, http.StatusBadRequest, "ValidationException")
		if !strings.Contains(string(r.Body), `"reason":"CannotParse"`) {
			t.Fatalf("reason: %s", r.Body)
		}
		r = signedRequest(t, p.st, p.keyID, p.secret, http.MethodPost, "/harnesses", []byte(`{"harnessName":"a","harnessName":"b","executionRoleArn":"`+roleARN+`"}`), time.Now(), nil)
		wantWireError(t, "duplicate members", r, http.StatusBadRequest, "ValidationException")
	})

	stack.AssertUnchanged(t, before, stack.Snapshot(t, p.st))
}
