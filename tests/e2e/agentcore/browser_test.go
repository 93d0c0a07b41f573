package agentcore_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

// itemsAscending lists a Session's items through the Agents API, oldest first.
func itemsAscending(t *testing.T, api *stack.Stack, sessionID string) []map[string]any {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions/"+sessionID+"/items?limit=100&order=asc", nil, nil)
	var body struct {
		Data    []map[string]any `json:"data"`
		HasMore bool             `json:"has_more"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil || body.HasMore {
		t.Fatalf("GET items: %d %s", r.Status, r.Body)
	}
	return body.Data
}

// formPage is the test's page: typing a name and clicking Greet adds <p id="result">Hello, <name>!</p>.
const formPage = `<!doctype html>
<html><head><title>Greeting form</title></head>
<body>
<h1>Greeting form</h1>
<input id="name" type="text">
<button id="go" onclick="var p = document.createElement('p'); p.id = 'result';
  p.textContent = 'Hello, ' + document.getElementById('name').value + '!'; document.body.appendChild(p);">Greet</button>
</body></html>`

// TestTheBrowserFillsAFormAndReadsTheResult: a harness declaring agentcore_browser "web"; the scripted model, in
// one response, navigates to a page the test serves, types into its input, clicks its button, waits for the element
// the button's script adds, reads the page as text and takes a screenshot. The harness runs the six calls in order
// (docs/tools.md "Browser"): each is a server_tool_use block named "web" with its toolResult streamed, get_text shows
// the typed text, the screenshot's text result names its size, and the final answer (the model reading the results)
// shows the greeting. Each call is a command_execution item of the Session with the same result.
func TestTheBrowserFillsAFormAndReadsTheResult(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(formPage))
	}))
	t.Cleanup(page.Close)
	url := page.URL + "/form"
	call := func(args map[string]any) map[string]any { return map[string]any{"name": "web", "arguments": args} }
	script := map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "greet"}, "calls": []any{
				call(map[string]any{"action": "navigate", "url": url}),
				call(map[string]any{"action": "type", "selector": "#name", "text": "Baton tester"}),
				call(map[string]any{"action": "click", "selector": "#go"}),
				call(map[string]any{"action": "wait", "selector": "#result"}),
				call(map[string]any{"action": "get_text"}),
				call(map[string]any{"action": "screenshot"}),
			}},
			map[string]any{"when": map[string]any{"after_tool": "web"}, "reply": "The page reads: {{tool_output 5}}"},
		},
		"chunk_size": 32,
	}
	f := newScriptedFixture(t, stack.Shared(t), "browser", script, cptypes.HarnessTool{Type: cptypes.HarnessToolTypeAgentcoreBrowser,
		Name: aws.String("web"), Config: &cptypes.HarnessToolConfigurationMemberAgentCoreBrowser{Value: cptypes.HarnessAgentCoreBrowserConfig{}}})
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("greet me on the form")}})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	if got := lastStop(frames); got != "end_turn" {
		t.Fatalf("last stop %q; frames %s", got, shape(frames))
	}

	calls := toolCalls(frames)
	wantResults := []*regexp.Regexp{
		regexp.MustCompile(`^Loaded ` + regexp.QuoteMeta(url) + ` \(HTTP 200, title "Greeting form"\)\.$`),
		regexp.MustCompile(`^Typed 12 characters into #name\.$`),
		regexp.MustCompile(`^Clicked #go\. The page is ` + regexp.QuoteMeta(url) + ` \(title "Greeting form"\)\.$`),
		regexp.MustCompile(`^#result is visible on ` + regexp.QuoteMeta(url) + `\.$`),
		regexp.MustCompile(`(?s)^Title: Greeting form\nURL: ` + regexp.QuoteMeta(url) + `\n.*Hello, Baton tester!`),
		regexp.MustCompile(`^Screenshot of ` + regexp.QuoteMeta(url) + `: 1456x819 PNG, [1-9][0-9]* bytes\.$`),
	}
	actions := []string{"navigate", "type", "click", "wait", "get_text", "screenshot"}
	if len(calls) != len(actions) {
		t.Fatalf("%d calls in the stream; want %d: %+v\nframes %s", len(calls), len(actions), calls, shape(frames))
	}
	for i, c := range calls {
		var in struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal([]byte(c.Input), &in)
		if c.Type != string(dptypes.HarnessToolUseTypeServerToolUse) || c.Name != "web" || in.Action != actions[i] {
			t.Errorf("call %d: %s %q input %s; want server_tool_use \"web\" action %s", i, c.Type, c.Name, c.Input, actions[i])
		}
		if !c.HasResult || c.Status != string(dptypes.HarnessToolUseStatusSuccess) || !wantResults[i].MatchString(c.Result) {
			t.Errorf("call %d (%s) result: streamed %v, status %q, text %q; want success matching %s", i, actions[i], c.HasResult, c.Status, c.Result, wantResults[i])
		}
	}
	if got := texts(frames); !strings.HasPrefix(got, "The page reads: Title: Greeting form") || !strings.Contains(got, "Hello, Baton tester!") {
		t.Errorf("final answer %q; want it to show the page's text with the greeting", got)
	}

	// The Session's items: one command_execution per call, in order, with the streamed result.
	api := f.agentsKey(t)
	var items []map[string]any
	for _, it := range itemsAscending(t, api, onlySession(t, api)) {
		if it["type"] == "command_execution" {
			items = append(items, it)
		}
	}
	wantCommands := []string{"browser navigate " + url, `browser type #name "Baton tester"`, "browser click #go",
		"browser wait #result", "browser get_text", "browser screenshot"}
	if len(items) != len(wantCommands) {
		t.Fatalf("%d command_execution items; want %d: %v", len(items), len(wantCommands), items)
	}
	for i, it := range items {
		if it["name"] != "web" || it["command"] != wantCommands[i] || it["status"] != "completed" || it["output"] != calls[i].Result {
			t.Errorf("item %d: name %v command %v status %v output %q; want web, %q, completed, %q",
				i, it["name"], it["command"], it["status"], it["output"], wantCommands[i], calls[i].Result)
		}
	}
}
