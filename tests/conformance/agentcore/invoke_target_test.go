package agentcore_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/shared/store/dynamo"
	"github.com/baton-run/baton/tests/stack"
)

// TestHarnessForInvokeFollowsEndpoints: the version an InvokeHarness call runs (engine.HarnessForInvoke on the
// stack's table) is the latest for no qualifier and DEFAULT, the pinned one for a named endpoint; another project,
// another region or account in the ARN, and an unknown endpoint are all not found.
func TestHarnessForInvokeFollowsEndpoints(t *testing.T) {
	t.Parallel()
	p := newProject(t, "invoke")
	other := newProject(t, "invoke-other")
	h := p.createHarness(t, "pinned", "version one", []types.HarnessTool{inlineTool("get_weather")})
	if _, err := p.client.CreateHarnessEndpoint(p.ctx, &bac.CreateHarnessEndpointInput{HarnessId: h.HarnessId, EndpointName: aws.String("prod")}); err != nil {
		t.Fatalf("CreateHarnessEndpoint: %v", err)
	}
	if _, err := p.client.UpdateHarness(p.ctx, &bac.UpdateHarnessInput{HarnessId: h.HarnessId,
		SystemPrompt: []types.HarnessSystemContentBlock{&types.HarnessSystemContentBlockMemberText{Value: "version two"}}}); err != nil {
		t.Fatalf("UpdateHarness: %v", err)
	}
	sealKey, _ := base64.StdEncoding.DecodeString(setup.DefaultSealKey)
	eng := engine.New(engine.Options{Store: dynamo.New(stack.DynamoDB(p.st), p.st.Table), SealKey: sealKey})
	arn := aws.ToString(h.Arn)
	for _, tc := range []struct {
		qualifier string
		version   int64
		prompt    string
	}{{"", 2, "version two"}, {"DEFAULT", 2, "version two"}, {"prod", 1, "version one"}} {
		got, err := eng.HarnessForInvoke(p.ctx, p.id, arn, tc.qualifier)
		if err != nil {
			t.Fatalf("HarnessForInvoke(%q): %v", tc.qualifier, err)
		}
		cfg, err := agentcore.DecodeConfig(got.Config)
		if err != nil || got.Version != tc.version || len(cfg.SystemPrompt) != 1 || cfg.SystemPrompt[0].Text != tc.prompt || len(cfg.Tools) != 1 {
			t.Fatalf("HarnessForInvoke(%q) = version %d %+v, %v; want %d %q", tc.qualifier, got.Version, cfg, err, tc.version, tc.prompt)
		}
	}
	for name, call := range map[string]func() error{
		"another project": func() error { _, err := eng.HarnessForInvoke(p.ctx, other.id, arn, ""); return err },
		"another region": func() error {
			_, err := eng.HarnessForInvoke(p.ctx, p.id, strings.Replace(arn, "us-east-1", "eu-west-1", 1), "")
			return err
		},
		"another account": func() error {
			_, err := eng.HarnessForInvoke(p.ctx, p.id, strings.Replace(arn, "000000000000", "123456789012", 1), "")
			return err
		},
		"an unknown endpoint": func() error { _, err := eng.HarnessForInvoke(p.ctx, p.id, arn, "staging"); return err },
		"not an ARN":          func() error { _, err := eng.HarnessForInvoke(p.ctx, p.id, aws.ToString(h.HarnessId), ""); return err },
	} {
		if err := call(); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%s: %v; want engine.ErrNotFound", name, err)
		}
	}
}

// TestProvisionedPairAndAdminAccessKeys: the pair the stack provisions from configuration authenticates for its
// project; the admin API shows a generated secret once, binds a given pair without echoing it, and refuses an id
// of another project and malformed input.
func TestProvisionedPairAndAdminAccessKeys(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	if st.AccessKeyID == "" || st.SecretAccessKey == "" {
		t.Fatalf("the stack description carries no AgentCore access key: %+v", st.Stack)
	}
	p := newProject(t, "admin")
	if _, err := stack.AgentCoreControl(st, "", "").ListHarnesses(p.ctx, &bac.ListHarnessesInput{}); err != nil {
		t.Fatalf("ListHarnesses with the provisioned pair: %v", err)
	}
	admin := map[string]string{"Authorization": "Bearer " + st.AdminKey, "OpenAI-Beta": ""}
	given := map[string]any{"access_key_id": "BATNGIVENKEY" + strings.ToUpper(p.id[len(p.id)-8:]), "secret_access_key": "given-secret-access-key-1"}
	r := st.Do(t, http.MethodPost, "/admin/v1/projects/"+p.id+"/access_keys", given, admin)
	if r.Status != http.StatusCreated || strings.Contains(string(r.Body), "given-secret-access-key-1") {
		t.Fatalf("bind a given pair: %d %s (must not echo the secret)", r.Status, r.Body)
	}
	if _, err := stack.AgentCoreControl(st, given["access_key_id"].(string), "given-secret-access-key-1").ListHarnesses(p.ctx, &bac.ListHarnessesInput{}); err != nil {
		t.Fatalf("ListHarnesses with the given pair: %v", err)
	}
	r = st.Do(t, http.MethodPost, "/admin/v1/projects/"+other(p.id)+"/access_keys", given, admin)
	if r.Status != http.StatusConflict {
		t.Fatalf("the same id for another project: %d %s", r.Status, r.Body)
	}
	for _, body := range []map[string]any{{"access_key_id": "lower-case-id-000001", "secret_access_key": "s-0000000000000000"},
		{"access_key_id": "BATNONLYTHEID0000001"}, {"unknown": 1}} {
		if r := st.Do(t, http.MethodPost, "/admin/v1/projects/"+p.id+"/access_keys", body, admin); r.Status != http.StatusBadRequest {
			t.Errorf("%v: %d %s; want 400", body, r.Status, r.Body)
		}
	}
	if r := st.Do(t, http.MethodPost, "/admin/v1/projects/"+p.id+"/access_keys", map[string]any{}, map[string]string{"OpenAI-Beta": ""}); r.Status != http.StatusUnauthorized {
		t.Errorf("without the admin key: %d", r.Status)
	}
}

func other(projectID string) string { return projectID + "-x" }
