package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/shared/browser"
	"github.com/baton-run/baton/tests/stack"
)

// The live console (docs/console.md) driven in headless Chromium through chromedp: a person logs in with the
// project key, opens a Session whose turn waits for a function result, types the result in the page, and sees the
// turn complete with the reply that quotes it.

// refundScript calls approve_refund for "refund order <id>" and, once the result arrives, replies with it.
func refundScript() map[string]any {
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_matches": `(?i)refund order (?P<order>[\w-]+)`},
				"calls": []any{map[string]any{"name": "approve_refund", "arguments": map[string]any{"order_id": "{{.Match.order}}"}}}},
			map[string]any{"when": map[string]any{"after_tool": "approve_refund"},
				"reply": `Refund decision: {{tool_output "approve_refund"}}`},
		},
	}
}

// consoleBrowser starts a headless Chromium for one test (chromedp makes and removes its own profile folder) and
// returns its tab, which has run once (so later calls may carry their own deadlines). Without Chromium the test is
// skipped, or fails under CI=true.
func consoleBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := browser.FindChromium(os.Getenv)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v — under CI=true a missing Chromium fails the run", err)
		}
		t.Skip(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc() // kills Chromium and waits for it
	})
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return tab
}

// into runs a and stores its value in dst.
func into[T any](dst *T, a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		v, err := a(ctx, t)
		*dst = v
		return err
	})
}

// inPage runs steps in the tab with a deadline of d.
func inPage(tab context.Context, d time.Duration, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tab, d)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// poll waits until the JavaScript expression is true, at most d.
// clickWhenPresent clicks the element matching the CSS selector as soon as the page has it, finding and clicking it
// in one evaluation: the page re-renders lists as events arrive, so a node found by one CDP call may be replaced
// before a second one clicks it.
func clickWhenPresent(selector string) chromedp.Action[chromedp.Void] {
	return poll(`(() => { const e = document.querySelector(`+jsString(selector)+`); if (!e) return false; e.click(); return true })()`, testTimeout)
}

func poll(expression string, d time.Duration) chromedp.Action[chromedp.Void] {
	var ok bool
	return into(&ok, chromedp.Poll[bool](expression, chromedp.WithPollingTimeout(d), chromedp.WithPollingInterval(50*time.Millisecond)))
}

// newRefundAgent creates a scripted agent with the function approve_refund and refundScript.
func newRefundAgent(t *testing.T, ctx context.Context, client openai.Client) string {
	t.Helper()
	agent, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Ask a person to approve a refund", "approve_refund", map[string]any{
				"type":       "object",
				"properties": map[string]any{"order_id": map[string]any{"type": "string"}},
				"required":   []string{"order_id"},
			})},
	}, option.WithJSONSet("x_baton", map[string]any{
		"model_provider": map[string]any{"protocol": "scripted"},
		"script":         refundScript(),
	}))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	return agent.ID
}

// parkedRefundSession creates a Session of agentID, asks for a refund and returns once its turn waits for the
// approve_refund result, with that required action.
func parkedRefundSession(t *testing.T, ctx context.Context, client openai.Client, agentID string) (*openai.AgentSession, requiredAction) {
	t.Helper()
	sess := newIdleSession(t, ctx, client, agentID)
	rec := record(t, ctx, client, sess.ID)
	postEvents(t, ctx, client, sess.ID, userMessage("Please refund order A-17"))
	rec.WaitFor(t, 0, "requires_action", isType("agent.session.requires_action"))
	parked := getSession(t, ctx, client, sess.ID)
	if parked.Status != "requires_action" || len(parked.RequiredActions) != 1 || parked.RequiredActions[0].Name != "approve_refund" {
		t.Fatalf("parked session = %+v, want one approve_refund required action", parked)
	}
	return sess, parked.RequiredActions[0]
}

// consoleLogin opens the console in tab and logs in with key.
func consoleLogin(t *testing.T, tab context.Context, st *stack.Stack) {
	t.Helper()
	if err := inPage(tab, testTimeout,
		chromedp.Navigate(st.APIURL+"/console"),
		chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.SendKeys(chromedp.CSS("#key"), st.APIKey),
		chromedp.Click(chromedp.CSS("#login-submit")),
		chromedp.WaitVisible(chromedp.CSS("#sessions")),
	); err != nil {
		t.Fatalf("log in to the console: %v\n%s", err, pageText(tab))
	}
}

// outputJSON is a function_call_output item's output and error as raw JSON (both always present, maybe null).
type outputJSON struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
	Error  json.RawMessage `json:"error"`
}

// outputItem returns the function_call_output item of callID, read through the SDK.
func outputItem(t *testing.T, ctx context.Context, client openai.Client, sessionID, callID string) outputJSON {
	t.Helper()
	pager := client.Beta.Agents.Sessions.Items.ListAutoPaging(ctx, sessionID, openai.BetaAgentSessionItemListParams{
		Order: openai.BetaAgentSessionItemListParamsOrderAsc})
	for pager.Next() {
		it := decode[outputJSON](t, pager.Current().RawJSON())
		if it.Type == "function_call_output" && it.CallID == callID {
			return it
		}
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("list items: %v", describe(err))
	}
	t.Fatalf("session %s has no function_call_output for %s", sessionID, callID)
	return outputJSON{}
}

func TestConsoleApprovesOneCallAndRejectsAnother(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	client := stack.OpenAI(st)
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	agentID := newRefundAgent(t, ctx, client)
	approved, approveCall := parkedRefundSession(t, ctx, client, agentID)
	rejected, rejectCall := parkedRefundSession(t, ctx, client, agentID)

	b := consoleBrowser(t)
	consoleLogin(t, b, st)
	idle := `document.getElementById("session-status").dataset.status === "idle" && document.querySelectorAll("#actions li").length === 0`
	for _, c := range []struct {
		sessionID, callID, button string
	}{{approved.ID, approveCall.CallID, "approve"}, {rejected.ID, rejectCall.CallID, "reject"}} {
		action := `#actions li[data-call-id="` + c.callID + `"]`
		if err := inPage(b, testTimeout,
			chromedp.Click(chromedp.CSS("#refresh")),
			clickWhenPresent(`#sessions button[data-session-id="`+c.sessionID+`"]`),
			clickWhenPresent(action+" button."+c.button),
			poll(`document.getElementById("session-id").textContent === `+jsString(c.sessionID)+` && `+idle, testTimeout),
		); err != nil {
			t.Fatalf("%s %s in the console: %v\n%s", c.button, c.callID, err, pageText(b))
		}
	}

	for _, c := range []struct {
		sessionID, callID, wantOutput, wantError string
	}{
		{approved.ID, approveCall.CallID, `"{\"approved\":true}"`, "null"},
		{rejected.ID, rejectCall.CallID, "null", `"rejected by the operator"`},
	} {
		if s := getSession(t, ctx, client, c.sessionID); s.Status != "idle" {
			t.Errorf("session %s status = %q, want idle", c.sessionID, s.Status)
		}
		it := outputItem(t, ctx, client, c.sessionID, c.callID)
		if string(it.Output) != c.wantOutput || string(it.Error) != c.wantError {
			t.Errorf("function_call_output of %s: output %s error %s, want %s and %s", c.callID, it.Output, it.Error, c.wantOutput, c.wantError)
		}
	}
}

func TestConsoleAnswersAPendingCallTypedByAPerson(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	client := stack.OpenAI(st)
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()

	sess, action := parkedRefundSession(t, ctx, client, newRefundAgent(t, ctx, client))

	// A wrong key shows the API's own message.
	wrong := st.WithKey("sk-not-a-key").Do(t, http.MethodGet, "/v1/agents/sessions", nil, nil)
	if wrong.Status != http.StatusUnauthorized || wrong.Error().Message == "" {
		t.Fatalf("GET sessions with a wrong key = %d %s, want 401 with a message", wrong.Status, wrong.Body)
	}

	// The typed result holds markup: the page must show it as text.
	typed := `Approved by Dana <b id="injected">ok</b>`
	wantReply := "Refund decision: " + typed
	actionSel := `#actions li[data-call-id="` + action.CallID + `"]`

	b := consoleBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	var loginError, shownName, shownArgs string
	err := inPage(b, testTimeout,
		chromedp.Navigate(st.APIURL+"/console"),
		chromedp.WaitVisible(css("#key")),
		chromedp.SendKeys(css("#key"), "sk-not-a-key"),
		chromedp.Click(css("#login-submit")),
		poll(`document.getElementById("login-error").textContent !== ""`, eventTimeout),
		into(&loginError, chromedp.Text(css("#login-error"))),
	)
	if err != nil {
		t.Fatalf("log in with a wrong key: %v\n%s", err, pageText(b))
	}
	if loginError != wrong.Error().Message {
		t.Errorf("login error shows %q, want the API's message %q", loginError, wrong.Error().Message)
	}

	sessionButton := css(`#sessions button[data-session-id="` + sess.ID + `"]`)
	var cleared string
	err = inPage(b, testTimeout,
		into(&cleared, chromedp.Evaluate[string](`document.getElementById("key").value = ""`)), // the person deletes the wrong key
		chromedp.SendKeys(css("#key"), st.APIKey),
		chromedp.Click(css("#login-submit")),
		chromedp.WaitVisible(sessionButton),
		chromedp.Click(sessionButton),
		chromedp.WaitVisible(css(actionSel+" input.result")),
		into(&shownName, chromedp.Text(css(actionSel+" .kind"))),
		into(&shownArgs, chromedp.Text(css(actionSel+" pre.arguments"))),
	)
	if err != nil {
		t.Fatalf("open the session in the console: %v\n%s", err, pageText(b))
	}
	if shownName != "approve_refund" {
		t.Errorf("the pending call shows name %q, want approve_refund", shownName)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(shownArgs), &args); err != nil || args["order_id"] != "A-17" {
		t.Errorf("the pending call shows arguments %q, want {\"order_id\":\"A-17\"}", shownArgs)
	}

	var status, reply string
	var injected bool
	var pending int
	messages := `[...document.querySelectorAll('#items li[data-type="message"] pre.text')]`
	err = inPage(b, testTimeout,
		chromedp.SendKeys(css(actionSel+" input.result"), typed),
		chromedp.Click(css(actionSel+" button.submit")),
		poll(`document.getElementById("session-status").dataset.status === "idle" && `+
			messages+`.some(p => p.textContent === `+jsString(wantReply)+`)`, testTimeout),
		into(&status, chromedp.Text(css("#session-status"))),
		into(&reply, chromedp.Evaluate[string](messages+`.pop().textContent`)),
		into(&injected, chromedp.Evaluate[bool](`document.getElementById("injected") !== null`)),
		into(&pending, chromedp.Evaluate[int](`document.querySelectorAll("#actions li").length`)),
	)
	if err != nil {
		t.Fatalf("answer the call in the console: %v\n%s", err, pageText(b))
	}
	if status != "idle" || reply != wantReply {
		t.Errorf("the page shows status %q and last message %q, want idle and %q", status, reply, wantReply)
	}
	if injected {
		t.Error("markup in a tool result became an element of the page")
	}
	if pending != 0 {
		t.Errorf("the page still lists %d pending actions, want none", pending)
	}

	// The same through the API: the Session is idle, the result is the typed text, the reply quotes it.
	done := getSession(t, ctx, client, sess.ID)
	if done.Status != "idle" || len(done.RequiredActions) != 0 {
		t.Errorf("session after the answer = %+v, want idle with no required actions", done)
	}
	var output, final string
	for _, it := range listItems(t, ctx, client, sess.ID) {
		switch {
		case it.Type == "function_call_output" && it.CallID == action.CallID:
			output = it.outputString()
		case it.Type == "message" && it.Role == "assistant":
			final = it.text()
		}
	}
	if output != typed {
		t.Errorf("function_call_output output = %q, want the typed %q", output, typed)
	}
	if final != wantReply {
		t.Errorf("assistant reply = %q, want %q", final, wantReply)
	}
}

func TestConsolePageCarriesItsSecurityHeaders(t *testing.T) {
	t.Parallel()
	st := stack.Shared(t)
	noRedirect := &http.Client{Timeout: testTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) *http.Response {
		t.Helper()
		res, err := noRedirect.Get(st.APIURL + path) // no key, no beta header: the files need neither
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	for _, c := range []struct{ path, contentType string }{
		{"/console", "text/html; charset=utf-8"},
		{"/console/app.js", "text/javascript; charset=utf-8"},
		{"/console/app.css", "text/css; charset=utf-8"},
	} {
		res := get(c.path)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != c.contentType {
			t.Errorf("GET %s = %d %q, want 200 %q", c.path, res.StatusCode, res.Header.Get("Content-Type"), c.contentType)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self';") {
			t.Errorf("GET %s Content-Security-Policy = %q, want default-src 'self' first", c.path, csp)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s X-Content-Type-Options = %q, want nosniff", c.path, got)
		}
	}
	if res := get("/console/"); res.StatusCode != http.StatusPermanentRedirect || res.Header.Get("Location") != "../console" {
		t.Errorf("GET /console/ = %d Location %q, want 308 to ../console", res.StatusCode, res.Header.Get("Location"))
	}
	res := get("/console/secrets.txt")
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusNotFound || body.Error.Code != "unsupported_operation" {
		t.Errorf("GET /console/secrets.txt = %d %+v (%v), want 404 unsupported_operation", res.StatusCode, body, err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pageText is the page's visible text, for a failure message.
func pageText(ctx context.Context) string {
	var text string
	if err := inPage(ctx, 10*time.Second, into(&text, chromedp.Evaluate[string](`document.body.innerText`))); err != nil {
		return "(page text unavailable: " + err.Error() + ")"
	}
	return "page:\n" + text
}
