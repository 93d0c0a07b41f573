package sigv4auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Verification failures. ErrUnsigned, ErrMalformed, ErrUnknownKey and ErrClockSkew are authentication failures
// (the AgentCore API answers UnauthorizedException); ErrSignatureMismatch means the caller knows a key id but the
// signature is wrong (AccessDeniedException).
var (
	ErrUnsigned          = errors.New("the request is not signed with AWS Signature Version 4")
	ErrMalformed         = errors.New("the Authorization header is not a valid AWS4-HMAC-SHA256 authorization")
	ErrUnknownKey        = errors.New("the access key id is unknown")
	ErrClockSkew         = errors.New("the request time is too far from the server time")
	ErrSignatureMismatch = errors.New("the request signature does not match")
)

// DefaultMaxSkew is the largest accepted difference between X-Amz-Date and the server clock.
const DefaultMaxSkew = 15 * time.Minute

const (
	algorithm  = "AWS4-HMAC-SHA256"
	dateFormat = "20060102T150405Z"
)

// Lookup returns the project and the secret access key of an access key id; it returns an error wrapping
// ErrUnknownKey for an id it does not know, any other error when it cannot answer.
type Lookup func(ctx context.Context, accessKeyID string) (projectID, secret string, err error)

// Verifier checks SigV4 signatures. Service is the signing name the credential scope must carry
// ("bedrock-agentcore"); MaxSkew 0 means DefaultMaxSkew; Now nil means time.Now. It is safe for concurrent use.
type Verifier struct {
	Service string
	MaxSkew time.Duration
	Now     func() time.Time
	Lookup  Lookup
}

type signedPathKey struct{}

// WithSignedPath records the path the client signed when the handler sees another one: behind an API Gateway REST
// API stage, `/dev/harnesses/x` reaches the function as `/harnesses/x` and the request context's path keeps the
// stage. Verify uses it instead of the request's own path.
func WithSignedPath(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, signedPathKey{}, path)
}

// authorization is a parsed Authorization header.
type authorization struct {
	keyID, date, region, service string
	signedHeaders                string
	signature                    string
}

func parseAuthorization(h string) (authorization, error) {
	rest, ok := strings.CutPrefix(h, algorithm+" ")
	if !ok {
		return authorization{}, ErrMalformed
	}
	var a authorization
	var credential string
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return authorization{}, ErrMalformed
		}
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			a.signedHeaders = v
		case "Signature":
			a.signature = v
		default:
			return authorization{}, ErrMalformed
		}
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[0] == "" || scope[4] != "aws4_request" || a.signedHeaders == "" || a.signature == "" {
		return authorization{}, ErrMalformed
	}
	a.keyID, a.date, a.region, a.service = scope[0], scope[1], scope[2], scope[3]
	return a, nil
}

// Verify checks r's signature over body (the request body, already read) and returns the project of its access
// key. Errors wrap ErrUnsigned, ErrMalformed, ErrUnknownKey, ErrClockSkew or ErrSignatureMismatch; any other
// error is the Lookup's failure to answer.
func (v *Verifier) Verify(r *http.Request, body []byte) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", ErrUnsigned
	}
	a, err := parseAuthorization(h)
	if err != nil {
		return "", err
	}
	if a.service != v.Service {
		return "", fmt.Errorf("%w: signing name %q, want %q", ErrMalformed, a.service, v.Service)
	}
	signedNames := strings.Split(a.signedHeaders, ";")
	hasHost, hasDate := false, false
	for _, n := range signedNames {
		hasHost = hasHost || n == "host"
		hasDate = hasDate || n == "x-amz-date"
	}
	if !hasHost || !hasDate {
		return "", fmt.Errorf("%w: host and x-amz-date must be signed", ErrMalformed)
	}
	when, err := time.Parse(dateFormat, r.Header.Get("X-Amz-Date"))
	if err != nil || when.Format("20060102") != a.date {
		return "", fmt.Errorf("%w: X-Amz-Date", ErrMalformed)
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	skew := v.MaxSkew
	if skew <= 0 {
		skew = DefaultMaxSkew
	}
	if d := now().Sub(when); d > skew || d < -skew {
		return "", ErrClockSkew
	}
	project, secret, err := v.Lookup(r.Context(), a.keyID)
	if err != nil {
		return "", err
	}

	// The request as the client signed it.
	u := &url.URL{Scheme: "https", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	if p, ok := r.Context().Value(signedPathKey{}).(string); ok && p != "" {
		u.Path, u.RawPath = p, ""
	}
	signed, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	signed.URL = u
	signed.Host = r.Host
	for _, n := range signedNames {
		switch n {
		case "host":
		case "content-length":
			n, err := contentLength(r)
			if err != nil {
				return "", err
			}
			signed.ContentLength = n
		default:
			vals := r.Header.Values(n)
			if len(vals) == 0 {
				return "", fmt.Errorf("%w: signed header %s is missing", ErrSignatureMismatch, n)
			}
			signed.Header[http.CanonicalHeaderKey(n)] = append([]string(nil), vals...)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: a.keyID, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(r.Context(), creds, signed, hex.EncodeToString(sum[:]), a.service, a.region, when); err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	want, err := parseAuthorization(signed.Header.Get("Authorization"))
	if err != nil {
		return "", fmt.Errorf("recompute signature: %w", err)
	}
	same := subtle.ConstantTimeCompare([]byte(want.signature), []byte(a.signature)) == 1
	if !same || want.signedHeaders != a.signedHeaders {
		return "", ErrSignatureMismatch
	}
	return project, nil
}

// contentLength returns the request's Content-Length (net/http moves it out of Header).
func contentLength(r *http.Request) (int64, error) {
	if r.ContentLength > 0 {
		return r.ContentLength, nil
	}
	if s := r.Header.Get("Content-Length"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: Content-Length", ErrMalformed)
		}
		return n, nil
	}
	return 0, nil
}
