package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/netguard"
)

// ClientName and ClientVersion identify Baton in the MCP initialize request.
const (
	ClientName    = "baton"
	ClientVersion = "0.1.0"
)

// Connector connects HTTP MCP servers. The zero value dials through netguard (no link-local addresses such as
// the instance metadata and ECS credential endpoints) and connects no agentcore_gateway (Gateways and Signer nil).
type Connector struct {
	// Transport is the base RoundTripper of every session's http.Client; nil means a netguard transport.
	Transport http.RoundTripper
	// Gateways finds an agentcore_gateway's MCP URL from its ARN (docs/tools.md "Gateway"): on AWS the control
	// plane's GetGateway, locally the BATON_GATEWAY_URLS mapping (package gateway). nil: connecting a gateway is
	// an error.
	Gateways GatewayResolver
	// Signer signs the requests of a gateway whose outboundAuth is awsIam (or omitted) with SigV4 (package
	// gateway). nil: connecting such a gateway is an error.
	Signer GatewaySigner
}

// GatewayResolver returns the MCP URL of a gateway (e.g.
// "https://my-gw-abcdefghij.gateway.bedrock-agentcore.us-west-2.amazonaws.com/mcp") from its ARN
// ("arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gw-abcdefghij"). Errors name the ARN.
type GatewayResolver interface {
	GatewayURL(ctx context.Context, gatewayARN string) (string, error)
}

// GatewaySigner wraps base in a RoundTripper that signs every request for the gateway gatewayARN (SigV4, signing
// name bedrock-agentcore, the ARN's region, the runtime's credentials). Errors: the ARN or the credentials are
// unusable.
type GatewaySigner interface {
	Transport(base http.RoundTripper, gatewayARN string) (http.RoundTripper, error)
}

// Outbound auth modes of an agentcore_gateway (docs/tools.md "Gateway"): the member of its outboundAuth union.
const (
	AuthAWSIAM = "awsIam"
	AuthNone   = "none"
	AuthOAuth  = "oauth"
)

// ErrOAuthUnsupported: a gateway's outboundAuth is oauth, which this connector does not implement (the AgentCore
// front door rejects it at InvokeHarness; docs/tools.md "Gateway").
var ErrOAuthUnsupported = errors.New("outboundAuth oauth is not supported by Baton: use awsIam or none")

// GatewayAuth returns the outbound auth mode of a stored outbound_auth member: AuthAWSIAM for empty or null (the
// default), else the one member of the union `{awsIam:{}}` | `{none:{}}` | `{oauth:{…}}`. Errors: anything
// else (not an object, no member, several members, an unknown member).
func GatewayAuth(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return AuthAWSIAM, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return "", fmt.Errorf("outboundAuth must be an object with exactly one of awsIam, none, oauth")
	}
	for k := range m {
		switch k {
		case AuthAWSIAM, AuthNone, AuthOAuth:
			return k, nil
		}
		return "", fmt.Errorf("outboundAuth member %q is not one of awsIam, none, oauth", k)
	}
	return "", nil // unreachable: len(m) == 1
}

// gateway returns the MCP URL and the RoundTripper of an agentcore_gateway: base signed for awsIam, base as is for
// none. Errors: oauth (ErrOAuthUnsupported), a malformed outboundAuth, no resolver or signer, or theirs.
func (c *Connector) gateway(ctx context.Context, g harness.MCPServer, base http.RoundTripper) (string, http.RoundTripper, error) {
	auth, err := GatewayAuth(g.Gateway.OutboundAuth)
	if err != nil {
		return "", nil, err
	}
	if auth == AuthOAuth {
		return "", nil, ErrOAuthUnsupported
	}
	if c.Gateways == nil {
		return "", nil, errors.New("this runtime has no gateway resolver")
	}
	rt := base
	if auth == AuthAWSIAM {
		if c.Signer == nil {
			return "", nil, errors.New("this runtime cannot sign gateway requests (outboundAuth awsIam)")
		}
		if rt, err = c.Signer.Transport(base, g.Gateway.ARN); err != nil {
			return "", nil, err
		}
	}
	u, err := c.Gateways.GatewayURL(ctx, g.Gateway.ARN)
	if err != nil {
		return "", nil, err
	}
	return u, rt, nil
}

var _ harness.MCPConnector = (*Connector)(nil)

// Connect initializes a client session with server.URL over streamable HTTP (no standalone SSE stream: the harness
// only sends requests). server.Headers (except the transport's own: Accept, Content-Type, Content-Length, Host,
// Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id) and the bearer Authorization are set on every request.
// For an agentcore_gateway (server.Gateway set) the URL comes from Gateways and, for outboundAuth awsIam (the
// default), every request (initialize, notifications, tools/list, tools/call, the session DELETE) is signed by
// Signer; none sends no credentials; oauth is ErrOAuthUnsupported. Errors: the gateway cannot be resolved or
// signed for, the server is unreachable, answers with an HTTP error, or fails initialization; the error never
// contains the bearer token.
func (c *Connector) Connect(ctx context.Context, server harness.MCPServer) (harness.MCPSession, error) {
	base := c.Transport
	if base == nil {
		// server_url is the caller's choice: never let it reach the deployment's credential endpoints.
		base = netguard.Transport()
	}
	if server.Gateway != nil {
		u, rt, err := c.gateway(ctx, server, base)
		if err != nil {
			return nil, fmt.Errorf("gateway %q (%s): %w", server.Label, server.Gateway.ARN, err)
		}
		server.URL, base = u, rt
	}
	rt := base
	if server.BearerToken != "" || len(server.Headers) > 0 {
		h := http.Header{}
		for k, v := range server.Headers {
			if !transportHeaders[http.CanonicalHeaderKey(k)] {
				h.Set(k, v)
			}
		}
		if server.BearerToken != "" {
			h.Set("Authorization", "Bearer "+server.BearerToken)
		}
		rt = &headers{base: base, header: h}
	}
	secrets := []string{server.BearerToken}
	for _, v := range server.Headers {
		secrets = append(secrets, v)
	}
	t := &sdk.StreamableClientTransport{
		Endpoint:             server.URL,
		HTTPClient:           &http.Client{Transport: rt},
		MaxRetries:           1,
		DisableStandaloneSSE: true,
	}
	client := sdk.NewClient(&sdk.Implementation{Name: ClientName, Version: ClientVersion}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, redact(fmt.Errorf("connect %s: %w", server.URL, err), secrets)
	}
	return &session{cs: cs, secrets: secrets}, nil
}

// transportHeaders belong to the streamable HTTP transport; configured headers never replace them.
var transportHeaders = map[string]bool{"Accept": true, "Content-Type": true, "Content-Length": true, "Host": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true}

// headers sets the configured headers (and the bearer Authorization) on every request: initialize,
// notifications, tools/list, tools/call and the session DELETE.
type headers struct {
	base   http.RoundTripper
	header http.Header
}

func (h *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return h.base.RoundTrip(r)
}

// session is one initialized client session; secrets are the values redacted from its errors.
type session struct {
	cs      *sdk.ClientSession
	secrets []string
}

// ListTools returns every tool of the server, following tools/list cursors.
func (s *session) ListTools(ctx context.Context) ([]harness.MCPTool, error) {
	var out []harness.MCPTool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, redact(err, s.secrets)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q input schema: %w", t.Name, err)
		}
		out = append(out, harness.MCPTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out, nil
}

// CallTool sends tools/call with the JSON object arguments as raw JSON (a json.RawMessage in the go-sdk's
// CallToolParams, so the bytes the model produced reach the server unchanged — no float64 round trip) and maps the
// result: Output is the structuredContent when present, else the text parts joined as a JSON string; IsError is
// the result's isError. Arguments that are not one JSON object are an error (nothing is sent); empty means {}.
func (s *session) CallTool(ctx context.Context, name string, arguments json.RawMessage) (harness.MCPResult, error) {
	args := bytes.TrimSpace(arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return harness.MCPResult{}, fmt.Errorf("arguments of %q are not a JSON object", name)
	}
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return harness.MCPResult{}, redact(err, s.secrets)
	}
	return Observe(res)
}

// Observe maps a tools/call result to the observed output (docs/mcp.md "Results").
func Observe(res *sdk.CallToolResult) (harness.MCPResult, error) {
	out := harness.MCPResult{IsError: res.IsError}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return harness.MCPResult{}, fmt.Errorf("structured content: %w", err)
		}
		out.Output = b
		return out, nil
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	b, _ := json.Marshal(text.String())
	out.Output = b
	return out, nil
}

// Close ends the session (an HTTP DELETE of the session, best effort).
func (s *session) Close() error { return s.cs.Close() }

// redact removes the bearer token and header values from an error message (defence in depth: the SDK does not
// echo headers).
func redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, v := range secrets {
		if v != "" && strings.Contains(msg, v) {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}
