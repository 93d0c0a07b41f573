package mcp

import (
	"bytes"
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
// only sends requests). server.Headers (except the transport's own: Accept, Content-Type, Content-Length, Host,
// Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id) and the bearer Authorization are set on every request. Errors: the server is unreachable, answers with an HTTP error, or fails initialization;
// the error never contains the bearer token.
func (c *Connector) Connect(ctx context.Context, server harness.MCPServer) (harness.MCPSession, error) {
	base := c.Transport
	if base == nil {
		// server_url is the caller's choice: never let it reach the deployment's credential endpoints.
		base = netguard.Transport()
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
