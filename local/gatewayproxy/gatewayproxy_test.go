package gatewayproxy_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/baton-run/baton/local/gatewayproxy"
	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/tests/stack"
)

const (
	keyID  = "AKIDGATEWAYTEST"
	secret = "gateway-test-secret"
	arn    = "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/test-gw-abcdefghij"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// proxy starts a gateway proxy in front of target for the test's key pair.
func proxy(t *testing.T, target string) *httptest.Server {
	t.Helper()
	p, err := gatewayproxy.New(target, map[string]string{keyID: secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return ts
}

// connector is the harness's MCP connector configured for one gateway at gatewayURL, signing with id/key.
func connector(gatewayURL, id, key string) *mcp.Connector {
	return &mcp.Connector{
		Gateways: gateway.StaticResolver{URLs: map[string]string{arn: gatewayURL}},
		Signer:   gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider(id, key, "")},
	}
}

func server(auth string) harness.MCPServer {
	return harness.MCPServer{Label: "gw", Gateway: &agent.HostedTool{Type: agent.ToolGateway, Name: "gw", ARN: arn, OutboundAuth: []byte(auth)}}
}

func TestASignedClientListsAndCallsToolsThroughTheProxy(t *testing.T) {
	t.Parallel()
	ts := proxy(t, stack.Everything(t))
	ctx := t.Context()
	for _, auth := range []string{"", `{"awsIam":{}}`} {
		sess, err := connector(ts.URL+"/mcp", keyID, secret).Connect(ctx, server(auth))
		if err != nil {
			t.Fatalf("outboundAuth %q: connect: %v", auth, err)
		}
		tools, err := sess.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(tools, func(tl harness.MCPTool) bool { return tl.Name == "get-sum" }) {
			t.Fatalf("tools/list through the proxy has no get-sum: %+v", tools)
		}
		res, err := sess.CallTool(ctx, "get-sum", []byte(`{"a":2,"b":40}`))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(string(res.Output), "42") {
			t.Fatalf("get-sum result %+v (%s)", res, res.Output)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// counting is a backend that counts the requests that reach it.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

// post sends an initialize request to url, signed with (id, key) for service at time at unless id is "".
func post(t *testing.T, url, id, key, service string, at time.Time) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		sum := sha256.Sum256([]byte(initialize))
		if err := v4.NewSigner().SignHTTP(t.Context(), aws.Credentials{AccessKeyID: id, SecretAccessKey: key}, req,
			hex.EncodeToString(sum[:]), service, "us-east-1", at); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType")
}

func TestTheProxyRefusesWhatIsNotSignedByAKnownKey(t *testing.T) {
	t.Parallel()
	backend, hits := counting(t)
	ts := proxy(t, backend.URL+"/mcp")
	now := time.Now()
	cases := []struct {
		name, id, key, service string
		at                     time.Time
	}{
		{"an unsigned request", "", "", "", now},
		{"a wrong secret", keyID, "not-the-secret", gatewayproxy.SigningName, now},
		{"an unknown access key", "AKIDUNKNOWN", secret, gatewayproxy.SigningName, now},
		{"a signature for another service", keyID, secret, "execute-api", now},
		{"a signature an hour old", keyID, secret, gatewayproxy.SigningName, now.Add(-time.Hour)},
	}
	for _, c := range cases {
		status, typ := post(t, ts.URL+"/mcp", c.id, c.key, c.service, c.at)
		if status != http.StatusForbidden || typ != "AccessDeniedException" {
			t.Errorf("%s: status %d %q; want 403 AccessDeniedException", c.name, status, typ)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d refused requests reached the MCP server", n)
	}
	// The check can fail: a correctly signed request does reach it.
	if status, _ := post(t, ts.URL+"/mcp", keyID, secret, gatewayproxy.SigningName, now); status != http.StatusTeapot || hits.Load() != 1 {
		t.Fatalf("a signed request: status %d, %d hits; want the backend's 418 once", status, hits.Load())
	}
}

func TestTheHarnessConnectorIsRefusedWithoutAValidSignature(t *testing.T) {
	t.Parallel()
	backend, hits := counting(t)
	ts := proxy(t, backend.URL+"/mcp")
	ctx := t.Context()
	cases := []struct {
		name string
		c    *mcp.Connector
		auth string
	}{
		{"outboundAuth none (unsigned)", connector(ts.URL+"/mcp", keyID, secret), `{"none":{}}`},
		{"a wrong secret", connector(ts.URL+"/mcp", keyID, "wrong"), `{"awsIam":{}}`},
	}
	for _, c := range cases {
		sess, err := c.c.Connect(ctx, server(c.auth))
		if err == nil {
			_ = sess.Close()
			t.Fatalf("%s: connected", c.name)
		}
		if !strings.Contains(err.Error(), "Forbidden") && !strings.Contains(err.Error(), "403") {
			t.Errorf("%s: error %v does not report the 403", c.name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d refused requests reached the MCP server", n)
	}
}

func TestNewRejectsABadTargetOrNoKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target string
		keys   map[string]string
	}{{"127.0.0.1:3100/mcp", map[string]string{keyID: secret}}, {"ftp://x/mcp", map[string]string{keyID: secret}}, {"http://127.0.0.1:3100/mcp", nil}} {
		if _, err := gatewayproxy.New(c.target, c.keys, nil); err == nil {
			t.Errorf("New(%q, %v) accepted", c.target, c.keys)
		}
	}
}

func TestListenServesTheProxyUntilStopped(t *testing.T) {
	t.Parallel()
	backend, hits := counting(t)
	url, stop, err := gatewayproxy.Listen("127.0.0.1:0", backend.URL+"/mcp", map[string]string{keyID: secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("url %q", url)
	}
	if status, _ := post(t, url, keyID, secret, gatewayproxy.SigningName, time.Now()); status != http.StatusTeapot || hits.Load() != 1 {
		t.Fatalf("a signed request: status %d, %d hits", status, hits.Load())
	}
	if status, _ := post(t, url, "", "", "", time.Now()); status != http.StatusForbidden {
		t.Fatalf("an unsigned request: status %d", status)
	}
	stop()
	if _, err := http.Post(url, "application/json", strings.NewReader(initialize)); err == nil {
		t.Fatal("the proxy still answers after stop")
	}
	if _, _, err := gatewayproxy.Listen("127.0.0.1:0", "not a url", map[string]string{keyID: secret}, nil); err == nil {
		t.Fatal("Listen accepted a bad target")
	}
}
