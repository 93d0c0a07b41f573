package awsbrowser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	"github.com/chromedp/chromedp/remote"

	"github.com/baton-run/baton/shared/browser"
)

// DefaultIdentifier is the AgentCore built-in browser, used when a declaration gives no browser_arn.
const DefaultIdentifier = "aws.browser.v1"

// DefaultSessionTimeoutSeconds is the lifetime the provider asks for each AWS browser session (the service's own
// default). AWS ends a session at its timeout whatever its activity; the pool then opens a new one on the next
// action, with a blank page.
const DefaultSessionTimeoutSeconds = 3600

// DialTimeout bounds opening the automation stream (the WebSocket handshake).
const DialTimeout = 30 * time.Second

// SigningName is the SigV4 service name of the AgentCore data plane, also used for the automation stream.
const SigningName = "bedrock-agentcore"

// emptyPayloadHash is the SHA-256 of an empty body: the automation stream's upgrade request has none.
var emptyPayloadHash = func() string { s := sha256.Sum256(nil); return hex.EncodeToString(s[:]) }()

// Config configures the provider; zero values mean the defaults.
type Config struct {
	// SessionTimeoutSeconds is sent as StartBrowserSession's sessionTimeoutSeconds (0 =
	// DefaultSessionTimeoutSeconds; the service accepts 1–28800).
	SessionTimeoutSeconds int32
	// Clock returns the signing time (nil = time.Now).
	Clock func() time.Time
}

// Provider opens AgentCore Browser sessions; it implements browser.Provider.
type Provider struct {
	client *bedrockagentcore.Client
	cfg    Config
}

var _ browser.Provider = (*Provider)(nil)

// New returns the provider over client, whose options (region, credentials, BaseEndpoint) also sign and address
// the automation stream.
func New(client *bedrockagentcore.Client, cfg Config) *Provider {
	if cfg.SessionTimeoutSeconds <= 0 {
		cfg.SessionTimeoutSeconds = DefaultSessionTimeoutSeconds
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Provider{client: client, cfg: cfg}
}

// Identifier returns the browserIdentifier of a declaration's browser_arn: the ARN's last path segment
// ("arn:aws:bedrock-agentcore:us-west-2:123456789012:browser-custom/my_browser-a1b2c3d4e5" → "my_browser-a1b2c3d4e5"),
// DefaultIdentifier for "".
func Identifier(browserARN string) string {
	if browserARN == "" {
		return DefaultIdentifier
	}
	if i := strings.LastIndexByte(browserARN, '/'); i >= 0 {
		return browserARN[i+1:]
	}
	return browserARN
}

// Open starts an AWS browser session for key (StartBrowserSession on Identifier(key.BrowserARN), viewport
// browser.ViewportWidth × browser.ViewportHeight) and returns a chromedp allocator attached to its automation
// stream; the stream is dialled on the tab's first action. Close stops the session (StopBrowserSession). Errors:
// the service's refusal of StartBrowserSession, or no credentials to sign the stream (the session is then
// stopped).
func (p *Provider) Open(ctx context.Context, key browser.Key) (browser.Browser, error) {
	id := Identifier(key.BrowserARN)
	out, err := p.client.StartBrowserSession(ctx, &bedrockagentcore.StartBrowserSessionInput{
		BrowserIdentifier:     aws.String(id),
		SessionTimeoutSeconds: aws.Int32(p.cfg.SessionTimeoutSeconds),
		ViewPort:              &types.ViewPort{Width: aws.Int32(browser.ViewportWidth), Height: aws.Int32(browser.ViewportHeight)},
	})
	if err != nil {
		return browser.Browser{}, fmt.Errorf("start an AgentCore browser session on %s: %w", id, err)
	}
	sid := aws.ToString(out.SessionId)
	stop := func(ctx context.Context) error {
		_, err := p.client.StopBrowserSession(ctx, &bedrockagentcore.StopBrowserSessionInput{
			BrowserIdentifier: aws.String(id), SessionId: aws.String(sid)})
		if err != nil {
			return fmt.Errorf("stop AgentCore browser session %s on %s: %w", sid, id, err)
		}
		return nil
	}
	wsURL, header, err := p.automation(ctx, id, sid)
	if err != nil {
		return browser.Browser{}, errors.Join(err, stop(ctx))
	}
	alloc, cancel := remote.NewAllocator(context.Background(), wsURL, remote.NoModifyURL, remote.WithDialHTTPHeader(header),
		remote.WithDialTimeout(DialTimeout))
	return browser.Browser{
		Allocator: alloc,
		Close: func(ctx context.Context) error {
			cancel() // closes the stream
			return stop(ctx)
		},
	}, nil
}

// automation returns the automation stream's WebSocket URL of session sid of browser id and the signed headers of
// its upgrade request (docs/tools.md "Browser", "AWS automation stream"): the URL is the data-plane endpoint the
// client resolves (its BaseEndpoint when set) with the path /browser-streams/{id}/sessions/{sid}/automation and
// the scheme wss (ws for an http endpoint); the headers are those of a GET of that URL signed with SigV4 (service
// bedrock-agentcore, the client's region and credentials, an empty body): X-Amz-Date, Authorization and, with
// temporary credentials, X-Amz-Security-Token. The dialler sends the URL's host as Host, as signed.
func (p *Provider) automation(ctx context.Context, id, sid string) (string, http.Header, error) {
	o := p.client.Options()
	ep, err := o.EndpointResolverV2.ResolveEndpoint(ctx, bedrockagentcore.EndpointParameters{
		Region:       aws.String(o.Region),
		Endpoint:     o.BaseEndpoint,
		UseFIPS:      aws.Bool(o.EndpointOptions.UseFIPSEndpoint == aws.FIPSEndpointStateEnabled),
		UseDualStack: aws.Bool(o.EndpointOptions.UseDualStackEndpoint == aws.DualStackEndpointStateEnabled),
	})
	if err != nil {
		return "", nil, fmt.Errorf("resolve the AgentCore data-plane endpoint: %w", err)
	}
	u := ep.URI
	u.Path = strings.TrimSuffix(u.Path, "/") + "/browser-streams/" + url.PathEscape(id) + "/sessions/" + url.PathEscape(sid) + "/automation"
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	if o.Credentials == nil {
		return "", nil, errors.New("sign the browser automation stream: the AgentCore client has no credentials")
	}
	creds, err := o.Credentials.Retrieve(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("sign the browser automation stream: get credentials: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", nil, fmt.Errorf("sign the browser automation stream: %w", err)
	}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, emptyPayloadHash, SigningName, o.Region, p.cfg.Clock().UTC()); err != nil {
		return "", nil, fmt.Errorf("sign the browser automation stream: %w", err)
	}
	header := req.Header.Clone()
	header.Set("User-Agent", "Baton-Browser/1.0 (Session: "+sid+")")
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	case "http":
		u.Scheme = "ws"
	default:
		return "", nil, fmt.Errorf("the AgentCore data-plane endpoint %q is not http or https", u.Redacted())
	}
	return u.String(), header, nil
}
