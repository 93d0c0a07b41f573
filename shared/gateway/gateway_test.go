package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/sigv4auth"
)

const arn = "arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gw-abcdefghij"

func TestParseARN(t *testing.T) {
	t.Parallel()
	got, err := gateway.ParseARN(arn)
	if err != nil || got != (gateway.ARN{Region: "us-west-2", ID: "my-gw-abcdefghij"}) {
		t.Fatalf("ParseARN = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "my-gw-abcdefghij", "arn:aws:bedrock-agentcore:us-west-2:123456789012:harness/h",
		"arn:aws:bedrock-agentcore:us-west-2:1234:gateway/g", "arn:aws:lambda:us-west-2:123456789012:gateway/g"} {
		if _, err := gateway.ParseARN(bad); !errors.Is(err, gateway.ErrInvalidARN) {
			t.Errorf("ParseARN(%q) error %v; want ErrInvalidARN", bad, err)
		}
	}
}

func TestLoadURLs(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == gateway.EnvGatewayURLs {
				return v
			}
			return ""
		}
	}
	m, err := gateway.LoadURLs(env(""))
	if err != nil || len(m) != 0 {
		t.Fatalf("unset: %v, %v", m, err)
	}
	m, err = gateway.LoadURLs(env(`{"` + arn + `":"http://127.0.0.1:3101/mcp"}`))
	if err != nil || m[arn] != "http://127.0.0.1:3101/mcp" {
		t.Fatalf("one mapping: %v, %v", m, err)
	}
	for _, c := range []struct{ value, want string }{
		{`not json`, "must be a JSON object"},
		{`["x"]`, "must be a JSON object"},
		{`{"` + arn + `":3}`, "must be a JSON object"},
		{`{"gw":"http://127.0.0.1/mcp"}`, `key "gw" must be a gateway ARN`},
		{`{"` + arn + `":"127.0.0.1:3101/mcp"}`, "must be an absolute http or https URL"},
		{`{"` + arn + `":"file:///etc/passwd"}`, "must be an absolute http or https URL"},
	} {
		_, err := gateway.LoadURLs(env(c.value))
		var se *gateway.SettingError
		if !errors.As(err, &se) || se.Name != gateway.EnvGatewayURLs || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want a SettingError naming %s and %q", c.value, err, gateway.EnvGatewayURLs, c.want)
		}
	}
}

func TestStaticResolverFallsBackToNext(t *testing.T) {
	t.Parallel()
	other := "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/other-abcdefghij"
	r := gateway.StaticResolver{URLs: map[string]string{arn: "http://local/mcp"}}
	if u, err := r.GatewayURL(t.Context(), arn); err != nil || u != "http://local/mcp" {
		t.Fatalf("mapped: %q, %v", u, err)
	}
	if _, err := r.GatewayURL(t.Context(), other); !errors.Is(err, gateway.ErrUnknownGateway) || !strings.Contains(err.Error(), other) {
		t.Fatalf("unmapped without Next: %v", err)
	}
	r.Next = gateway.StaticResolver{URLs: map[string]string{other: "http://next/mcp"}}
	if u, err := r.GatewayURL(t.Context(), other); err != nil || u != "http://next/mcp" {
		t.Fatalf("unmapped with Next: %q, %v", u, err)
	}
}

// controlPlane answers GetGateway like the AgentCore control plane (GET /gateways/{id}/ → restJson1) and records
// each request's path and SigV4 credential scope.
type controlPlane struct {
	mu       sync.Mutex
	requests []string
}

func (c *controlPlane) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	scope := ""
	if i := strings.Index(auth, "Credential="); i >= 0 {
		parts := strings.SplitN(strings.SplitN(auth[i+len("Credential="):], ",", 2)[0], "/", 3)
		scope = parts[2]
	}
	c.mu.Lock()
	c.requests = append(c.requests, r.Method+" "+r.URL.Path+" "+scope)
	c.mu.Unlock()
	id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/gateways/"), "/")
	w.Header().Set("Content-Type", "application/json")
	switch id {
	case "my-gw-abcdefghij":
		_ = json.NewEncoder(w).Encode(map[string]any{"gatewayArn": arn, "gatewayId": id, "name": "my-gw",
			"gatewayUrl": "https://my-gw-abcdefghij.gateway.bedrock-agentcore.us-west-2.amazonaws.com/mcp",
			"createdAt":  "2026-12-01T10:00:00Z", "updatedAt": "2026-12-01T10:00:00Z", "status": "READY", "authorizerType": "AWS_IAM",
			"protocolType": "MCP"})
	case "creating-abcdefghij":
		_ = json.NewEncoder(w).Encode(map[string]any{"gatewayArn": arn, "gatewayId": id, "name": "c",
			"createdAt": "2026-12-01T10:00:00Z", "updatedAt": "2026-12-01T10:00:00Z", "status": "CREATING", "authorizerType": "AWS_IAM"})
	default:
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"message":"Gateway not found"}`)
	}
}

func TestAWSResolverAsksGetGatewayOnceInTheARNsRegion(t *testing.T) {
	t.Parallel()
	plane := &controlPlane{}
	ts := httptest.NewServer(plane)
	t.Cleanup(ts.Close)
	client := cp.New(cp.Options{Region: "eu-central-1", BaseEndpoint: aws.String(ts.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""), RetryMaxAttempts: 1})
	r := gateway.NewAWSResolver(client)
	for range 2 {
		u, err := r.GatewayURL(t.Context(), arn)
		if err != nil || u != "https://my-gw-abcdefghij.gateway.bedrock-agentcore.us-west-2.amazonaws.com/mcp" {
			t.Fatalf("GatewayURL = %q, %v", u, err)
		}
	}
	missing := "arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/gone-abcdefghij"
	if _, err := r.GatewayURL(t.Context(), missing); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "ResourceNotFoundException") {
		t.Errorf("a missing gateway: %v", err)
	}
	creating := "arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/creating-abcdefghij"
	if _, err := r.GatewayURL(t.Context(), creating); err == nil || !strings.Contains(err.Error(), "status CREATING") {
		t.Errorf("a gateway without a URL: %v", err)
	}
	if _, err := r.GatewayURL(t.Context(), "not-an-arn"); !errors.Is(err, gateway.ErrInvalidARN) {
		t.Errorf("a bad ARN: %v", err)
	}
	want := []string{
		"GET /gateways/my-gw-abcdefghij/ us-west-2/bedrock-agentcore/aws4_request",
		"GET /gateways/gone-abcdefghij/ us-west-2/bedrock-agentcore/aws4_request",
		"GET /gateways/creating-abcdefghij/ us-west-2/bedrock-agentcore/aws4_request",
	}
	plane.mu.Lock()
	defer plane.mu.Unlock()
	if d := cmp.Diff(want, plane.requests); d != "" {
		t.Errorf("control plane requests (-want +got):\n%s", d)
	}
}

func TestSignerSignsEachRequestOverItsBody(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	verifier := &sigv4auth.Verifier{Service: gateway.SigningName, Lookup: func(_ context.Context, id string) (string, string, error) {
		if id != "AKIDSIGN" {
			return "", "", sigv4auth.ErrUnknownKey
		}
		return "p", "signing-secret", nil
	}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, err := verifier.Verify(r, body)
		mu.Lock()
		got = append(got, r.Method+" "+string(body)+" "+errString(err)+" token="+r.Header.Get("X-Amz-Security-Token"))
		mu.Unlock()
	}))
	t.Cleanup(ts.Close)
	s := gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider("AKIDSIGN", "signing-secret", "session-token")}
	rt, err := s.Transport(nil, arn)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: rt}
	for _, req := range []struct{ method, body string }{{"POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, {"DELETE", ""}, {"POST", `{"x":1}`}} {
		r, _ := http.NewRequestWithContext(t.Context(), req.method, ts.URL+"/mcp", strings.NewReader(req.body))
		if req.body == "" {
			r.Body = http.NoBody
		}
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	want := []string{
		`POST {"jsonrpc":"2.0","id":1,"method":"tools/list"} ok token=session-token`,
		"DELETE  ok token=session-token",
		`POST {"x":1} ok token=session-token`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests as verified (-want +got):\n%s", d)
	}
	// The check can fail: a signer with another secret is refused.
	bad, _ := gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider("AKIDSIGN", "other", ""),
		Now: func() time.Time { return time.Now() }}.Transport(nil, arn)
	r, _ := http.NewRequestWithContext(t.Context(), "POST", ts.URL+"/mcp", strings.NewReader("{}"))
	resp, err := (&http.Client{Transport: bad}).Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if last := got[len(got)-1]; !strings.Contains(last, sigv4auth.ErrSignatureMismatch.Error()) {
		t.Errorf("a wrong secret verified as %q", last)
	}
	if _, err := (gateway.Signer{}).Transport(nil, arn); err == nil {
		t.Error("a Signer without credentials made a transport")
	}
	if _, err := s.Transport(nil, "gw"); !errors.Is(err, gateway.ErrInvalidARN) {
		t.Errorf("a bad ARN: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func TestConfigureMapsFirstThenAsksTheControlPlane(t *testing.T) {
	t.Parallel()
	plane := &controlPlane{}
	ts := httptest.NewServer(plane)
	t.Cleanup(ts.Close)
	local := "arn:aws:bedrock-agentcore:us-east-1:000000000000:gateway/local-gw-abcdefghij"
	getenv := func(name string) string {
		if name == gateway.EnvGatewayURLs {
			return `{"` + local + `":"http://127.0.0.1:3101/mcp"}`
		}
		return ""
	}
	awsCfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(ts.URL), Retryer: func() aws.Retryer { return aws.NopRetryer{} },
		Credentials: credentials.NewStaticCredentialsProvider("AKIDCFG", "cfg-secret", "")}
	r, s, err := gateway.Configure(getenv, awsCfg)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := r.GatewayURL(t.Context(), local); err != nil || u != "http://127.0.0.1:3101/mcp" {
		t.Fatalf("mapped ARN: %q, %v", u, err)
	}
	if u, err := r.GatewayURL(t.Context(), arn); err != nil || !strings.HasPrefix(u, "https://my-gw-abcdefghij.gateway.") {
		t.Fatalf("unmapped ARN: %q, %v", u, err)
	}
	plane.mu.Lock()
	n := len(plane.requests)
	plane.mu.Unlock()
	if n != 1 {
		t.Errorf("control plane saw %d requests; want 1 (only the unmapped ARN)", n)
	}
	if c, err := s.Credentials.Retrieve(t.Context()); err != nil || c.AccessKeyID != "AKIDCFG" {
		t.Errorf("signer credentials %v, %v", c.AccessKeyID, err)
	}
	if _, _, err := gateway.Configure(func(string) string { return "[]" }, awsCfg); err == nil {
		t.Error("a bad BATON_GATEWAY_URLS was accepted")
	}
}
