package agentcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/tests/stack"
)

// TestAnMCPToolStreamsEachModelCallAsItsOwnMessage: a remote_mcp tool the harness runs in the middle of a turn
// appears as an assistant message ending tool_use (the mcp_tool_use block), a user message of its toolResult ending
// tool_result, and the next model call's assistant message ending end_turn — all in one stream.
func TestAnMCPToolStreamsEachModelCallAsItsOwnMessage(t *testing.T) {
	t.Parallel()
	url := stack.Everything(t)
	f := newFixture(t, "mcp", cptypes.HarnessTool{Type: cptypes.HarnessToolTypeRemoteMcp, Name: aws.String("everything"),
		Config: &cptypes.HarnessToolConfigurationMemberRemoteMcp{Value: cptypes.HarnessRemoteMcpConfig{Url: aws.String(url)}}})
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("add them: sum")}})
	if err != nil {
		t.Fatal(err)
	}
	want := "messageStart:assistant toolUse:get-sum input stop:0 messageStop:tool_use " +
		"messageStart:user toolResult result stop:0 messageStop:tool_result " +
		"messageStart:assistant text stop:0 messageStop:end_turn metadata"
	if got := shape(frames); got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
	var start dptypes.HarnessToolUseBlockStart
	for _, fr := range frames {
		if v, ok := fr.Value.(dptypes.HarnessContentBlockStartEvent); ok {
			if s, ok := v.Start.(*dptypes.HarnessContentBlockStartMemberToolUse); ok {
				start = s.Value
			}
		}
	}
	if start.Type != dptypes.HarnessToolUseTypeMcpToolUse || aws.ToString(start.ServerName) != "everything" {
		t.Errorf("toolUse start %+v", start)
	}
	if got := texts(frames); got != "Sum: The sum of 2 and 40 is 42." {
		t.Errorf("reply %q", got)
	}
}

// recordingProxy forwards to an MCP server and records the x-api-key and x-team headers of every request.
type recordingProxy struct {
	URL   string
	mu    sync.Mutex
	keys  []string
	teams []string
}

func newRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.keys = append(p.keys, r.Header.Get("X-Api-Key"))
		p.teams = append(p.teams, r.Header.Get("X-Team"))
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + u.Path
	return p
}

// recordingTransport keeps every response body the official clients read (an event stream whole).
type recordingTransport struct {
	mu     sync.Mutex
	bodies []string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	rt.bodies = append(rt.bodies, r.Method+" "+r.URL.Path+" → "+string(b))
	rt.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// TestAVaultReferenceInAnMCPHeaderIsResolvedOnEveryRequest: a remote_mcp header `${<credential provider ARN>}`
// reaches the MCP server as the stored API key on every request, and a literal header as written; the harness keeps
// the reference as written. The resolved key appears in no read — GetHarness (latest and by version),
// ListHarnesses, ListHarnessVersions, the credential-provider reads, the InvokeHarness stream, the Session and its
// items through the Agents API — and neither the key nor the literal header value appears in any line of the stack's
// log (docs/agentcore.md §6 "Credentials by reference").
func TestAVaultReferenceInAnMCPHeaderIsResolvedOnEveryRequest(t *testing.T) {
	t.Parallel()
	const apiKey, literal = "vault-secret-123-q7Zr", "literal-header-456-Kp2w"
	proxy := newRecordingProxy(t, stack.Everything(t))
	st := stack.Shared(t)
	project := fmt.Sprintf("acd-vault-%x", time.Now().UnixNano())
	id, secret := st.NewAccessKey(t, project)
	rec := &recordingTransport{}
	control := cp.New(cp.Options{Region: stack.AgentCoreRegion, BaseEndpoint: aws.String(st.APIURL),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), Retryer: aws.NopRetryer{}, HTTPClient: &http.Client{Transport: rec}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	prov, err := control.CreateApiKeyCredentialProvider(ctx, &cp.CreateApiKeyCredentialProviderInput{Name: aws.String("mcpkey"), ApiKey: aws.String(apiKey)})
	if err != nil {
		t.Fatalf("CreateApiKeyCredentialProvider: %v", err)
	}
	ref := "${" + aws.ToString(prov.CredentialProviderArn) + "}"
	f := newFixtureIn(t, st, project, id, secret, "vault", script(), cptypes.HarnessTool{Type: cptypes.HarnessToolTypeRemoteMcp, Name: aws.String("everything"),
		Config: &cptypes.HarnessToolConfigurationMemberRemoteMcp{Value: cptypes.HarnessRemoteMcpConfig{Url: aws.String(proxy.URL),
			Headers: map[string]string{"x-api-key": ref, "x-team": literal}}}})
	f.control = control
	f.data = dp.New(dp.Options{Region: stack.AgentCoreRegion, BaseEndpoint: aws.String(st.APIURL),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), Retryer: aws.NopRetryer{}, HTTPClient: &http.Client{Transport: rec}})
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("sum")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(frames); got != "Sum: The sum of 2 and 40 is 42." {
		t.Fatalf("reply %q (%s)", got, shape(frames))
	}
	proxy.mu.Lock()
	if len(proxy.keys) == 0 {
		t.Fatal("the MCP server saw no request")
	}
	for i := range proxy.keys {
		if proxy.keys[i] != apiKey || proxy.teams[i] != literal {
			t.Errorf("request %d carried x-api-key %q, x-team %q; want the resolved key and the literal value", i, proxy.keys[i], proxy.teams[i])
		}
	}
	proxy.mu.Unlock()

	// Every read of the project, through the official clients.
	harnessID := f.arn[strings.LastIndex(f.arn, "/")+1:]
	got, err := control.GetHarness(ctx, &cp.GetHarnessInput{HarnessId: aws.String(harnessID)})
	if err != nil {
		t.Fatalf("GetHarness: %v", err)
	}
	mcp, ok := got.Harness.Tools[0].Config.(*cptypes.HarnessToolConfigurationMemberRemoteMcp)
	if !ok || mcp.Value.Headers["x-api-key"] != ref {
		t.Fatalf("GetHarness tools[0] %+v; want the reference %s kept as written", got.Harness.Tools[0].Config, ref)
	}
	if _, err := control.GetHarness(ctx, &cp.GetHarnessInput{HarnessId: aws.String(harnessID), HarnessVersion: got.Harness.HarnessVersion}); err != nil {
		t.Fatalf("GetHarness by version: %v", err)
	}
	if _, err := control.ListHarnesses(ctx, &cp.ListHarnessesInput{}); err != nil {
		t.Fatalf("ListHarnesses: %v", err)
	}
	if _, err := control.ListHarnessVersions(ctx, &cp.ListHarnessVersionsInput{HarnessId: aws.String(harnessID)}); err != nil {
		t.Fatalf("ListHarnessVersions: %v", err)
	}
	if _, err := control.GetApiKeyCredentialProvider(ctx, &cp.GetApiKeyCredentialProviderInput{Name: aws.String("mcpkey")}); err != nil {
		t.Fatalf("GetApiKeyCredentialProvider: %v", err)
	}
	if _, err := control.ListApiKeyCredentialProviders(ctx, &cp.ListApiKeyCredentialProvidersInput{}); err != nil {
		t.Fatalf("ListApiKeyCredentialProviders: %v", err)
	}
	api := f.agentsKey(t)
	session := onlySession(t, api)
	reads := []string{string(api.Do(t, http.MethodGet, "/v1/agents/sessions/"+session, nil, nil).Body)}
	items := sessionItems(t, api, session)
	if len(items) == 0 {
		t.Fatal("the session has no items")
	}
	b, _ := json.Marshal(items)
	reads = append(reads, string(b))
	rec.mu.Lock()
	reads = append(reads, rec.bodies...)
	rec.mu.Unlock()
	if len(reads) < 9 {
		t.Fatalf("recorded %d reads; want every read above", len(reads))
	}
	for _, r := range reads {
		if strings.Contains(r, apiKey) {
			t.Errorf("a read carries the resolved API key: %.300s", r)
		}
		if strings.Contains(r, literal) {
			t.Errorf("a read carries the literal header value (reads show %q): %.300s", agentcore.RedactedHeaderValue, r)
		}
	}
	if got := mcp.Value.Headers["x-team"]; got != agentcore.RedactedHeaderValue {
		t.Errorf("GetHarness shows the literal header as %q, want %q", got, agentcore.RedactedHeaderValue)
	}

	// The stack's log, whole (only a stack this binary started has one to read).
	if os.Getenv(stack.StateFileEnv) != "" {
		return
	}
	log := st.LogTail(1 << 30)
	if !strings.Contains(log, session) {
		t.Fatalf("the stack's log does not mention session %s: not the log of this turn", session)
	}
	for i, line := range strings.Split(log, "\n") {
		if strings.Contains(line, apiKey) || strings.Contains(line, literal) {
			t.Errorf("log line %d carries a header value: %.300s", i+1, line)
		}
	}
}
