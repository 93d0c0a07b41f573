package agentcore_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/shared/store/dynamo"
	"github.com/baton-run/baton/tests/stack"
)

// TestVaultReferencesResolveAtInvocation: a key stored with CreateApiKeyCredentialProvider is kept sealed (its
// plaintext is nowhere in the table) and resolves — through an engine on the same table and sealing key, as a
// runtime resolves it at invocation time — for `${arn:…}` header references of the same project only.
func TestVaultReferencesResolveAtInvocation(t *testing.T) {
	t.Parallel()
	p := newProject(t, "resolve")
	other := newProject(t, "resolve-other")
	const key = "plaintext-exa-key-5f1e2d3c4b5a"
	if _, err := p.client.CreateApiKeyCredentialProvider(p.ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("my-exa-key"), ApiKey: aws.String(key)}); err != nil {
		t.Fatalf("CreateApiKeyCredentialProvider: %v", err)
	}
	for k, item := range stack.Snapshot(t, p.st) {
		if strings.Contains(item, key) {
			t.Fatalf("the API key is stored in clear in item %s", k)
		}
	}

	sealKey, err := base64.StdEncoding.DecodeString(setup.DefaultSealKey)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Store: dynamo.New(stack.DynamoDB(p.st), p.st.Table), SealKey: sealKey})
	resolve := func(projectID string) func(string) (string, error) {
		return func(arn string) (string, error) {
			ref, ok := agentcore.ParseCredentialProviderARN(arn)
			if !ok {
				return "", errors.New("not a provider ARN")
			}
			return eng.ResolveAPIKey(p.ctx, projectID, ref.Name)
		}
	}
	header := "Bearer ${arn:aws:bedrock-agentcore:us-east-1:000000000000:token-vault/default/apikeycredentialprovider/my-exa-key}"
	got, err := agentcore.ExpandVaultReferences(header, resolve(p.id))
	if err != nil || got != "Bearer "+key {
		t.Fatalf("expand in the owning project = %q, %v", got, err)
	}
	if _, err := agentcore.ExpandVaultReferences(header, resolve(other.id)); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("expand in another project: %v; want not found", err)
	}

	if _, err := p.client.UpdateApiKeyCredentialProvider(p.ctx, &bac.UpdateApiKeyCredentialProviderInput{Name: aws.String("my-exa-key"), ApiKey: aws.String("rotated-key")}); err != nil {
		t.Fatalf("UpdateApiKeyCredentialProvider: %v", err)
	}
	if got, err := eng.ResolveAPIKey(p.ctx, p.id, "my-exa-key"); err != nil || got != "rotated-key" {
		t.Fatalf("after rotation = %q, %v", got, err)
	}
	wrongKey := engine.New(engine.Options{Store: dynamo.New(stack.DynamoDB(p.st), p.st.Table), SealKey: []byte(strings.Repeat("k", engine.SealKeyBytes))})
	if got, err := wrongKey.ResolveAPIKey(p.ctx, p.id, "my-exa-key"); err == nil {
		t.Fatalf("another sealing key opened the sealed key: %q", got)
	}
}
