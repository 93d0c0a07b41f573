package agentcore_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
)

// TestCredentialProviders: Create/Get/List/Update/DeleteApiKeyCredentialProvider through the official client
// (epoch-seconds timestamps decode), the API key never appears in an answer, names are per project.
func TestCredentialProviders(t *testing.T) {
	t.Parallel()
	p := newProject(t, "vault")
	other := newProject(t, "vault-other")
	c, ctx := p.client, p.ctx
	const key = "exa-secret-key-0123456789"
	start := time.Now().Add(-time.Minute)

	created, err := c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("my-exa-key"), ApiKey: aws.String(key)})
	if err != nil {
		t.Fatalf("CreateApiKeyCredentialProvider: %v", err)
	}
	wantARN := "arn:aws:bedrock-agentcore:us-east-1:000000000000:token-vault/default/apikeycredentialprovider/my-exa-key"
	if aws.ToString(created.CredentialProviderArn) != wantARN || aws.ToString(created.Name) != "my-exa-key" || created.ApiKeySecretArn == nil || aws.ToString(created.ApiKeySecretArn.SecretArn) == "" {
		t.Fatalf("created %+v", created)
	}
	got, err := c.GetApiKeyCredentialProvider(ctx, &bac.GetApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")})
	if err != nil || got.CreatedTime == nil || got.LastUpdatedTime == nil || got.CreatedTime.Before(start) || got.CreatedTime.After(time.Now().Add(time.Minute)) {
		t.Fatalf("GetApiKeyCredentialProvider: %v %+v", err, got)
	}
	raw := signedRequest(t, p.st, p.keyID, p.secret, http.MethodPost, "/identities/GetApiKeyCredentialProvider", []byte(`{"name":"my-exa-key"}`), time.Now(), nil)
	if raw.Status != http.StatusOK || strings.Contains(string(raw.Body), key) || strings.Contains(string(raw.Body), `"apiKey"`) {
		t.Fatalf("raw Get: %d %s (must not carry the key)", raw.Status, raw.Body)
	}
	if _, err := c.CreateApiKeyCredentialProvider(ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("second"), ApiKey: aws.String("k2")}); err != nil {
		t.Fatalf("second provider: %v", err)
	}
	list, err := c.ListApiKeyCredentialProviders(ctx, &bac.ListApiKeyCredentialProvidersInput{})
	if err != nil || len(list.CredentialProviders) != 2 || aws.ToString(list.CredentialProviders[0].Name) != "my-exa-key" || list.CredentialProviders[1].CreatedTime == nil {
		t.Fatalf("ListApiKeyCredentialProviders: %v %+v", err, list)
	}
	page, err := c.ListApiKeyCredentialProviders(ctx, &bac.ListApiKeyCredentialProvidersInput{MaxResults: aws.Int32(1)})
	if err != nil || len(page.CredentialProviders) != 1 || page.NextToken == nil {
		t.Fatalf("first page: %v %+v", err, page)
	}
	page, err = c.ListApiKeyCredentialProviders(ctx, &bac.ListApiKeyCredentialProvidersInput{MaxResults: aws.Int32(1), NextToken: page.NextToken})
	if err != nil || len(page.CredentialProviders) != 1 || aws.ToString(page.CredentialProviders[0].Name) != "second" || page.NextToken != nil {
		t.Fatalf("second page: %v %+v", err, page)
	}

	up, err := c.UpdateApiKeyCredentialProvider(ctx, &bac.UpdateApiKeyCredentialProviderInput{Name: aws.String("my-exa-key"), ApiKey: aws.String("rotated-key-9876543210")})
	if err != nil || up.LastUpdatedTime.Before(*got.LastUpdatedTime) || !up.CreatedTime.Equal(*got.CreatedTime) {
		t.Fatalf("UpdateApiKeyCredentialProvider: %v %+v", err, up)
	}

	_, err = other.client.GetApiKeyCredentialProvider(other.ctx, &bac.GetApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")})
	asError[*types.ResourceNotFoundException](t, "another project's provider", err)
	if _, err := other.client.CreateApiKeyCredentialProvider(other.ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("my-exa-key"), ApiKey: aws.String("theirs")}); err != nil {
		t.Fatalf("the same name in another project: %v", err)
	}

	if strings.Contains(p.st.LogTail(1<<20), key) {
		t.Fatal("the API key appears in the stack's log")
	}
	if _, err := c.DeleteApiKeyCredentialProvider(ctx, &bac.DeleteApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")}); err != nil {
		t.Fatalf("DeleteApiKeyCredentialProvider: %v", err)
	}
	_, err = c.GetApiKeyCredentialProvider(ctx, &bac.GetApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")})
	asError[*types.ResourceNotFoundException](t, "Get after delete", err)
	_, err = c.DeleteApiKeyCredentialProvider(ctx, &bac.DeleteApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")})
	asError[*types.ResourceNotFoundException](t, "Delete after delete", err)
	if _, err := other.client.GetApiKeyCredentialProvider(other.ctx, &bac.GetApiKeyCredentialProviderInput{Name: aws.String("my-exa-key")}); err != nil {
		t.Fatalf("the other project's provider of the same name survived: %v", err)
	}
}
