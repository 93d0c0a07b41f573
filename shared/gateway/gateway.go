package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// SigningName is the SigV4 signing name (service) of an AgentCore gateway's MCP endpoint (docs/tools.md "Gateway").
const SigningName = "bedrock-agentcore"

// ErrInvalidARN: the value is not a gateway ARN.
var ErrInvalidARN = errors.New("not an AgentCore gateway ARN (arn:<partition>:bedrock-agentcore:<region>:<account>:gateway/<id>)")

// arnPattern is a gateway ARN: partition, region, 12-digit account, gateway id.
var arnPattern = regexp.MustCompile(`^arn:aws(-[a-z-]+)?:bedrock-agentcore:([a-z0-9-]+):[0-9]{12}:gateway/([a-zA-Z0-9._-]{1,100})$`)

// ARN is the part of a gateway ARN Baton uses: the region (e.g. "us-west-2") and the gateway id, the ARN's last
// path segment (e.g. "my-gw-abcdefghij"), which GetGateway takes as gatewayIdentifier.
type ARN struct {
	Region string
	ID     string
}

// ParseARN reads a gateway ARN. Errors wrap ErrInvalidARN.
func ParseARN(s string) (ARN, error) {
	m := arnPattern.FindStringSubmatch(s)
	if m == nil {
		return ARN{}, fmt.Errorf("%w: %q", ErrInvalidARN, s)
	}
	return ARN{Region: m[2], ID: m[3]}, nil
}

// Signer builds, per gateway, an http.RoundTripper that signs every request with SigV4 (signing name SigningName,
// the gateway ARN's region) using Credentials — the runtime's own, e.g. aws.Config.Credentials, which caches and
// refreshes them. It implements the connector's gateway signer port (package harness/mcp).
type Signer struct {
	Credentials aws.CredentialsProvider
	// Now returns the signing time; nil means time.Now.
	Now func() time.Time
}

// Transport returns base wrapped in a signing RoundTripper for the gateway gatewayARN. Errors: the ARN is not a
// gateway ARN (ErrInvalidARN), or the Signer has no Credentials.
func (s Signer) Transport(base http.RoundTripper, gatewayARN string) (http.RoundTripper, error) {
	a, err := ParseARN(gatewayARN)
	if err != nil {
		return nil, err
	}
	if s.Credentials == nil {
		return nil, errors.New("no AWS credentials to sign gateway requests with")
	}
	if base == nil {
		base = http.DefaultTransport
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return &signingTransport{base: base, creds: s.Credentials, region: a.Region, now: now, signer: v4.NewSigner()}, nil
}

// signingTransport signs each request, computing the SHA-256 of its body (read and restored).
type signingTransport struct {
	base   http.RoundTripper
	creds  aws.CredentialsProvider
	region string
	now    func() time.Time
	signer *v4.Signer
}

// emptySHA256 is the hex SHA-256 of an empty body.
var emptySHA256 = func() string { s := sha256.Sum256(nil); return hex.EncodeToString(s[:]) }()

// RoundTrip signs a clone of r (the caller's request is not changed) and sends it. Errors: the body cannot be
// read, credentials cannot be retrieved, or the base transport's error. The error never carries a secret.
func (t *signingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	out := r.Clone(ctx)
	hash := emptySHA256
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("sign gateway request: read body: %w", err)
		}
		sum := sha256.Sum256(body)
		hash = hex.EncodeToString(sum[:])
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	creds, err := t.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("sign gateway request: retrieve credentials: %w", err)
	}
	// Headers from an earlier attempt must not be signed twice.
	out.Header.Del("Authorization")
	out.Header.Del("X-Amz-Date")
	out.Header.Del("X-Amz-Security-Token")
	if err := t.signer.SignHTTP(ctx, creds, out, hash, SigningName, t.region, t.now().UTC()); err != nil {
		return nil, fmt.Errorf("sign gateway request: %w", err)
	}
	return t.base.RoundTrip(out)
}
