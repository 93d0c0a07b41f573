package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/baton-run/baton/shared/netguard"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-run/baton/shared/harness"
)

// ClientName and ClientVersion identify Baton in the MCP initialize request.
const (
	ClientName    = "baton"
	ClientVersion = "0.1.0"
)

// Connector connects HTTP MCP servers. The zero value dials through netguard (no link-local addresses such as
// the instance metadata and ECS credential endpoints).
type Connector struct {
	// Transport is the base RoundTripper of every session's http.Client; nil means a netguard transport.
	Transport http.RoundTripper
}

var _ harness.MCPConnector = (*Connector)(nil)

// Connect initializes a client session with server.URL over streamable HTTP (no standalone SSE stream: the harness
// only sends requests). Errors: the server is unreachable, answers with an HTTP error, or fails initialization;
// the error never contains the bearer token.
func (c *Connector) Connect(ctx context.Context, server harness.MCPServer) (harness.MCPSession, error) {
	base := c.Transport
	if base == nil {
		// server_url is the caller's choice: never let it reach the deployment's credential endpoints.
		base = netguard.Transport()
	}
	rt := base
	if server.BearerToken != "" {
		rt = &bearer{base: base, header: "Bearer " + server.BearerToken}
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
		return nil, redact(fmt.Errorf("connect %s: %w", server.URL, err), server.BearerToken)
	}
	return &session{cs: cs, token: server.BearerToken}, nil
}

// bearer adds the Authorization header to every request.
type bearer struct {
	base   http.RoundTripper
	header string
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.header)
	return b.base.RoundTrip(r)
}

// session is one initialized client session.
type session struct {
	cs    *sdk.ClientSession
	token string
}

// ListTools returns every tool of the server, following tools/list cursors.
func (s *session) ListTools(ctx context.Context) ([]harness.MCPTool, error) {
	var out []harness.MCPTool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, redact(err, s.token)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q input schema: %w", t.Name, err)
		}
		out = append(out, harness.MCPTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out, nil
}

// CallTool sends tools/call with the JSON object arguments and maps the result: Output is the structuredContent
// when present, else the text parts joined as a JSON string; IsError is the result's isError.
func (s *session) CallTool(ctx context.Context, name string, arguments json.RawMessage) (harness.MCPResult, error) {
	var args map[string]any
	if len(arguments) > 0 {
		if err := json.Unmarshal(arguments, &args); err != nil {
			return harness.MCPResult{}, fmt.Errorf("arguments of %q are not a JSON object", name)
		}
	}
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return harness.MCPResult{}, redact(err, s.token)
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

// redact removes the bearer token from an error message (defence in depth: the SDK does not echo headers).
func redact(err error, token string) error {
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "[redacted]"))
}
