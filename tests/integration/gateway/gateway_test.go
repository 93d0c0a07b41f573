package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/local/gatewayproxy"
	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/tests/stack"
)

const (
	gatewayARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/calc-gw-abcdefghij"
	// The runtime's own AWS credentials, which the local gateway accepts.
	runtimeKeyID  = "AKIDRUNTIMEROLE"
	runtimeSecret = "runtime-role-secret"
)

// refusals counts the gateway's 403 answers and the requests it let through.
type refusals struct {
	mu              sync.Mutex
	passed, refused int
}

type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(c int) { s.code = c; s.ResponseWriter.WriteHeader(c) }
func (s *status) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestAGatewaysToolRunsThroughSignedRequests: the scripted model calls get-sum of the gateway `calc`; the runtime
// resolves the gateway ARN to the local gateway, signs every MCP request with its credentials, the gateway verifies
// them, and the stream shows the mcp_tool_use of server `calc` and the tool's answer.
func TestAGatewaysToolRunsThroughSignedRequests(t *testing.T) {
	target := stack.Everything(t)
	st := stack.Start(t, stack.Options{Runtimes: -1})

	p, err := gatewayproxy.New(target, map[string]string{runtimeKeyID: runtimeSecret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen refusals
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &status{ResponseWriter: w, code: http.StatusOK}
		p.ServeHTTP(rec, r)
		seen.mu.Lock()
		if rec.code == http.StatusForbidden {
			seen.refused++
		} else {
			seen.passed++
		}
		seen.mu.Unlock()
	}))
	t.Cleanup(gw.Close)

	// A runtime in this process whose MCP connector reaches gateways: BATON_GATEWAY_URLS-style mapping, SigV4 with
	// the runtime's credentials. It offers no builtin tools (no ToolHost), and the script calls none.
	deps := stack.Deps(st, nil)
	caps := append(slices.Clone(runtime.BatonCapabilities), profile.CapGateway, profile.CapBuiltinTools)
	rt, err := runtime.New(deps.Engine, deps.SFN, runtime.Config{
		ID: fmt.Sprintf("rt_gateway_%d", time.Now().UnixNano()), ActivityARN: stack.BatonActivityARN, Capabilities: caps,
		ShutdownGrace: 3 * time.Second,
		MCP: &mcp.Connector{
			Gateways: gateway.StaticResolver{URLs: map[string]string{gatewayARN: gw.URL + "/mcp"}},
			Signer:   gateway.Signer{Credentials: credentials.NewStaticCredentialsProvider(runtimeKeyID, runtimeSecret, "")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rtCtx, stopRuntime := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(rtCtx) }()
	t.Cleanup(func() { stopRuntime(); <-done })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	for {
		live, err := deps.Engine.LiveRuntimes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(live) > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the runtime did not register")
		case <-time.After(50 * time.Millisecond):
		}
	}

	keyID, secret := st.NewAccessKey(t, "proj_gateway")
	control := stack.AgentCoreControl(st, keyID, secret)
	script := map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "sum"},
			"calls": []any{map[string]any{"server_label": "calc", "name": "get-sum", "arguments": map[string]any{"a": 2, "b": 40}}}},
		map[string]any{"when": map[string]any{"after_tool": "calc__get-sum"}, "reply": "Sum: {{tool_output \"calc__get-sum\"}}"},
	}}
	h, err := control.CreateHarness(ctx, &cp.CreateHarnessInput{
		HarnessName: aws.String("gatewayed"), ExecutionRoleArn: aws.String("arn:aws:iam::123456789012:role/HarnessRole"),
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted"), AdditionalParams: cpdoc.NewLazyDocument(map[string]any{"script": script})}},
		Tools: []cptypes.HarnessTool{{Type: cptypes.HarnessToolTypeAgentcoreGateway, Name: aws.String("calc"),
			Config: &cptypes.HarnessToolConfigurationMemberAgentCoreGateway{Value: cptypes.HarnessAgentCoreGatewayConfig{
				GatewayArn: aws.String(gatewayARN), OutboundAuth: &cptypes.HarnessGatewayOutboundAuthMemberAwsIam{Value: cptypes.Unit{}}}}}},
	})
	if err != nil {
		t.Fatalf("CreateHarness: %v", err)
	}

	data := dp.New(dp.Options{Region: stack.AgentCoreRegion, BaseEndpoint: aws.String(st.APIURL),
		Credentials: credentials.NewStaticCredentialsProvider(keyID, secret, ""), Retryer: aws.NopRetryer{}, HTTPClient: stack.SDKHTTPClient()})
	out, err := data.InvokeHarness(ctx, &dp.InvokeHarnessInput{HarnessArn: h.Harness.Arn,
		RuntimeSessionId: aws.String(fmt.Sprintf("sess-gateway-%032x", time.Now().UnixNano())),
		Messages: []dptypes.HarnessMessage{{Role: dptypes.HarnessConversationRoleUser,
			Content: []dptypes.HarnessContentBlock{&dptypes.HarnessContentBlockMemberText{Value: "add them: sum"}}}}})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	stream := out.GetStream()
	defer stream.Close()
	var text strings.Builder
	var uses []string
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockStart:
			if s, ok := v.Value.Start.(*dptypes.HarnessContentBlockStartMemberToolUse); ok {
				uses = append(uses, fmt.Sprintf("%s %s %s", s.Value.Type, aws.ToString(s.Value.ServerName), aws.ToString(s.Value.Name)))
			}
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockDelta:
			if tx, ok := v.Value.Delta.(*dptypes.HarnessContentBlockDeltaMemberText); ok {
				text.WriteString(tx.Value)
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if want := []string{"mcp_tool_use calc get-sum"}; !slices.Equal(uses, want) {
		t.Errorf("toolUse blocks %q; want %q", uses, want)
	}
	if got := text.String(); got != "Sum: The sum of 2 and 40 is 42." {
		t.Errorf("reply %q", got)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if seen.refused != 0 || seen.passed < 4 {
		t.Errorf("the gateway let %d requests through and refused %d; want every MCP request (≥4) signed and accepted", seen.passed, seen.refused)
	}
}
