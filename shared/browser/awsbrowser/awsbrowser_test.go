package awsbrowser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	"github.com/chromedp/chromedp/remote"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/browser"
	"github.com/baton-run/baton/shared/sigv4auth"
)

const (
	testKeyID  = "AKIDBROWSERTEST"
	testSecret = "browser-test-secret"
	testRegion = "us-west-2"
)

// devtools starts a headless Chromium with a DevTools port and returns its browser-level WebSocket URL
// ("ws://127.0.0.1:<port>/devtools/browser/<id>"). Chromium is stopped when the test ends. Without Chromium the
// test is skipped, or fails under CI=true.
func devtools(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium (not a unit test)")
	}
	path, err := browser.FindChromium(os.Getenv)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v — under CI=true a missing Chromium fails the run", err)
		}
		t.Skip(err)
	}
	// The profile folder is removed after Chromium's whole process group is gone (t.TempDir's own cleanup could
	// race a helper process still writing into it).
	profile, err := os.MkdirTemp("", "awsbrowser-test-")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile, "--no-first-run", "--disable-gpu", "--disable-dev-shm-usage", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = os.RemoveAll(profile)
	})
	listening := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return m[1]
		}
	}
	t.Fatalf("Chromium exited without a DevTools URL: %v", sc.Err())
	return ""
}

// dataPlane is an httptest server speaking the AgentCore Browser data plane as the official client expects it
// (restJson1): StartBrowserSession and StopBrowserSession, and the automation stream, proxied to a real
// Chromium's browser-level DevTools socket. Every request must carry a valid SigV4 signature (service
// bedrock-agentcore).
type dataPlane struct {
	srv *httptest.Server

	mu       sync.Mutex
	starts   []startRecord
	stopped  []string // "<browserId>/<sessionId>"
	upgrades int
	refused  []string // why requests were refused
}

type startRecord struct {
	BrowserID             string
	SessionTimeoutSeconds int
	ViewPort              map[string]int
}

func newDataPlane(t *testing.T, cdpURL string) *dataPlane {
	t.Helper()
	d := &dataPlane{}
	v := &sigv4auth.Verifier{Service: SigningName, Lookup: func(_ context.Context, id string) (string, string, error) {
		if id != testKeyID {
			return "", "", sigv4auth.ErrUnknownKey
		}
		return "project", testSecret, nil
	}}
	target, err := url.Parse(cdpURL)
	if err != nil {
		t.Fatal(err)
	}
	target.Scheme = "http"
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		out := *target
		pr.Out.URL = &out
		pr.Out.Host = ""
	}}
	verify := func(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
		body, _ := io.ReadAll(r.Body)
		if _, err := v.Verify(r, body); err != nil {
			d.mu.Lock()
			d.refused = append(d.refused, r.Method+" "+r.URL.Path+": "+err.Error())
			d.mu.Unlock()
			w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `{"message":%q}`, err.Error())
			return nil, false
		}
		return body, true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /browsers/{id}/sessions/start", func(w http.ResponseWriter, r *http.Request) {
		body, ok := verify(w, r)
		if !ok {
			return
		}
		var in struct {
			SessionTimeoutSeconds int            `json:"sessionTimeoutSeconds"`
			ViewPort              map[string]int `json:"viewPort"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			w.Header().Set("X-Amzn-ErrorType", "ValidationException")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"message":%q}`, err.Error())
			return
		}
		id := r.PathValue("id")
		d.mu.Lock()
		d.starts = append(d.starts, startRecord{BrowserID: id, SessionTimeoutSeconds: in.SessionTimeoutSeconds, ViewPort: in.ViewPort})
		sid := fmt.Sprintf("sess%d", len(d.starts))
		d.mu.Unlock()
		stream := "ws://" + r.Host + "/browser-streams/" + id + "/sessions/" + sid + "/automation"
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"browserIdentifier":%q,"sessionId":%q,"createdAt":"2026-01-02T03:04:05Z",`+
			`"streams":{"automationStream":{"streamEndpoint":%q,"streamStatus":"ENABLED"}}}`, id, sid, stream)
	})
	mux.HandleFunc("PUT /browsers/{id}/sessions/stop", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := verify(w, r); !ok {
			return
		}
		id, sid := r.PathValue("id"), r.URL.Query().Get("sessionId")
		d.mu.Lock()
		d.stopped = append(d.stopped, id+"/"+sid)
		d.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"browserIdentifier":%q,"sessionId":%q,"lastUpdatedAt":"2026-01-02T03:05:05Z"}`, id, sid)
	})
	mux.HandleFunc("GET /browser-streams/{id}/sessions/{sid}/automation", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := verify(w, r); !ok {
			return
		}
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "not a WebSocket upgrade", http.StatusBadRequest)
			return
		}
		d.mu.Lock()
		d.upgrades++
		d.mu.Unlock()
		proxy.ServeHTTP(w, r)
	})
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	return d
}

// client returns the official data-plane client pointed at the test server with the given secret.
func (d *dataPlane) client(secret string) *bedrockagentcore.Client {
	return bedrockagentcore.New(bedrockagentcore.Options{
		Region:       testRegion,
		BaseEndpoint: aws.String(d.srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(testKeyID, secret, ""),
	})
}

// page serves the form used by the tool test.
func page(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Remote form</title><input id="q">`+
			`<button id="go" onclick="document.getElementById('out').textContent='Searched: '+document.getElementById('q').value">Go</button>`+
			`<p id="out"></p>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestToolDrivesAnAWSBrowserSessionOverTheSignedAutomationStream(t *testing.T) {
	t.Parallel()
	d := newDataPlane(t, devtools(t))
	site := page(t)
	// A loaded machine starts and dials slowly; only the bounds of failures are under test elsewhere.
	pool := browser.NewPool(New(d.client(testSecret), Config{}), browser.Config{OpenTimeout: 5 * time.Minute})
	arn := "arn:aws:bedrock-agentcore:us-west-2:123456789012:browser-custom/my_browser-a1b2c3d4e5"
	tl := browser.Tool(pool.Session(browser.Key{SessionID: "sesn_aws", BrowserARN: arn}))

	for _, args := range []string{
		`{"action":"navigate","url":"` + site.URL + `/","timeout_seconds":120}`,
		`{"action":"type","selector":"#q","text":"baton","timeout_seconds":120}`,
		`{"action":"click","selector":"#go","timeout_seconds":120}`,
	} {
		res, err := tl.Call(context.Background(), json.RawMessage(args))
		if err != nil || res.IsError {
			t.Fatalf("Call(%s) = %+v, %v", args, res, err)
		}
	}
	res, err := tl.Call(context.Background(), json.RawMessage(`{"action":"get_text","timeout_seconds":120}`))
	if err != nil || res.IsError || !strings.Contains(res.Output, "Searched: baton") || !strings.Contains(res.Output, "Title: Remote form") {
		t.Fatalf("get_text = %+v, %v; want the typed text in the result", res, err)
	}
	res, err = tl.Call(context.Background(), json.RawMessage(`{"action":"screenshot","timeout_seconds":120}`))
	if err != nil || res.IsError || len(res.Images) != 1 {
		t.Fatalf("screenshot = %q, %v, %d images", res.Output, err, len(res.Images))
	}

	if err := pool.Close(context.Background()); err != nil {
		t.Fatalf("close the pool: %v", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	want := []startRecord{{BrowserID: "my_browser-a1b2c3d4e5", SessionTimeoutSeconds: DefaultSessionTimeoutSeconds,
		ViewPort: map[string]int{"width": browser.ViewportWidth, "height": browser.ViewportHeight}}}
	if diff := cmp.Diff(want, d.starts); diff != "" {
		t.Errorf("StartBrowserSession calls (-want +got):\n%s", diff)
	}
	if d.upgrades != 1 || len(d.refused) != 0 {
		t.Errorf("automation upgrades = %d, refused = %q; want one verified upgrade", d.upgrades, d.refused)
	}
	if diff := cmp.Diff([]string{"my_browser-a1b2c3d4e5/sess1"}, d.stopped); diff != "" {
		t.Errorf("StopBrowserSession calls (-want +got):\n%s", diff)
	}
}

func TestAutomationStreamRefusesABadSignature(t *testing.T) {
	t.Parallel()
	d := newDataPlane(t, devtools(t))
	p := New(d.client(testSecret), Config{})
	wsURL, header, err := p.automation(context.Background(), DefaultIdentifier, "sess9")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(d.srv.URL, "http://", "ws://", 1) + "/browser-streams/aws.browser.v1/sessions/sess9/automation"; wsURL != want {
		t.Errorf("automation URL = %q, want %q", wsURL, want)
	}
	for _, h := range []string{"Authorization", "X-Amz-Date"} {
		if header.Get(h) == "" {
			t.Errorf("the upgrade request has no %s header", h)
		}
	}
	if !strings.Contains(header.Get("Authorization"), "/"+testRegion+"/"+SigningName+"/aws4_request") {
		t.Errorf("Authorization %q is not scoped to %s/%s", header.Get("Authorization"), testRegion, SigningName)
	}

	// The signed upgrade is accepted (and closed again at once).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := remote.DialContext(ctx, wsURL, remote.WithConnHTTPHeader(header))
	if err != nil {
		t.Fatalf("dial with the signed headers: %v", err)
	}
	_ = conn.Close()

	tampered := header.Clone()
	tampered.Set("Authorization", regexp.MustCompile(`Signature=[0-9a-f]+`).ReplaceAllString(header.Get("Authorization"), "Signature="+strings.Repeat("0", 64)))
	for name, h := range map[string]http.Header{"tampered": tampered, "unsigned": {}} {
		if _, err := remote.DialContext(ctx, wsURL, remote.WithConnHTTPHeader(h)); err == nil {
			t.Errorf("a %s upgrade was accepted", name)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.upgrades != 1 || len(d.refused) != 2 {
		t.Errorf("upgrades = %d, refused = %q; want the signed one through and two refused", d.upgrades, d.refused)
	}
}

func TestStartFailureIsAnErrorResultAndWritesNoSession(t *testing.T) {
	t.Parallel()
	d := newDataPlane(t, "ws://127.0.0.1:1/devtools/browser/unused")
	pool := browser.NewPool(New(d.client("wrong-secret"), Config{}), browser.Config{})
	t.Cleanup(func() { _ = pool.Close(context.Background()) })
	res, err := browser.Tool(pool.Session(browser.Key{SessionID: "sesn_x"})).Call(context.Background(),
		json.RawMessage(`{"action":"get_text"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "the browser could not be started") || !strings.Contains(res.Output, "AccessDeniedException") {
		t.Errorf("result %+v, want an error result saying the browser could not be started", res)
	}
	if strings.Contains(res.Output, "wrong-secret") {
		t.Errorf("the result shows the secret: %q", res.Output)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.starts) != 0 || d.upgrades != 0 || len(d.refused) != 1 {
		t.Errorf("starts = %v, upgrades = %d, refused = %q; want one refused start and nothing else", d.starts, d.upgrades, d.refused)
	}
}

func TestIdentifier(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"": DefaultIdentifier,
		"arn:aws:bedrock-agentcore:us-west-2:aws:browser/aws.browser.v1":                        "aws.browser.v1",
		"arn:aws:bedrock-agentcore:us-west-2:123456789012:browser-custom/my_browser-a1b2c3d4e5": "my_browser-a1b2c3d4e5",
		"my_browser-a1b2c3d4e5": "my_browser-a1b2c3d4e5",
	}
	for in, want := range cases {
		if got := Identifier(in); got != want {
			t.Errorf("Identifier(%q) = %q, want %q", in, got, want)
		}
	}
}
