package agentcore_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// oauthGateway is an agentcore_gateway tool with outboundAuth oauth, which Baton stores but cannot run.
func oauthGateway(name string) types.HarnessTool {
	return types.HarnessTool{Type: types.HarnessToolTypeAgentcoreGateway, Name: aws.String(name),
		Config: &types.HarnessToolConfigurationMemberAgentCoreGateway{Value: types.HarnessAgentCoreGatewayConfig{
			GatewayArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/oauth-gw-abcdefghij"),
			OutboundAuth: &types.HarnessGatewayOutboundAuthMemberOauth{Value: types.OAuthCredentialProvider{
				ProviderArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/oauth2credentialprovider/p"),
				Scopes:      []string{"read"}}}}}}
}

// TestAnOAuthGatewayIsRefusedAtInvokeAndWritesNothing: CreateHarness stores a gateway with outboundAuth oauth as
// given, but InvokeHarness — with it saved, or as a tools override — answers ValidationException naming
// tools[i].config.agentCoreGateway.outboundAuth.oauth before anything is written (docs/tools.md "Gateway"). Not
// parallel: it needs a quiet table.
func TestAnOAuthGatewayIsRefusedAtInvokeAndWritesNothing(t *testing.T) {
	p := newProject(t, "oauthgw")
	saved := p.createHarness(t, "oauthsaved", "x", []types.HarnessTool{inlineTool("get_weather"), oauthGateway("gw")})
	plain := p.createHarness(t, "oauthplain", "x", []types.HarnessTool{inlineTool("get_weather")})
	data := dp.New(dp.Options{Region: stack.AgentCoreRegion, BaseEndpoint: aws.String(p.st.APIURL),
		Credentials: credentials.NewStaticCredentialsProvider(p.keyID, p.secret, ""), Retryer: aws.NopRetryer{}, HTTPClient: stack.SDKHTTPClient()})
	user := []dptypes.HarnessMessage{{Role: dptypes.HarnessConversationRoleUser,
		Content: []dptypes.HarnessContentBlock{&dptypes.HarnessContentBlockMemberText{Value: "hi"}}}}
	override := []dptypes.HarnessTool{{Type: dptypes.HarnessToolTypeAgentcoreBrowser, Name: aws.String("browser")},
		{Type: dptypes.HarnessToolTypeAgentcoreGateway, Name: aws.String("gw"),
			Config: &dptypes.HarnessToolConfigurationMemberAgentCoreGateway{Value: dptypes.HarnessAgentCoreGatewayConfig{
				GatewayArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/oauth-gw-abcdefghij"),
				OutboundAuth: &dptypes.HarnessGatewayOutboundAuthMemberOauth{Value: dptypes.OAuthCredentialProvider{
					ProviderArn: aws.String("arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/oauth2credentialprovider/p"),
					Scopes:      []string{"read"}}}}}}}
	cases := []struct {
		name  string
		in    dp.InvokeHarnessInput
		field string
	}{
		{"the saved configuration", dp.InvokeHarnessInput{HarnessArn: saved.Arn, Messages: user}, "tools[1].config.agentCoreGateway.outboundAuth.oauth"},
		{"a tools override", dp.InvokeHarnessInput{HarnessArn: plain.Arn, Messages: user, Tools: override}, "tools[1].config.agentCoreGateway.outboundAuth.oauth"},
	}
	for _, c := range cases {
		before := stack.Snapshot(t, p.st)
		in := c.in
		in.RuntimeSessionId = aws.String(fmt.Sprintf("sess-oauth-gateway-%032x", time.Now().UnixNano()))
		err := invokeErr(t, data, &in)
		var ve *dptypes.ValidationException
		if !errors.As(err, &ve) {
			t.Fatalf("%s: %v (%T); want ValidationException", c.name, err, err)
		}
		found := false
		for _, f := range ve.FieldList {
			found = found || aws.ToString(f.Name) == c.field
		}
		if !found {
			t.Errorf("%s: ValidationException %q %+v does not name %s", c.name, aws.ToString(ve.Message), ve.FieldList, c.field)
		}
		stack.AssertUnchanged(t, before, stack.Snapshot(t, p.st))
	}
}

// invokeErr calls InvokeHarness and returns its error: the call's, or the stream's after draining it.
func invokeErr(t *testing.T, data *dp.Client, in *dp.InvokeHarnessInput) error {
	t.Helper()
	out, err := data.InvokeHarness(t.Context(), in)
	if err != nil {
		return err
	}
	stream := out.GetStream()
	defer stream.Close()
	for range stream.Events() {
	}
	return stream.Err()
}
