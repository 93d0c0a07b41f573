package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
)

// formPage is the test page: typing a name and pressing the button shows "Hello, <name>!" in #result, which is
// hidden until then.
const formPage = `<!doctype html>
<html><head><title>Greeting form</title></head>
<body>
<h1>Say hello</h1>
<input id="name" type="text">
<button id="go" onclick="var r = document.getElementById('result');
  r.textContent = 'Hello, ' + document.getElementById('name').value + '!'; r.hidden = false;">Greet</button>
<p id="result" hidden></p>
<input id="upload" type="FILE">
</body></html>`

// site serves the form at / and a plain page at /other.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, formPage)
	})
	mux.HandleFunc("GET /other", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Other</title><p>Another page.</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// localProvider returns the local provider, or skips the test without Chromium (fails under CI=true).
func localProvider(t *testing.T) *Local {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium (not a unit test)")
	}
	path, err := FindChromium(os.Getenv)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v — under CI=true a missing Chromium fails the run", err)
		}
		t.Skip(err)
	}
	l, err := NewLocal(LocalConfig{ChromiumPath: path, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// localPool returns a pool on the local provider with cfg, closed when the test ends. Without Chromium the test
// is skipped, or fails under CI=true.
func localPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	l := localProvider(t)
	if cfg.OpenTimeout == 0 {
		cfg.OpenTimeout = 5 * time.Minute // a loaded machine starts Chromium slowly
	}
	p := NewPool(l, cfg)
	t.Cleanup(func() {
		if err := p.Close(context.Background()); err != nil {
			t.Errorf("close the pool: %v", err)
		}
		if err := l.Close(); err != nil {
			t.Errorf("close the local provider: %v", err)
		}
	})
	return p
}

func TestLocalBrowserCannotReachLinkLocalAddresses(t *testing.T) {
	t.Parallel()
	p := localPool(t, Config{})
	tl := Tool(p.Session(Key{SessionID: "sesn_guard"}))

	// Plain HTTP: the guard answers itself, and the tool reports a failed navigation.
	res := call(t, tl, `{"action":"navigate","url":"http://169.254.169.254/latest/meta-data/","timeout_seconds":120}`)
	if want := "navigation to http://169.254.169.254/latest/meta-data/ failed: " + refusedReason; !res.IsError || res.Output != want {
		t.Errorf("navigate = %+v, want the error result %q", res, want)
	}
	if res := ok(t, tl, `{"action":"get_text"}`); !strings.Contains(res.Output, refusedReason) {
		t.Errorf("the metadata page reads %q, want the guard's refusal", res.Output)
	}
	// HTTPS: the tunnel is refused, so the page does not load.
	res = call(t, tl, `{"action":"navigate","url":"https://169.254.170.2/v2/credentials","timeout_seconds":120}`)
	if !res.IsError || !strings.HasPrefix(res.Output, "navigation to https://169.254.170.2/v2/credentials failed: ") {
		t.Errorf("navigate over https = %+v, want a failed navigation", res)
	}
}

func TestLocalBrowserReachesOtherHostsThroughTheGuard(t *testing.T) {
	t.Parallel()
	ip := nonLoopbackIPv4(t)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Private</title><p>Reached through %s</p>`, r.Header.Get("Via"))
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	p := localPool(t, Config{})
	tl := Tool(p.Session(Key{SessionID: "sesn_private"}))
	ok(t, tl, `{"action":"navigate","url":"`+srv.URL+`/"}`)
	if res := ok(t, tl, `{"action":"get_text"}`); !strings.Contains(res.Output, "Title: Private") {
		t.Errorf("a private address reads %q, want the page", res.Output)
	}
}

// nonLoopbackIPv4 returns an IPv4 address of this machine that is neither loopback nor link-local; the test is
// skipped on a machine without one.
func nonLoopbackIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, isNet := a.(*net.IPNet); isNet && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no IPv4 address other than loopback")
	return ""
}

// call runs one tool call with args (a JSON object) and fails the test on a Call error.
func call(t *testing.T, tl harness.BuiltinTool, args string) harness.BuiltinResult {
	t.Helper()
	res, err := tl.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return res
}

// ok runs a call that must succeed and returns its result. Without a timeout_seconds it asks for the largest:
// the machine running the tests may be slow, and only failures are expected to reach a timeout.
func ok(t *testing.T, tl harness.BuiltinTool, args string) harness.BuiltinResult {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	if _, set := m["timeout_seconds"]; !set {
		m["timeout_seconds"] = MaxTimeoutSeconds
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		args = string(b)
	}
	res := call(t, tl, args)
	if res.IsError {
		t.Fatalf("Call(%s) is an error result: %s", args, res.Output)
	}
	return res
}

func TestToolFillsAFormAndReadsTheResultInChromium(t *testing.T) {
	t.Parallel()
	srv := site(t)
	p := localPool(t, Config{})
	tl := Tool(p.Session(Key{SessionID: "sesn_form"}))

	steps := []struct {
		args, command, output string
	}{
		{`{"action":"navigate","url":"` + srv.URL + `/"}`, "browser navigate " + srv.URL + "/",
			`Loaded ` + srv.URL + `/ (HTTP 200, title "Greeting form").`},
		{`{"action":"type","selector":"#name","text":"Ada"}`, `browser type #name "Ada"`, "Typed 3 characters into #name."},
		{`{"action":"click","selector":"#go"}`, "browser click #go",
			`Clicked #go. The page is ` + srv.URL + `/ (title "Greeting form").`},
		{`{"action":"wait","selector":"#result"}`, "browser wait #result",
			"#result is visible on " + srv.URL + "/."},
	}
	for _, s := range steps {
		res := ok(t, tl, s.args)
		if diff := cmp.Diff(harness.BuiltinResult{Output: s.output, Command: s.command}, res); diff != "" {
			t.Errorf("Call(%s) (-want +got):\n%s", s.args, diff)
		}
	}

	res := ok(t, tl, `{"action":"get_text"}`)
	want := "Title: Greeting form\nURL: " + srv.URL + "/\n\nSay hello\n Greet\n\nHello, Ada!"
	if diff := cmp.Diff(want, res.Output); diff != "" {
		t.Errorf("get_text output (-want +got):\n%s", diff)
	}
	if res.Command != "browser get_text" {
		t.Errorf("get_text command = %q", res.Command)
	}

	res = ok(t, tl, `{"action":"screenshot"}`)
	if len(res.Images) != 1 || res.Images[0].MediaType != "image/png" {
		t.Fatalf("screenshot images = %d, want one image/png", len(res.Images))
	}
	img, err := png.Decode(bytes.NewReader(res.Images[0].Data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	wantOut := fmt.Sprintf("Screenshot of %s/: %dx%d PNG, %d bytes.", srv.URL, b.Dx(), b.Dy(), len(res.Images[0].Data))
	if res.Output != wantOut || b.Dx() == 0 || b.Dy() == 0 {
		t.Errorf("screenshot output = %q (image %v), want %q", res.Output, b, wantOut)
	}
}

func TestToolReportsFailuresAsErrorResults(t *testing.T) {
	t.Parallel()
	srv := site(t)
	p := localPool(t, Config{})
	tl := Tool(p.Session(Key{SessionID: "sesn_errors"}))
	ok(t, tl, `{"action":"navigate","url":"`+srv.URL+`/"}`)

	// A closed port: Chromium reports a network error at once.
	closed := httptest.NewServer(http.NotFoundHandler())
	deadURL := closed.URL + "/"
	closed.Close()

	cases := []struct {
		name, args, output string
	}{
		{"an unknown selector times out", `{"action":"wait","selector":"#nope","timeout_seconds":1}`,
			"no visible element matches the selector #nope within 1 seconds"},
		{"a click on an unknown selector times out", `{"action":"click","selector":"#missing","timeout_seconds":1}`,
			"no visible element matches the selector #missing within 1 seconds"},
		{"a hidden element is not visible", `{"action":"wait","selector":"#result","timeout_seconds":1}`,
			"no visible element matches the selector #result within 1 seconds"},
		{"an invalid selector fails", `{"action":"click","selector":"#3","timeout_seconds":120}`, "click failed: "},
		{"a file input cannot be typed into", `{"action":"type","selector":"#upload","text":"/etc/passwd","timeout_seconds":120}`,
			"type cannot fill a file input (uploading files is not supported)"},
		{"a page that does not load fails", `{"action":"navigate","url":"` + deadURL + `","timeout_seconds":120}`,
			"navigation to " + deadURL + " failed: the site could not be reached: dial tcp "},
	}
	for _, c := range cases {
		res := call(t, tl, c.args)
		if !res.IsError || !strings.HasPrefix(res.Output, c.output) {
			t.Errorf("%s: result %+v, want an error result starting %q", c.name, res, c.output)
		}
	}
	// The failed navigation left an error page; the browser is still usable.
	if res := ok(t, tl, `{"action":"get_text"}`); !strings.Contains(res.Output, "connection refused") {
		t.Errorf("get_text after the failed navigation = %q, want the error page", res.Output)
	}
	ok(t, tl, `{"action":"navigate","url":"`+srv.URL+`/other"}`)
}

func TestPoolKeepsOnePagePerSessionAcrossTools(t *testing.T) {
	t.Parallel()
	srv := site(t)
	p := localPool(t, Config{})
	first := Tool(p.Session(Key{SessionID: "sesn_a"}))
	ok(t, first, `{"action":"navigate","url":"`+srv.URL+`/other"}`)

	// A later turn builds its tools again from the configuration: the same Session gets the same page.
	tools := p.Tools("sesn_a", agent.Config{Tools: []json.RawMessage{json.RawMessage(`{"type":"agentcore_browser","name":"web"}`)}})
	again, found := tools["web"]
	if !found || len(tools) != 1 {
		t.Fatalf("Tools = %v, want one tool named web", tools)
	}
	if res := ok(t, again, `{"action":"get_text"}`); !strings.Contains(res.Output, "URL: "+srv.URL+"/other") || !strings.Contains(res.Output, "Another page.") {
		t.Errorf("the second tool of the same Session reads %q, want the page the first loaded", res.Output)
	}

	// Another Session has its own page.
	other := Tool(p.Session(Key{SessionID: "sesn_b"}))
	if res := ok(t, other, `{"action":"get_text"}`); strings.Contains(res.Output, srv.URL) {
		t.Errorf("another Session reads %q, want a page of its own", res.Output)
	}
	if n := p.open(); n != 2 {
		t.Errorf("open browsers = %d, want 2", n)
	}
}

func TestPoolClosesIdleAndEvictedBrowsers(t *testing.T) {
	t.Parallel()
	srv := site(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := localPool(t, Config{MaxSessions: 1, IdleTimeout: time.Minute, Clock: func() time.Time { return now }})
	a := Tool(p.Session(Key{SessionID: "sesn_a"}))
	b := Tool(p.Session(Key{SessionID: "sesn_b"}))

	ok(t, a, `{"action":"navigate","url":"`+srv.URL+`/other"}`)
	p.sweep(now.Add(59 * time.Second))
	if res := ok(t, a, `{"action":"get_text"}`); !strings.Contains(res.Output, "Another page.") {
		t.Errorf("before the idle timeout the page is %q, want it kept", res.Output)
	}

	// The pool is full: b's first action closes a's idle browser.
	ok(t, b, `{"action":"navigate","url":"`+srv.URL+`/"}`)
	if n := p.open(); n != 1 {
		t.Errorf("open browsers = %d, want 1 (MaxSessions)", n)
	}
	if res := ok(t, a, `{"action":"get_text"}`); strings.Contains(res.Output, "Another page.") {
		t.Errorf("an evicted Session still reads %q, want a new blank page", res.Output)
	}

	p.sweep(now.Add(time.Minute))
	if n := p.open(); n != 0 {
		t.Errorf("open browsers after the idle timeout = %d, want 0", n)
	}
}

func TestClosedPoolRefusesActions(t *testing.T) {
	t.Parallel()
	p := NewPool(providerFunc(func(context.Context, Key) (Browser, error) {
		return Browser{}, errors.New("no browser in this test")
	}), Config{})
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := call(t, Tool(p.Session(Key{SessionID: "s"})), `{"action":"get_text"}`)
	if !res.IsError || res.Output != ErrClosed.Error() {
		t.Errorf("result %+v, want the error result %q", res, ErrClosed)
	}
}

func TestABrowserThatCannotStartIsAnErrorResult(t *testing.T) {
	t.Parallel()
	opened := 0
	p := NewPool(providerFunc(func(context.Context, Key) (Browser, error) {
		opened++
		return Browser{}, errors.New("no display for you")
	}), Config{})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	tl := Tool(p.Session(Key{SessionID: "s"}))
	for range 2 {
		res := call(t, tl, `{"action":"wait","selector":"#a","timeout_seconds":1}`)
		if want := "the browser could not be started: no display for you"; !res.IsError || res.Output != want {
			t.Errorf("result %+v, want the error result %q", res, want)
		}
	}
	if opened != 2 {
		t.Errorf("the provider was asked %d times, want once per call (a refused open is not retried within a call, but again at the next one)", opened)
	}
}

func TestToolRefusesArgumentsThatMakeNoCall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, args, command, output string
	}{
		{"navigate without a url", `{"action":"navigate"}`, "browser navigate ", "navigate needs a url"},
		{"a file url", `{"action":"navigate","url":"file:///etc/passwd"}`, "browser navigate file:///etc/passwd",
			`navigate needs an absolute http or https URL; "file:///etc/passwd" is not one`},
		{"a javascript url", `{"action":"navigate","url":"javascript:alert(1)"}`, "browser navigate javascript:alert(1)",
			`navigate needs an absolute http or https URL; "javascript:alert(1)" is not one`},
		{"a relative url", `{"action":"navigate","url":"/x"}`, "browser navigate /x",
			`navigate needs an absolute http or https URL; "/x" is not one`},
		{"click without a selector", `{"action":"click"}`, "browser click ", "click needs a selector"},
		{"wait without a selector", `{"action":"wait"}`, "browser wait ", "wait needs a selector"},
		{"type without text", `{"action":"type","selector":"#a"}`, `browser type #a ""`, "type needs a selector and a text"},
		{"an unknown action", `{"action":"scroll"}`, "browser scroll",
			`unknown action "scroll"; use navigate, get_text, click, type, wait or screenshot`},
		{"a timeout beyond the bound", `{"action":"get_text","timeout_seconds":121}`, "browser get_text",
			"timeout_seconds must be between 1 and 120"},
		{"arguments that are not an object", `[1]`, "browser", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, Tool(refuse{t}), c.args)
			if !res.IsError || res.Command != c.command || !strings.HasPrefix(res.Output, c.output) {
				t.Errorf("result %+v, want an error result with command %q and output %q", res, c.command, c.output)
			}
		})
	}
}

func TestToolParametersAcceptWhatTheToolRuns(t *testing.T) {
	t.Parallel()
	d := Tool(refuse{t}).Definition()
	if d.Description == "" || d.Name != "" {
		t.Errorf("definition = %+v, want a description and no name (the harness sets it)", d)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Parameters))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:test:browser", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("urn:test:browser")
	if err != nil {
		t.Fatalf("the parameters are not a valid JSON Schema: %v", err)
	}
	cases := []struct {
		args  string
		valid bool
	}{
		{`{"action":"navigate","url":"https://example.com/","timeout_seconds":120}`, true},
		{`{"action":"type","selector":"#q","text":"hello"}`, true},
		{`{"action":"screenshot"}`, true},
		{`{}`, false},
		{`{"action":"scroll"}`, false},
		{`{"action":"wait","selector":"#q","timeout_seconds":0}`, false},
		{`{"action":"wait","selector":"#q","timeout_seconds":121}`, false},
		{`{"action":"get_text","script":"alert(1)"}`, false},
	}
	for _, c := range cases {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); (err == nil) != c.valid {
			t.Errorf("validate %s: %v, want valid=%v", c.args, err, c.valid)
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"short text is kept", "abc", 3, "abc"},
		{"long text is cut with a marker", "abcdef", 4, "abcd\n[truncated: 4 of 6 bytes shown]"},
		{"a cut never splits a character", "aé", 2, "a\n[truncated: 1 of 3 bytes shown]"},
	}
	for _, c := range cases {
		if got := truncate(c.in, c.limit); got != c.want {
			t.Errorf("%s: truncate(%q, %d) = %q, want %q", c.name, c.in, c.limit, got, c.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{"unset means the defaults", nil, Config{}, ""},
		{"values are read", map[string]string{"BATON_BROWSER_IDLE_SECONDS": "30", "BATON_BROWSER_MAX_SESSIONS": "2"},
			Config{IdleTimeout: 30 * time.Second, MaxSessions: 2}, ""},
		{"zero is refused", map[string]string{"BATON_BROWSER_IDLE_SECONDS": "0"}, Config{},
			`BATON_BROWSER_IDLE_SECONDS must be a positive integer, not "0"`},
		{"a word is refused", map[string]string{"BATON_BROWSER_MAX_SESSIONS": "many"}, Config{},
			`BATON_BROWSER_MAX_SESSIONS must be a positive integer, not "many"`},
	}
	for _, c := range cases {
		got, err := LoadConfig(func(k string) string { return c.env[k] })
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.IdleTimeout != c.want.IdleTimeout || got.MaxSessions != c.want.MaxSessions {
			t.Errorf("%s: LoadConfig = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestFindChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := dir + "/plain"
	exe := dir + "/chromium"
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got, err := FindChromium(env(map[string]string{"BATON_CHROMIUM_PATH": exe})); err != nil || got != exe {
		t.Errorf("an executable BATON_CHROMIUM_PATH: %q, %v", got, err)
	}
	for _, bad := range []string{plain, dir, dir + "/absent"} {
		if _, err := FindChromium(env(map[string]string{"BATON_CHROMIUM_PATH": bad})); !errors.Is(err, ErrNoChromium) {
			t.Errorf("BATON_CHROMIUM_PATH %q: error %v, want ErrNoChromium", bad, err)
		}
		if Available(env(map[string]string{"BATON_CHROMIUM_PATH": bad})) {
			t.Errorf("Available with BATON_CHROMIUM_PATH %q", bad)
		}
	}
}

// FuzzToolArguments: whatever a model sends, the tool answers without panicking; arguments the tool refuses run
// no browser action, and every answer has a command rendering.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{"action":"navigate","url":"https://example.com/"}`, `{"action":"type","selector":"#a","text":"x"}`,
		`{"action":"wait","selector":"#a","timeout_seconds":5}`, `{"action":"navigate","url":"file:///etc/passwd"}`,
		`{"action":"get_text","timeout_seconds":-1}`, `{"action":7}`, `null`, `[]`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var ran bool
		s := sessionFunc(func(context.Context, time.Duration, chromedp.Action[chromedp.Void]) error {
			ran = true
			return errors.New("no browser in this test")
		})
		res, err := Tool(s).Call(context.Background(), raw)
		if err != nil {
			t.Fatalf("Call(%q) returned an error: %v", raw, err)
		}
		if !res.IsError || !strings.HasPrefix(res.Command, "browser") || res.Output == "" {
			t.Fatalf("Call(%q) = %+v, want an error result with a command and a sentence", raw, res)
		}
		var a arguments
		if json.Unmarshal(raw, &a) != nil || a.check() != "" {
			if ran {
				t.Fatalf("Call(%q) ran a browser action for arguments it refuses", raw)
			}
		}
	})
}

// sessionFunc adapts a function to Session.
type sessionFunc func(context.Context, time.Duration, chromedp.Action[chromedp.Void]) error

func (f sessionFunc) Run(ctx context.Context, d time.Duration, a chromedp.Action[chromedp.Void]) error {
	return f(ctx, d, a)
}

// refuse is a Session that fails the test when the tool runs an action.
type refuse struct{ t *testing.T }

func (r refuse) Run(context.Context, time.Duration, chromedp.Action[chromedp.Void]) error {
	r.t.Error("the tool ran a browser action for arguments it should refuse")
	return errors.New("refused")
}

// providerFunc adapts a function to Provider.
type providerFunc func(context.Context, Key) (Browser, error)

func (f providerFunc) Open(ctx context.Context, k Key) (Browser, error) { return f(ctx, k) }

// TestABrowserThatDiesWhileStartingIsStartedAgain: a browser that was opened but dies at launch (here a
// "Chromium" that exits at once) is started again within the same call, and the call succeeds.
func TestABrowserThatDiesWhileStartingIsStartedAgain(t *testing.T) {
	t.Parallel()
	l := localProvider(t)
	t.Cleanup(func() { _ = l.Close() })
	broken, err := NewLocal(LocalConfig{ChromiumPath: "/bin/false", TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = broken.Close() })
	opened := 0
	p := NewPool(providerFunc(func(ctx context.Context, k Key) (Browser, error) {
		opened++
		if opened == 1 {
			return broken.Open(ctx, k)
		}
		return l.Open(ctx, k)
	}), Config{OpenTimeout: 5 * time.Minute})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	res := call(t, Tool(p.Session(Key{SessionID: "s"})), `{"action":"get_text"}`)
	if res.IsError || !strings.Contains(res.Output, "URL: about:blank") || opened != 2 {
		t.Errorf("result %+v after %d opens, want the page's text after a second start", res, opened)
	}
}
