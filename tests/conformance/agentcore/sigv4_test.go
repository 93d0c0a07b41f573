package agentcore_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// TestSigV4Rejections: a wrong secret, an unknown key id, a date 20 minutes off (either way), a tampered body, a
// tampered signed header and an unsigned request are each rejected with the documented typed error, on the
// control plane, the token vault and InvokeHarness's route alike, and nothing is written. Not parallel: it
// compares table snapshots.
func TestSigV4Rejections(t *testing.T) {
	p := newProject(t, "sigv4")
	st := p.st
	body := []byte(`{"harnessName":"signed","executionRoleArn":"` + roleARN + `"}`)
	before := stack.Snapshot(t, st)

	sdk := []struct {
		name   string
		client *bac.Client
		want   func(t *testing.T, err error)
	}{
		{"a wrong secret is AccessDeniedException", stack.AgentCoreControl(st, p.keyID, "not-the-secret-access-key"), func(t *testing.T, err error) {
			asError[*types.AccessDeniedException](t, "wrong secret", err)
		}},
		{"an unknown key id is UnauthorizedException", stack.AgentCoreControl(st, "BATNUNKNOWNKEY000001", p.secret), func(t *testing.T, err error) {
			asError[*types.UnauthorizedException](t, "unknown key", err)
		}},
		{"an unsigned request is UnauthorizedException", stack.AnonymousAgentCoreControl(st), func(t *testing.T, err error) {
			asError[*types.UnauthorizedException](t, "unsigned", err)
		}},
	}
	for _, tc := range sdk {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.client.CreateHarness(p.ctx, &bac.CreateHarnessInput{HarnessName: aws.String("signed"), ExecutionRoleArn: aws.String(roleARN)})
			tc.want(t, err)
			_, err = tc.client.CreateApiKeyCredentialProvider(p.ctx, &bac.CreateApiKeyCredentialProviderInput{Name: aws.String("k"), ApiKey: aws.String("v")})
			tc.want(t, err)
			_, err = tc.client.ListHarnesses(p.ctx, &bac.ListHarnessesInput{})
			tc.want(t, err)
		})
	}

	raw := []struct {
		name   string
		at     time.Time
		tamper func(*http.Request, *[]byte)
		status int
		shape  string
	}{
		{"a date 20 minutes in the past is UnauthorizedException", time.Now().Add(-20 * time.Minute), nil, http.StatusUnauthorized, "UnauthorizedException"},
		{"a date 20 minutes in the future is UnauthorizedException", time.Now().Add(20 * time.Minute), nil, http.StatusUnauthorized, "UnauthorizedException"},
		{"a tampered body is AccessDeniedException", time.Now(), func(_ *http.Request, b *[]byte) {
			*b = []byte(`{"harnessName":"tampered","executionRoleArn":"` + roleARN + `"}`)
		}, http.StatusForbidden, "AccessDeniedException"},
		{"a tampered signed header is AccessDeniedException", time.Now(), func(r *http.Request, _ *[]byte) {
			r.Header.Set("Content-Type", "application/x-amz-json-1.1")
		}, http.StatusForbidden, "AccessDeniedException"},
		{"a request to another path is AccessDeniedException", time.Now(), func(r *http.Request, _ *[]byte) {
			r.URL.Path = "/identities/CreateApiKeyCredentialProvider"
		}, http.StatusForbidden, "AccessDeniedException"},
	}
	for _, tc := range raw {
		t.Run(tc.name, func(t *testing.T) {
			r := signedRequest(t, st, p.keyID, p.secret, http.MethodPost, "/harnesses", body, tc.at, tc.tamper)
			wantWireError(t, tc.name, r, tc.status, tc.shape)
		})
	}
	t.Run("InvokeHarness's route is behind the same gate", func(t *testing.T) {
		r := signedRequest(t, st, p.keyID, "not-the-secret-access-key", http.MethodPost, "/harnesses/invoke?harnessArn=x", []byte(`{}`), time.Now(), nil)
		wantWireError(t, "invoke with a wrong secret", r, http.StatusForbidden, "AccessDeniedException")
	})
	t.Run("the same request correctly signed passes the gate", func(t *testing.T) {
		// A GET: proves the signature path without writing.
		r := signedRequest(t, st, p.keyID, p.secret, http.MethodGet, "/harnesses?maxResults=5", nil, time.Now().Add(-14*time.Minute), nil)
		if r.Status != http.StatusOK {
			t.Fatalf("signed GET 14 minutes old: %d %s", r.Status, r.Body)
		}
	})

	stack.AssertUnchanged(t, before, stack.Snapshot(t, st))
}
