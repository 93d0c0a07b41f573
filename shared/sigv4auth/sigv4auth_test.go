package sigv4auth_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/baton-run/baton/shared/sigv4auth"
)

const (
	keyID   = "BATNTESTKEY000000001"
	secret  = "test-secret-access-key-0001"
	service = "bedrock-agentcore"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func verifier() *sigv4auth.Verifier {
	return &sigv4auth.Verifier{Service: service, Now: func() time.Time { return now }, Lookup: func(_ context.Context, id string) (string, string, error) {
		if id != keyID {
			return "", "", fmt.Errorf("key %s: %w", id, sigv4auth.ErrUnknownKey)
		}
		return "proj_a", secret, nil
	}}
}

// signed builds a request to host/path with body, signed as the AWS SDK signs it.
func signed(t *testing.T, path string, body []byte, id, key string, at time.Time, svc string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://baton.example:8080"+path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Amz-Sdk-Invocation-Id", "7f1c")
	r.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: key}, r, hex.EncodeToString(sum[:]), svc, "us-east-1", at); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"harnessName":"weather"}`)
	cases := []struct {
		name    string
		req     func(t *testing.T) (*http.Request, []byte)
		wantErr error
	}{
		{"a correctly signed request names its project", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses?maxResults=5&nextToken=a%2Fb", body, keyID, secret, now, service), body
		}, nil},
		{"headers a proxy adds after signing are ignored", func(t *testing.T) (*http.Request, []byte) {
			r := signed(t, "/harnesses", body, keyID, secret, now, service)
			r.Header.Set("X-Forwarded-For", "10.0.0.1")
			r.Header.Set("Via", "1.1 proxy")
			return r, body
		}, nil},
		{"a date 14 minutes off is accepted", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, secret, now.Add(-14*time.Minute), service), body
		}, nil},
		{"an unsigned request is rejected", func(t *testing.T) (*http.Request, []byte) {
			r := httptest.NewRequest(http.MethodPost, "http://baton.example:8080/harnesses", bytes.NewReader(body))
			return r, body
		}, sigv4auth.ErrUnsigned},
		{"a bearer token is not a signature", func(t *testing.T) (*http.Request, []byte) {
			r := httptest.NewRequest(http.MethodPost, "http://baton.example:8080/harnesses", bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer sk-x")
			return r, body
		}, sigv4auth.ErrMalformed},
		{"a wrong secret is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, "another-secret-access-key", now, service), body
		}, sigv4auth.ErrSignatureMismatch},
		{"an unknown key id is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, "BATNUNKNOWN000000001", secret, now, service), body
		}, sigv4auth.ErrUnknownKey},
		{"a date 20 minutes in the past is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, secret, now.Add(-20*time.Minute), service), body
		}, sigv4auth.ErrClockSkew},
		{"a date 20 minutes in the future is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, secret, now.Add(20*time.Minute), service), body
		}, sigv4auth.ErrClockSkew},
		{"a tampered body is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, secret, now, service), []byte(`{"harnessName":"weather2"}`)
		}, sigv4auth.ErrSignatureMismatch},
		{"a tampered signed header is rejected", func(t *testing.T) (*http.Request, []byte) {
			r := signed(t, "/harnesses", body, keyID, secret, now, service)
			r.Header.Set("Amz-Sdk-Invocation-Id", "other")
			return r, body
		}, sigv4auth.ErrSignatureMismatch},
		{"another path is rejected", func(t *testing.T) (*http.Request, []byte) {
			r := signed(t, "/harnesses/a-0123456789", body, keyID, secret, now, service)
			r.URL.Path = "/harnesses/b-0123456789"
			return r, body
		}, sigv4auth.ErrSignatureMismatch},
		{"another signing name is rejected", func(t *testing.T) (*http.Request, []byte) {
			return signed(t, "/harnesses", body, keyID, secret, now, "execute-api"), body
		}, sigv4auth.ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, b := tc.req(t)
			project, err := verifier().Verify(r, b)
			if tc.wantErr == nil {
				if err != nil || project != "proj_a" {
					t.Fatalf("Verify = %q, %v; want proj_a, nil", project, err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Verify error = %v; want %v", err, tc.wantErr)
			}
			if project != "" {
				t.Fatalf("a rejected request named project %q", project)
			}
		})
	}
}

// TestVerifyStagePrefix: behind a REST API stage the client signs /dev/harnesses while the function sees
// /harnesses; the signed path recorded in the context is what is verified.
func TestVerifyStagePrefix(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	r := signed(t, "/dev/harnesses", body, keyID, secret, now, service)
	r.URL.Path = "/harnesses"
	if _, err := verifier().Verify(r, body); !errors.Is(err, sigv4auth.ErrSignatureMismatch) {
		t.Fatalf("without the stage path: %v; want a mismatch", err)
	}
	r = r.WithContext(sigv4auth.WithSignedPath(r.Context(), "/dev/harnesses"))
	if p, err := verifier().Verify(r, body); err != nil || p != "proj_a" {
		t.Fatalf("with the stage path: %q, %v", p, err)
	}
}
