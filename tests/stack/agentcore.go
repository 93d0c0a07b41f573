package stack

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
)

// AgentCoreRegion is the region the AgentCore clients of the tests sign for.
const AgentCoreRegion = "us-east-1"

// AgentCoreControl returns the official bedrockagentcorecontrol client for the stack: BaseEndpoint = the API URL,
// static credentials (id, secret; the stack's provisioned pair when both are ""), region us-east-1, no retries.
func AgentCoreControl(s *Stack, id, secret string) *bedrockagentcorecontrol.Client {
	if id == "" && secret == "" {
		id, secret = s.AccessKeyID, s.SecretAccessKey
	}
	return bedrockagentcorecontrol.New(bedrockagentcorecontrol.Options{
		Region:       AgentCoreRegion,
		BaseEndpoint: aws.String(s.APIURL),
		Credentials:  credentials.NewStaticCredentialsProvider(id, secret, ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   SDKHTTPClient(),
	})
}

// AnonymousAgentCoreControl returns the control-plane client without credentials: it sends unsigned requests.
func AnonymousAgentCoreControl(s *Stack) *bedrockagentcorecontrol.Client {
	return bedrockagentcorecontrol.New(bedrockagentcorecontrol.Options{
		Region: AgentCoreRegion, BaseEndpoint: aws.String(s.APIURL), Credentials: aws.AnonymousCredentials{}, Retryer: aws.NopRetryer{}, HTTPClient: SDKHTTPClient(),
	})
}

// NewAccessKey creates a generated AgentCore access key for project projectID through the admin API
// (POST /admin/v1/projects/{project_id}/access_keys) and returns its id and secret.
func (s *Stack) NewAccessKey(t testing.TB, projectID string) (string, string) {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/admin/v1/projects/"+projectID+"/access_keys", map[string]any{},
		map[string]string{"Authorization": "Bearer " + s.AdminKey, "OpenAI-Beta": ""})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /admin/v1/projects/%s/access_keys: %d %s", projectID, r.Status, r.Body)
	}
	var body struct {
		ID     string `json:"access_key_id"`
		Secret string `json:"secret_access_key"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.ID == "" || body.Secret == "" {
		t.Fatalf("access key response %s: %v", r.Body, err)
	}
	return body.ID, body.Secret
}
