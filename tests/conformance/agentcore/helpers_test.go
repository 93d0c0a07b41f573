package agentcore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

const (
	testTimeout = 90 * time.Second
	roleARN     = "arn:aws:iam::123456789012:role/HarnessRole"
)

// project is one test's own project on the shared stack with its access key and control-plane client.
type project struct {
	st     *stack.Stack
	id     string
	keyID  string
	secret string
	client *bac.Client
	ctx    context.Context
}

// newProject creates a project of the test's own (unique id starting with name) with a generated access key.
func newProject(t *testing.T, name string) *project {
	t.Helper()
	st := stack.Shared(t)
	id := fmt.Sprintf("ac-%s-%x", name, time.Now().UnixNano())
	keyID, secret := st.NewAccessKey(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return &project{st: st, id: id, keyID: keyID, secret: secret, client: stack.AgentCoreControl(st, keyID, secret), ctx: ctx}
}

// asError requires err to be (or wrap) the SDK's typed error T and returns it.
func asError[T error](t *testing.T, what string, err error) T {
	t.Helper()
	var target T
	if err == nil {
		t.Fatalf("%s: succeeded; want %T", what, target)
	}
	if !errors.As(err, &target) {
		t.Fatalf("%s: error %v (%T); want %T", what, err, err, target)
	}
	return target
}

// wantField requires a ValidationException whose fieldList names field.
func wantField(t *testing.T, what string, err error, field string) *types.ValidationException {
	t.Helper()
	ve := asError[*types.ValidationException](t, what, err)
	for _, f := range ve.FieldList {
		if aws.ToString(f.Name) == field {
			return ve
		}
	}
	var names []string
	for _, f := range ve.FieldList {
		names = append(names, aws.ToString(f.Name)+": "+aws.ToString(f.Message))
	}
	t.Fatalf("%s: ValidationException %q names %v; want %s", what, aws.ToString(ve.Message), names, field)
	return nil
}

func schema(v map[string]any) document.Interface { return document.NewLazyDocument(v) }

func inlineTool(name string) types.HarnessTool {
	return types.HarnessTool{Type: types.HarnessToolTypeInlineFunction, Name: aws.String(name),
		Config: &types.HarnessToolConfigurationMemberInlineFunction{Value: types.HarnessInlineFunctionConfig{
			Description: aws.String("Get the current weather for a city."),
			InputSchema: schema(map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}),
		}}}
}

// seedTools is the six-tool list of the guide's "Add tools" example (all five tool types with their exact shapes).
func seedTools() []types.HarnessTool {
	return []types.HarnessTool{
		{Type: types.HarnessToolTypeRemoteMcp, Name: aws.String("exa"),
			Config: &types.HarnessToolConfigurationMemberRemoteMcp{Value: types.HarnessRemoteMcpConfig{Url: aws.String("https://mcp.exa.ai/mcp")}}},
		{Type: types.HarnessToolTypeRemoteMcp, Name: aws.String("my-private-mcp"),
			Config: &types.HarnessToolConfigurationMemberRemoteMcp{Value: types.HarnessRemoteMcpConfig{Url: aws.String("https://mcp.example.com/api"),
				Headers: map[string]string{"Authorization": "Bearer <your-token>"}}}},
		{Type: types.HarnessToolTypeRemoteMcp, Name: aws.String("exa-secure"),
			Config: &types.HarnessToolConfigurationMemberRemoteMcp{Value: types.HarnessRemoteMcpConfig{Url: aws.String("https://mcp.exa.ai/mcp"),
				Headers: map[string]string{"x-api-key": "${arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-exa-key}"}}}},
		{Type: types.HarnessToolTypeAgentcoreGateway, Name: aws.String("my-gateway"),
			Config: &types.HarnessToolConfigurationMemberAgentCoreGateway{Value: types.HarnessAgentCoreGatewayConfig{
				GatewayArn: aws.String("arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gateway")}}},
		{Type: types.HarnessToolTypeAgentcoreGateway, Name: aws.String("my-oauth-gateway"),
			Config: &types.HarnessToolConfigurationMemberAgentCoreGateway{Value: types.HarnessAgentCoreGatewayConfig{
				GatewayArn: aws.String("arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-oauth-gateway"),
				OutboundAuth: &types.HarnessGatewayOutboundAuthMemberOauth{Value: types.OAuthCredentialProvider{
					ProviderArn: aws.String("arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/oauth2credentialprovider/my-oauth-provider"),
					Scopes:      []string{"read", "write"}}}}}},
		{Type: types.HarnessToolTypeAgentcoreBrowser, Name: aws.String("browser")},
		{Type: types.HarnessToolTypeAgentcoreCodeInterpreter, Name: aws.String("code_interpreter")},
		{Type: types.HarnessToolTypeInlineFunction, Name: aws.String("approve_purchase"),
			Config: &types.HarnessToolConfigurationMemberInlineFunction{Value: types.HarnessInlineFunctionConfig{
				Description: aws.String("Request human approval for a purchase."),
				InputSchema: schema(map[string]any{"type": "object", "properties": map[string]any{"item": map[string]any{"type": "string"},
					"amount": map[string]any{"type": "number"}}, "required": []any{"item", "amount"}}),
			}}},
	}
}

// createHarness creates a harness named name with the given tools and system prompt.
func (p *project) createHarness(t *testing.T, name, prompt string, tools []types.HarnessTool) *types.Harness {
	t.Helper()
	out, err := p.client.CreateHarness(p.ctx, &bac.CreateHarnessInput{HarnessName: aws.String(name), ExecutionRoleArn: aws.String(roleARN),
		SystemPrompt: []types.HarnessSystemContentBlock{&types.HarnessSystemContentBlockMemberText{Value: prompt}}, Tools: tools})
	if err != nil {
		t.Fatalf("CreateHarness %s: %v", name, err)
	}
	return out.Harness
}

func promptOf(h *types.Harness) string {
	if len(h.SystemPrompt) == 0 {
		return ""
	}
	if tb, ok := h.SystemPrompt[0].(*types.HarnessSystemContentBlockMemberText); ok {
		return tb.Value
	}
	return ""
}

// signedRequest sends a raw request signed with SigV4 (signing name bedrock-agentcore) at `at`; tamper, when set,
// changes the request after signing.
func signedRequest(t *testing.T, st *stack.Stack, keyID, secret, method, path string, body []byte, at time.Time, tamper func(*http.Request, *[]byte)) stack.Response {
	t.Helper()
	req, err := http.NewRequest(method, st.APIURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}, req,
		hex.EncodeToString(sum[:]), "bedrock-agentcore", stack.AgentCoreRegion, at); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		b := body
		tamper(req, &b)
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.ContentLength = int64(len(b))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return stack.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// wantWireError requires an AgentCore error response: status and X-Amzn-ErrorType.
func wantWireError(t *testing.T, what string, r stack.Response, status int, shape string) {
	t.Helper()
	if r.Status != status || r.Header.Get("X-Amzn-ErrorType") != shape || !strings.Contains(string(r.Body), `"message"`) {
		t.Fatalf("%s: %d %s %s; want %d %s with a message", what, r.Status, r.Header.Get("X-Amzn-ErrorType"), r.Body, status, shape)
	}
}
