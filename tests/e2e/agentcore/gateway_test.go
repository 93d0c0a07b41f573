package agentcore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/local/launcher"
	"github.com/baton-run/baton/tests/stack"
)

// gatewayScript calls the gateway's get-sum when it is offered, else says so and lists the offered tools; after the
// call it answers with the sum (docs/scripted-model.md; a gateway's tools are `<name>__<tool>` to the model).
func gatewayScript() map[string]any {
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "sum", "tool_offered": "gw__get-sum"},
				"calls": []any{map[string]any{"server_label": "gw", "name": "get-sum", "arguments": map[string]any{"a": 2, "b": 40}}}},
			map[string]any{"when": map[string]any{"user_contains": "sum"},
				"reply": "get-sum is not offered; tools:{{range .ToolNames}} {{.}}{{end}}"},
			map[string]any{"when": map[string]any{"after_tool": "gw__get-sum"}, "reply": "Sum: {{tool_output \"gw__get-sum\"}}"},
		},
		"chunk_size": 16,
	}
}

// gatewayTool declares launcher.LocalGatewayARN as the agentcore_gateway "gw" with the given outbound auth.
func gatewayTool(auth cptypes.HarnessGatewayOutboundAuth) cptypes.HarnessTool {
	return cptypes.HarnessTool{Type: cptypes.HarnessToolTypeAgentcoreGateway, Name: aws.String("gw"),
		Config: &cptypes.HarnessToolConfigurationMemberAgentCoreGateway{Value: cptypes.HarnessAgentCoreGatewayConfig{
			GatewayArn: aws.String(launcher.LocalGatewayARN), OutboundAuth: auth}}}
}

// TestTheGatewayIsReachedThroughTheSigningProxy: a stack whose launcher serves the local gateway (the SigV4-verifying
// proxy in front of the npm MCP test server, docs/tools.md "Gateway"), and harnesses declaring it as the
// agentcore_gateway "gw":
//   - with outboundAuth awsIam the runtime's signed requests pass: the model calls gw__get-sum, the stream shows the
//     mcp_tool_use block (name get-sum, server gw) and its result, and the answer reads the sum;
//   - allowedTools ["@gw/echo"] offers that gateway tool alone;
//   - the proxy itself answers an unsigned request, a wrong secret, an unknown key and a signature for another
//     service with 403 AccessDeniedException, and passes a request signed with the runtimes' local credentials;
//   - with outboundAuth none the proxy refuses the unsigned requests, so the gateway cannot be connected: it is
//     logged and none of its tools is offered (the model sees no gw__ tool; the turn still ends normally).
func TestTheGatewayIsReachedThroughTheSigningProxy(t *testing.T) {
	t.Parallel()
	st := stack.Start(t, stack.Options{ExtraArgs: []string{"-gateway-target", stack.Everything(t), "-gateway", "127.0.0.1:0"}})

	t.Run("awsIam", func(t *testing.T) {
		f := newScriptedFixture(t, st, "gwiam", gatewayScript(), gatewayTool(&cptypes.HarnessGatewayOutboundAuthMemberAwsIam{}))
		frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("what is the sum?")}})
		if err != nil {
			t.Fatalf("InvokeHarness: %v", err)
		}
		want := "messageStart:assistant toolUse:get-sum input stop:0 messageStop:tool_use " +
			"messageStart:user toolResult result stop:0 messageStop:tool_result " +
			"messageStart:assistant text stop:0 messageStop:end_turn metadata"
		if got := shape(frames); got != want {
			t.Fatalf("frames:\n got %s\nwant %s", got, want)
		}
		calls := toolCalls(frames)
		if len(calls) != 1 {
			t.Fatalf("calls %+v; want one", calls)
		}
		c := calls[0]
		if c.Type != string(dptypes.HarnessToolUseTypeMcpToolUse) || c.Name != "get-sum" || c.Server != "gw" ||
			c.Status != string(dptypes.HarnessToolUseStatusSuccess) || c.Result != "The sum of 2 and 40 is 42." {
			t.Errorf("call %+v; want mcp_tool_use get-sum of server gw with the success result \"The sum of 2 and 40 is 42.\"", c)
		}
		if got := texts(frames); got != "Sum: The sum of 2 and 40 is 42." {
			t.Errorf("answer %q", got)
		}
	})

	t.Run("allowedTools", func(t *testing.T) {
		f := newScriptedFixture(t, st, "gwallow", gatewayScript(), gatewayTool(&cptypes.HarnessGatewayOutboundAuthMemberAwsIam{}))
		frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{AllowedTools: []string{"@gw/echo"},
			Messages: []dptypes.HarnessMessage{userText("what is the sum?")}})
		if err != nil {
			t.Fatalf("InvokeHarness: %v", err)
		}
		if got, want := texts(frames), "get-sum is not offered; tools: gw__echo"; got != want {
			t.Errorf("answer %q; want %q", got, want)
		}
		if calls := toolCalls(frames); len(calls) != 0 {
			t.Errorf("calls %+v; want none", calls)
		}
	})

	t.Run("proxy", func(t *testing.T) {
		log, err := os.ReadFile(st.LogPath())
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`local gateway.*?url[=":]+\s*"?(http://[^"\s]+)`).FindSubmatch(log)
		if m == nil {
			t.Fatalf("the stack's log names no local gateway URL")
		}
		gwURL := string(m[1])
		post := func(sign func(*http.Request, []byte)) (int, http.Header, []byte) {
			t.Helper()
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
			req, err := http.NewRequest(http.MethodPost, gwURL, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if sign != nil {
				sign(req, body)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, resp.Header, b
		}
		signer := func(id, secret, service string) func(*http.Request, []byte) {
			return func(req *http.Request, body []byte) {
				sum := sha256.Sum256(body)
				if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: secret}, req,
					hex.EncodeToString(sum[:]), service, "us-east-1", time.Now()); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, c := range []struct {
			what string
			sign func(*http.Request, []byte)
		}{
			{"unsigned", nil},
			{"wrong secret", signer("local", "not-the-secret", "bedrock-agentcore")},
			{"unknown key", signer("AKIDUNKNOWN", "local", "bedrock-agentcore")},
			{"another service", signer("local", "local", "execute-api")},
		} {
			status, h, b := post(c.sign)
			var e struct {
				Message string `json:"message"`
			}
			if status != http.StatusForbidden || h.Get("X-Amzn-ErrorType") != "AccessDeniedException" || json.Unmarshal(b, &e) != nil || e.Message == "" {
				t.Errorf("%s request: %d %s %s; want 403 AccessDeniedException with a message", c.what, status, h.Get("X-Amzn-ErrorType"), b)
			}
		}
		status, _, b := post(signer("local", "local", "bedrock-agentcore"))
		if status != http.StatusOK || !bytes.Contains(b, []byte(`"protocolVersion"`)) {
			t.Errorf("signed initialize: %d %s; want 200 with the server's initialize result", status, b)
		}
	})

	t.Run("none", func(t *testing.T) {
		f := newScriptedFixture(t, st, "gwnone", gatewayScript(), gatewayTool(&cptypes.HarnessGatewayOutboundAuthMemberNone{}))
		frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("what is the sum?")}})
		if err != nil {
			t.Fatalf("InvokeHarness: %v", err)
		}
		got := texts(frames)
		t.Logf("answer without gateway tools: %q", got)
		if !strings.HasPrefix(got, "get-sum is not offered; tools:") || strings.Contains(got, "gw__") {
			t.Errorf("answer %q; want get-sum not offered and no gw__ tool among the offered ones", got)
		}
		if calls := toolCalls(frames); len(calls) != 0 || lastStop(frames) != "end_turn" {
			t.Errorf("calls %+v, last stop %q; want none and end_turn", calls, lastStop(frames))
		}
		// The runtime logs the gateway it could not connect, refused by the proxy (403 Forbidden); only this
		// subtest's gateway fails. The log reaches the file through the launcher, so it is polled for.
		var line string
		waitFor(t, func() bool {
			log, err := os.ReadFile(st.LogPath())
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(log), "\n") {
				if strings.Contains(l, "MCP server unavailable; its tools are not offered") && strings.Contains(l, "server_label=gw ") && strings.Contains(l, "Forbidden") {
					line = l
					return true
				}
			}
			return false
		})
		t.Logf("runtime log: %s", line)
	})
}
