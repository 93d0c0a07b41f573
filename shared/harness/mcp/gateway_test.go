package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/gatewayproxy"
	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/mcp"
)

const (
	gwARN    = "arn:aws:bedrock-agentcore:eu-west-1:123456789012:gateway/calc-gw-abcdefghij"
	gwKeyID  = "AKIDMCPTEST"
	gwSecret = "mcp-test-secret"
)

func TestGatewayAuthReadsTheOutboundAuthUnion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw, want string
		bad       bool
	}{
		{"", mcp.AuthAWSIAM, false},
		{"null", mcp.AuthAWSIAM, false},
		{`{"awsIam":{}}`, mcp.AuthAWSIAM, false},
		{`{"none":{}}`, mcp.AuthNone, false},
		{`{"oauth":{"providerArn":"p","scopes":["a"]}}`, mcp.AuthOAuth, false},
		{`{}`, "", true},
		{`{"awsIam":{},"none":{}}`, "", true},
		{`{"apiKey":{}}`, "", true},
		{`"awsIam"`, "", true},
	}
	for _, c := range cases {
		got, err := mcp.GatewayAuth([]byte(c.raw))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("GatewayAuth(%s) = %q, %v; want %q, error %v", c.raw, got, err, c.want, c.bad)
		}
	}
}

// gatewayServer is the in-process MCP server behind the SigV4-verifying gateway proxy, recording the method of
// every request that passed verification.
type gatewayServer struct {
	URL     string
	mu      sync.Mutex
	passed  []string
	refused int
}

func newGatewayServer(t *testing.T) *gatewayServer {
	t.Helper()
	backend := newServer(t)
	gs := &gatewayServer{}
	p, err := gatewayproxy.New(backend.URL, map[string]string{gwKeyID: gwSecret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		p.ServeHTTP(rec, r)
		gs.mu.Lock()
		if rec.status == http.StatusForbidden {
			gs.refused++
		} else {
			gs.passed = append(gs.passed, r.Method)
		}
		gs.mu.Unlock()
	}))
	t.Cleanup(ts.Close)
	gs.URL = ts.URL + "/mcp"
	return gs
}

func (g *gatewayServer) methods() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.passed...)
}

func (g *gatewayServer) refusedCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func gatewayConnector(url string) *mcp.Connector {
	return &mcp.Connector{Gateways: gateway.StaticResolver{URLs: map[string]string{gwARN: url}},
		Signer: gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider(gwKeyID, gwSecret, "")}}
}

func gatewayServerDecl(auth string) harness.MCPServer {
	return harness.MCPServer{Label: "calc", Gateway: &agent.HostedTool{Type: agent.ToolGateway, Name: "calc", ARN: gwARN, OutboundAuth: []byte(auth)}}
}

func TestAnAWSIAMGatewaySignsEveryRequestOfTheSession(t *testing.T) {
	t.Parallel()
	gs := newGatewayServer(t)
	ctx := t.Context()
	sess, err := gatewayConnector(gs.URL).Connect(ctx, gatewayServerDecl(`{"awsIam":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := sess.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if d := cmp.Diff([]string{"add", "broken", "echo"}, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	res, err := sess.CallTool(ctx, "add", []byte(`{"a":2,"b":40}`))
	if err != nil || string(res.Output) != `{"sum":42}` {
		t.Fatalf("add: %s, %v", res.Output, err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	// initialize, notifications/initialized, tools/list, tools/call and the session DELETE all passed the proxy;
	// none was refused.
	got := gs.methods()
	if len(got) < 5 || got[len(got)-1] != "DELETE" || gs.refusedCount() != 0 {
		t.Errorf("requests that passed verification %v, %d refused; want ≥4 POSTs then the DELETE, none refused", got, gs.refusedCount())
	}
}

// failingResolver fails every lookup.
type failingResolver struct{}

func (failingResolver) GatewayURL(context.Context, string) (string, error) {
	return "", errors.New("no such gateway")
}

func TestAGatewayThatCannotBeConnectedSendsNothing(t *testing.T) {
	t.Parallel()
	gs := newGatewayServer(t)
	signer := gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider(gwKeyID, gwSecret, "")}
	resolver := gateway.StaticResolver{URLs: map[string]string{gwARN: gs.URL}}
	cases := []struct {
		name string
		c    *mcp.Connector
		auth string
		want string
	}{
		{"oauth outbound auth", gatewayConnector(gs.URL), `{"oauth":{"providerArn":"p","scopes":["s"]}}`, "outboundAuth oauth is not supported"},
		{"a malformed outbound auth", gatewayConnector(gs.URL), `{"basic":{}}`, "outboundAuth member"},
		{"no resolver", &mcp.Connector{Signer: signer}, "", "no gateway resolver"},
		{"no signer for awsIam", &mcp.Connector{Gateways: resolver}, "", "cannot sign gateway requests"},
		{"an unknown gateway", &mcp.Connector{Gateways: gateway.StaticResolver{}, Signer: signer}, "", gateway.EnvGatewayURLs},
		{"a resolver failure", &mcp.Connector{Gateways: failingResolver{}, Signer: signer}, "", "no such gateway"},
		{"no credentials", &mcp.Connector{Gateways: resolver, Signer: gateway.Signer{}}, "", "no AWS credentials"},
	}
	for _, c := range cases {
		_, err := c.c.Connect(t.Context(), gatewayServerDecl(c.auth))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `gateway "calc"`) {
			t.Errorf("%s: error %v; want one naming the gateway and %q", c.name, err, c.want)
		}
	}
	if got := gs.methods(); len(got) != 0 {
		t.Fatalf("requests reached the gateway: %v", got)
	}
	if _, err := gatewayConnector(gs.URL).Connect(t.Context(), gatewayServerDecl(`{"oauth":{}}`)); !errors.Is(err, mcp.ErrOAuthUnsupported) {
		t.Errorf("oauth error %v is not ErrOAuthUnsupported", err)
	}
}

func TestANoneGatewaySendsNoSignature(t *testing.T) {
	t.Parallel()
	gs := newGatewayServer(t)
	_, err := gatewayConnector(gs.URL).Connect(t.Context(), gatewayServerDecl(`{"none":{}}`))
	if err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("an unsigned session through a SigV4-verifying gateway: %v; want a 403", err)
	}
	// Against a gateway that checks nothing, none connects.
	open := newServer(t)
	sess, err := gatewayConnector(open.URL).Connect(t.Context(), gatewayServerDecl(`{"none":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, r := range open.requests() {
		if !strings.HasSuffix(r, " ") {
			t.Errorf("request %q carries an Authorization header", r)
		}
	}
}

func TestHarnessRunsAGatewaysToolsThroughTheSigningConnector(t *testing.T) {
	t.Parallel()
	gs := newGatewayServer(t)
	decl := fmt.Sprintf(`{"type":"agentcore_gateway","name":"calc","gateway_arn":%q,"outbound_auth":{"awsIam":{}}}`, gwARN)
	tests := []struct {
		name    string
		allowed []string
		input   string
		wantOps []string
	}{
		{
			name:    "the gateway's tools are called under the declared name, every request signed",
			input:   "add please",
			wantOps: addThenEchoOps,
		},
		{
			name:    "allowedTools selects a gateway tool as @<name>/<tool>",
			allowed: []string{"lookup", "@calc/add"},
			input:   "tools",
			wantOps: []string{"message final_answer", "text lookup calc__add "},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mcpConfig(decl)
			if tc.allowed != nil {
				cfg.Controls = &agent.Controls{AllowedTools: tc.allowed}
			}
			out, ops, err := runOn(t, gatewayConnector(gs.URL), cfg, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != "completed" {
				t.Errorf("outcome %+v", out)
			}
			if d := cmp.Diff(tc.wantOps, ops); d != "" {
				t.Errorf("journal (-want +got):\n%s", d)
			}
		})
	}
	// Parallel subtests finish before the parent's cleanups run.
	t.Cleanup(func() {
		if n := gs.refusedCount(); n != 0 {
			t.Errorf("%d requests of the harness were refused by the SigV4 check", n)
		}
	})
}
