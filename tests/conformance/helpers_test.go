package conformance_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

// Bounds of every wait in this package.
const (
	testTimeout = 90 * time.Second // one scenario, end to end
	waitTimeout = 30 * time.Second // one awaited state or event
)

// requestIDPattern is the X-Request-Id format (docs/agents-api.md §1.1).
var requestIDPattern = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

// stackClient returns the shared stack, its SDK client (no retries) and a context bounded by testTimeout.
func stackClient(t *testing.T) (*stack.Stack, openai.Client, context.Context) {
	t.Helper()
	st := stack.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return st, stack.OpenAI(st), ctx
}

// newProjectKey creates a project of the test's own (a unique id starting with name, so repeated runs on one stack
// start empty) and returns its API key.
func newProjectKey(t *testing.T, st *stack.Stack, name string) string {
	t.Helper()
	return st.NewProjectKey(t, fmt.Sprintf("%s-%x", name, time.Now().UnixNano()))
}

// toolScript is the x_baton.script of the scripted model used by the scenarios: "call" calls get_weather once
// (Paris), "two calls" calls it twice in one response, "fail" fails the model, a tool result is answered with
// "done: <outputs>", anything else is echoed.
func toolScript() map[string]any {
	call := func(city string) map[string]any {
		return map[string]any{"name": "get_weather", "arguments": map[string]any{"city": city}}
	}
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "two calls"}, "calls": []any{call("Paris"), call("Rome")}},
			map[string]any{"when": map[string]any{"user_contains": "call"}, "calls": []any{call("Paris")}},
			map[string]any{"when": map[string]any{"user_contains": "fail"}, "error": "scripted failure"},
			map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": "done:{{range .Tools}} {{.Output}}{{end}}"},
		},
	}
}

// scripted is the x_baton extension selecting the scripted model with toolScript.
func scripted() map[string]any {
	return map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": toolScript()}
}

// weatherParameters is get_weather's JSON Schema.
func weatherParameters() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []string{"city"}, "additionalProperties": false}
}

// newAgent creates a saved Agent with the function get_weather and the scripted model through the SDK.
func newAgent(t *testing.T, ctx context.Context, client openai.Client, name string) *openai.Agent {
	t.Helper()
	params := openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", weatherParameters())},
	}
	if name != "" {
		params.Name = openai.String(name)
	}
	a, err := client.Beta.Agents.New(ctx, params, option.WithJSONSet("x_baton", scripted()))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	return a
}

var noneEnvironment = openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}}

// newSession creates a Session of agentID (environment none) with optional string input.
func newSession(t *testing.T, ctx context.Context, client openai.Client, agentID, input string, opts ...option.RequestOption) *openai.AgentSession {
	t.Helper()
	params := openai.BetaAgentSessionNewParams{AgentID: openai.String(agentID), Environment: noneEnvironment}
	if input != "" {
		params.Input = openai.BetaAgentSessionNewParamsInputUnion{OfString: openai.String(input)}
	}
	s, err := client.Beta.Agents.Sessions.New(ctx, params, opts...)
	if err != nil {
		t.Fatalf("create session: %v", describe(err))
	}
	return s
}

func userMessage(text string) openai.AgentSessionInputParamUnion {
	return openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText(text)}}})
}

func toolResult(turnID, callID, output string) openai.AgentSessionInputParamUnion {
	in := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(callID, true, turnID)
	in.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{OfString: openai.String(output)}
	return in
}

func cancelInput() openai.AgentSessionInputParamUnion {
	return openai.AgentSessionInputParamUnion{OfParamAgentSessionInputCancel: &openai.AgentSessionInputParamAgentSessionInputCancel{}}
}

func postEvents(t *testing.T, ctx context.Context, client openai.Client, sessionID string, events ...openai.AgentSessionInputParamUnion) {
	t.Helper()
	if err := client.Beta.Agents.Sessions.Events.New(ctx, sessionID, openai.BetaAgentSessionEventNewParams{Events: events}); err != nil {
		t.Fatalf("POST /events: %v", describe(err))
	}
}

// describe adds the Agents API error fields to an SDK error (its Error() has only the status).
func describe(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%w: type=%q code=%q param=%q message=%q", err, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message)
	}
	return err
}

// sdkError is what a test compares of an *openai.Error.
type sdkError struct {
	Status  int
	Type    string
	Code    string
	Param   string
	Message string
}

// wantSDKError fails unless err is an *openai.Error with want's fields (an empty want.Message is not compared).
func wantSDKError(t *testing.T, what string, err error, want sdkError) {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Errorf("%s: err = %v, want *openai.Error %d %s", what, err, want.Status, want.Code)
		return
	}
	got := sdkError{Status: apiErr.StatusCode, Type: apiErr.Type, Code: apiErr.Code, Param: apiErr.Param, Message: apiErr.Message}
	if want.Message == "" {
		got.Message = ""
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: *openai.Error (-want +got):\n%s", what, diff)
	}
}

func ptr[T any](v T) *T { return &v }

// errorBody is the exact Agents API error body; comparing the decoded map catches extra or missing members.
func errorBody(message, typ string, code, param *string) map[string]any {
	f := map[string]any{"message": message, "type": typ, "code": nil, "param": nil}
	if code != nil {
		f["code"] = *code
	}
	if param != nil {
		f["param"] = *param
	}
	return map[string]any{"error": f}
}

// wantErrorBody fails unless r has status and exactly the error body want, as JSON.
func wantErrorBody(t *testing.T, what string, r stack.Response, status int, want map[string]any) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d (body %s)", what, r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, ct)
	}
	var got map[string]any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, r.Body, err)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: error body (-want +got):\n%s", what, diff)
	}
}

// wantNoRetry fails unless a deterministic conflict tells the SDK not to retry it.
func wantNoRetry(t *testing.T, what string, r stack.Response) {
	t.Helper()
	if got := r.Header.Get("X-Should-Retry"); got != "false" {
		t.Errorf("%s: x-should-retry = %q, want false", what, got)
	}
}

// rawRequest sends method path with body bytes (nil = none) and exactly the given headers (several values of one
// header are all sent); it adds nothing but Content-Length.
func rawRequest(t *testing.T, st *stack.Stack, method, path string, body []byte, header http.Header) stack.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, st.APIURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return stack.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// apiHeader is the header set of an authenticated Agents API request of st's project.
func apiHeader(st *stack.Stack) http.Header {
	return http.Header{"Authorization": {"Bearer " + st.APIKey}, "Openai-Beta": {"agents=v1"}, "Content-Type": {"application/json"}}
}

// raw sends a JSON body (nil = none) with the project's key over raw HTTP.
func raw(t *testing.T, st *stack.Stack, method, path string, body any) stack.Response {
	t.Helper()
	return st.Do(t, method, path, body, nil)
}

func decodeJSON[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// Wire shapes read from raw JSON.
type (
	wireSession struct {
		ID              string           `json:"id"`
		Status          string           `json:"status"`
		Error           *string          `json:"error"`
		RequiredActions []requiredAction `json:"required_actions"`
		Usage           *wireUsage       `json:"usage"`
		Metadata        map[string]string
		Agent           map[string]any `json:"agent"`
	}
	requiredAction struct {
		Type      string         `json:"type"`
		TurnID    string         `json:"turn_id"`
		CallID    string         `json:"call_id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	wireUsage struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	}
	wireTurn struct {
		ID     string     `json:"id"`
		Status string     `json:"status"`
		Usage  *wireUsage `json:"usage"`
	}
	wireItem struct {
		ID     string          `json:"id"`
		Type   string          `json:"type"`
		TurnID string          `json:"turn_id"`
		Role   string          `json:"role"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	wireEvent struct {
		Type    string       `json:"type"`
		EventID string       `json:"event_id"`
		TurnID  string       `json:"turn_id"`
		Session *wireSession `json:"session"`
		Turn    *wireTurn    `json:"turn"`
		Item    *wireItem    `json:"item"`
		raw     string
	}
)

// getSession reads a Session through the SDK and decodes its raw JSON.
func getSession(t *testing.T, ctx context.Context, client openai.Client, id string) wireSession {
	t.Helper()
	s, err := client.Beta.Agents.Sessions.Get(ctx, id)
	if err != nil {
		t.Fatalf("GET session %s: %v", id, describe(err))
	}
	return decodeJSON[wireSession](t, []byte(s.RawJSON()))
}

// waitSession polls a Session until ok holds and returns it.
func waitSession(t *testing.T, ctx context.Context, client openai.Client, id, what string, ok func(wireSession) bool) wireSession {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		s := getSession(t, ctx, client, id)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: no %s within %s; last: %+v", id, what, waitTimeout, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func hasStatus(status string) func(wireSession) bool {
	return func(s wireSession) bool { return s.Status == status }
}

// listTurns lists a Session's turns in ascending order through the SDK's auto-pager.
func listTurns(t *testing.T, ctx context.Context, client openai.Client, sessionID string) []wireTurn {
	t.Helper()
	pager := client.Beta.Agents.Sessions.Turns.ListAutoPaging(ctx, sessionID, openai.BetaAgentSessionTurnListParams{
		Order: openai.BetaAgentSessionTurnListParamsOrderAsc, Limit: openai.Int(1)})
	var out []wireTurn
	for pager.Next() {
		out = append(out, decodeJSON[wireTurn](t, []byte(pager.Current().RawJSON())))
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("list turns: %v", describe(err))
	}
	return out
}

// listItems lists a Session's items in ascending order, two per page.
func listItems(t *testing.T, ctx context.Context, client openai.Client, sessionID string) []wireItem {
	t.Helper()
	pager := client.Beta.Agents.Sessions.Items.ListAutoPaging(ctx, sessionID, openai.BetaAgentSessionItemListParams{
		Order: openai.BetaAgentSessionItemListParamsOrderAsc, Limit: openai.Int(2)})
	var out []wireItem
	for pager.Next() {
		out = append(out, decodeJSON[wireItem](t, []byte(pager.Current().RawJSON())))
		if len(out) > 500 {
			t.Fatal("items list does not end")
		}
	}
	if err := pager.Err(); err != nil {
		t.Fatalf("list items: %v", describe(err))
	}
	return out
}

func countItems(items []wireItem, typ string) int {
	n := 0
	for _, it := range items {
		if it.Type == typ {
			n++
		}
	}
	return n
}

// parkedTurn creates a Session of a new tool Agent whose first turn calls get_weather and waits for its result; it
// returns the session id and the pending required action.
func parkedTurn(t *testing.T, ctx context.Context, client openai.Client) (string, requiredAction) {
	t.Helper()
	a := newAgent(t, ctx, client, "")
	s := newSession(t, ctx, client, a.ID, "call the tool")
	got := waitSession(t, ctx, client, s.ID, "requires_action", hasStatus("requires_action"))
	if len(got.RequiredActions) != 1 {
		t.Fatalf("parked session has required actions %+v, want one", got.RequiredActions)
	}
	return s.ID, got.RequiredActions[0]
}

// recorder reads a Session's event stream through the SDK in the background and keeps every event.
// recorder is the Session event stream of a test (stack.Recorder with this package's wireEvent).
type recorder = stack.Recorder[wireEvent]

// record opens the stream; when it returns, the subscription is live (the server flushed the headers).
func record(t *testing.T, ctx context.Context, client openai.Client, sessionID string) *recorder {
	t.Helper()
	return stack.Record(t, ctx, client, sessionID, waitTimeout, func(raw string) wireEvent {
		var w wireEvent
		_ = json.Unmarshal([]byte(raw), &w)
		w.raw = raw
		return w
	})
}

func isType(typ string) func(wireEvent) bool {
	return func(e wireEvent) bool { return e.Type == typ }
}

func dump(events []wireEvent) string {
	var b strings.Builder
	for i, e := range events {
		fmt.Fprintf(&b, "  %2d %s\n", i, e.raw)
	}
	return b.String()
}

// sseFrame is one raw SSE frame: its field lines in order and the comments before it.
type sseFrame struct {
	Event, ID, Data string
	Lines           []string
}

// sseReader reads raw SSE frames and comment lines from a response body.
type sseReader struct {
	sc       *bufio.Scanner
	comments []string
}

func newSSEReader(body io.Reader) *sseReader {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 32<<20)
	return &sseReader{sc: sc}
}

// next returns the next frame with data (comments are collected in r.comments), or ok false at the end.
func (r *sseReader) next() (sseFrame, bool) {
	var f sseFrame
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if len(f.Lines) > 0 {
				return f, true
			}
		case strings.HasPrefix(line, ":"):
			r.comments = append(r.comments, line)
		default:
			f.Lines = append(f.Lines, line)
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				f.Event = value
			case "id":
				f.ID = value
			case "data":
				f.Data = value
			}
		}
	}
	return f, false
}
