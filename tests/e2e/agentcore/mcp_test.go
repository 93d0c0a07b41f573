package agentcore_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// everything is the npm MCP server @modelcontextprotocol/server-everything, started once per test binary with
// `PORT=<free> node …/dist/index.js streamableHttp` (endpoint /mcp), killed with the binary (Pdeathsig).
var everything struct {
	once sync.Once
	url  string
	err  error
}

// everythingURL returns the server's MCP endpoint, starting it on first use; without node or the package the test
// is skipped, or fails under CI=true.
func everythingURL(t *testing.T) string {
	t.Helper()
	everything.once.Do(func() { everything.url, everything.err = startEverything() })
	if everything.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MCP server server-everything: %v — under CI=true a missing server fails the run", everything.err)
		}
		t.Skipf("MCP server server-everything unavailable: %v (run `make tools`)", everything.err)
	}
	return everything.url
}

func startEverything() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	entry := filepath.Join(filepath.Dir(file), "..", "..", "..", "tools", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		return "", err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { _ = cmd.Wait() }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return "http://" + addr + "/mcp", nil
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return "", fmt.Errorf("server-everything did not listen on %s within 30s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAnMCPToolStreamsEachModelCallAsItsOwnMessage: a remote_mcp tool the harness runs in the middle of a turn
// appears as an assistant message ending tool_use (the mcp_tool_use block), a user message of its toolResult ending
// tool_result, and the next model call's assistant message ending end_turn — all in one stream.
func TestAnMCPToolStreamsEachModelCallAsItsOwnMessage(t *testing.T) {
	t.Parallel()
	url := everythingURL(t)
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

// recordingProxy forwards to an MCP server and records the x-api-key header of every request.
type recordingProxy struct {
	URL  string
	mu   sync.Mutex
	keys []string
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
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + u.Path
	return p
}

// TestAVaultReferenceInAnMCPHeaderIsResolvedOnEveryRequest: a remote_mcp header `${<credential provider ARN>}`
// reaches the MCP server as the stored API key on every request; the harness version keeps the reference.
func TestAVaultReferenceInAnMCPHeaderIsResolvedOnEveryRequest(t *testing.T) {
	t.Parallel()
	proxy := newRecordingProxy(t, everythingURL(t))
	st := stack.Shared(t)
	project := fmt.Sprintf("acd-vault-%x", time.Now().UnixNano())
	id, secret := st.NewAccessKey(t, project)
	control := stack.AgentCoreControl(st, id, secret)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	prov, err := control.CreateApiKeyCredentialProvider(ctx, &cp.CreateApiKeyCredentialProviderInput{Name: aws.String("mcpkey"), ApiKey: aws.String("vault-secret-123")})
	if err != nil {
		t.Fatalf("CreateApiKeyCredentialProvider: %v", err)
	}
	ref := "${" + aws.ToString(prov.CredentialProviderArn) + "}"
	f := newFixtureIn(t, st, project, id, secret, "vault", cptypes.HarnessTool{Type: cptypes.HarnessToolTypeRemoteMcp, Name: aws.String("everything"),
		Config: &cptypes.HarnessToolConfigurationMemberRemoteMcp{Value: cptypes.HarnessRemoteMcpConfig{Url: aws.String(proxy.URL), Headers: map[string]string{"x-api-key": ref}}}})
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("sum")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(frames); got != "Sum: The sum of 2 and 40 is 42." {
		t.Fatalf("reply %q (%s)", got, shape(frames))
	}
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	if len(proxy.keys) == 0 {
		t.Fatal("the MCP server saw no request")
	}
	for i, k := range proxy.keys {
		if k != "vault-secret-123" {
			t.Errorf("request %d carried x-api-key %q; want the resolved key", i, k)
		}
	}
}
