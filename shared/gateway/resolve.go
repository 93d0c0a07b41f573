package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
)

// EnvGatewayURLs names the deployment setting that maps gateway ARNs to MCP URLs (docs/tools.md "Gateway"):
// a JSON object `{"<gatewayArn>": "<http(s) MCP URL>", …}`.
const EnvGatewayURLs = "BATON_GATEWAY_URLS"

// ErrUnknownGateway: a StaticResolver has no URL for the ARN.
var ErrUnknownGateway = errors.New("no MCP URL is configured for this gateway")

// Resolver finds a gateway's MCP URL from its ARN (the connector's port, package harness/mcp).
type Resolver interface {
	GatewayURL(ctx context.Context, gatewayARN string) (string, error)
}

// StaticResolver maps gateway ARNs to MCP URLs from deployment configuration (LoadURLs). An ARN it does not map
// goes to Next; with Next nil it is an error wrapping ErrUnknownGateway that names the ARN and EnvGatewayURLs.
type StaticResolver struct {
	URLs map[string]string
	Next Resolver
}

var _ Resolver = StaticResolver{}

// GatewayURL returns the configured URL of gatewayARN, or asks Next.
func (s StaticResolver) GatewayURL(ctx context.Context, gatewayARN string) (string, error) {
	if u, ok := s.URLs[gatewayARN]; ok {
		return u, nil
	}
	if s.Next != nil {
		return s.Next.GatewayURL(ctx, gatewayARN)
	}
	return "", fmt.Errorf("%w: %s (set it in %s)", ErrUnknownGateway, gatewayARN, EnvGatewayURLs)
}

// SettingError is a malformed deployment setting: Name is the environment variable, Reason what is wrong.
type SettingError struct {
	Name   string
	Reason string
}

func (e *SettingError) Error() string { return e.Name + " " + e.Reason }

// LoadURLs reads EnvGatewayURLs through getenv (os.Getenv in a deployed process): unset or blank gives an empty
// map. Every key must be a gateway ARN (ParseARN) and every value an absolute http or https URL. Errors: a
// *SettingError naming EnvGatewayURLs and the first bad entry (in key order), without the URL's user info.
func LoadURLs(getenv func(string) string) (map[string]string, error) {
	v := strings.TrimSpace(getenv(EnvGatewayURLs))
	if v == "" {
		return map[string]string{}, nil
	}
	bad := func(reason string, args ...any) error {
		return &SettingError{Name: EnvGatewayURLs, Reason: fmt.Sprintf(reason, args...)}
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(v), &m); err != nil || m == nil {
		return nil, bad(`must be a JSON object {"<gatewayArn>": "<MCP URL>", …} of strings`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := ParseARN(k); err != nil {
			return nil, bad("key %q must be a gateway ARN (arn:aws:bedrock-agentcore:<region>:<account>:gateway/<id>)", k)
		}
		u, err := url.Parse(m[k])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, bad("value of %q must be an absolute http or https URL", k)
		}
	}
	return m, nil
}

// ControlPlane is the part of the bedrockagentcorecontrol client AWSResolver uses (*cp.Client satisfies it).
type ControlPlane interface {
	GetGateway(ctx context.Context, in *cp.GetGatewayInput, optFns ...func(*cp.Options)) (*cp.GetGatewayOutput, error)
}

// AWSResolver resolves gateway URLs with the control plane's GetGateway (gatewayIdentifier = the ARN's last path
// segment, called in the ARN's region) and caches each URL for the life of the process (a gateway's URL does not
// change). It is safe for concurrent use.
type AWSResolver struct {
	client ControlPlane
	mu     sync.Mutex
	urls   map[string]string
}

var _ Resolver = (*AWSResolver)(nil)

// NewAWSResolver returns an AWSResolver on client.
func NewAWSResolver(client ControlPlane) *AWSResolver {
	return &AWSResolver{client: client, urls: map[string]string{}}
}

// GatewayURL returns the gatewayUrl of gatewayARN. Errors: the ARN is not a gateway ARN (ErrInvalidARN),
// GetGateway fails (the SDK's error, wrapped with the ARN), or the gateway has no gatewayUrl (with its status).
// Failures are not cached.
func (r *AWSResolver) GatewayURL(ctx context.Context, gatewayARN string) (string, error) {
	r.mu.Lock()
	u, ok := r.urls[gatewayARN]
	r.mu.Unlock()
	if ok {
		return u, nil
	}
	a, err := ParseARN(gatewayARN)
	if err != nil {
		return "", err
	}
	out, err := r.client.GetGateway(ctx, &cp.GetGatewayInput{GatewayIdentifier: &a.ID}, func(o *cp.Options) { o.Region = a.Region })
	if err != nil {
		return "", fmt.Errorf("GetGateway %s: %w", gatewayARN, err)
	}
	if out.GatewayUrl == nil || *out.GatewayUrl == "" {
		return "", fmt.Errorf("GetGateway %s: the gateway has no gatewayUrl (status %s)", gatewayARN, out.Status)
	}
	r.mu.Lock()
	r.urls[gatewayARN] = *out.GatewayUrl
	r.mu.Unlock()
	return *out.GatewayUrl, nil
}

// Configure returns what a runtime's MCP connector needs for gateways (docs/tools.md "Gateway"): a resolver that
// looks up BATON_GATEWAY_URLS (read through getenv, LoadURLs) first and asks the control plane's GetGateway (a
// bedrockagentcorecontrol client made from awsCfg) for every other ARN, and a Signer with awsCfg's credentials.
// Errors: LoadURLs's *SettingError.
func Configure(getenv func(string) string, awsCfg aws.Config) (StaticResolver, Signer, error) {
	urls, err := LoadURLs(getenv)
	if err != nil {
		return StaticResolver{}, Signer{}, err
	}
	return StaticResolver{URLs: urls, Next: NewAWSResolver(cp.NewFromConfig(awsCfg))}, Signer{Credentials: awsCfg.Credentials}, nil
}
