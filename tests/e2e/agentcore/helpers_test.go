package agentcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/document"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

const testTimeout = 2 * time.Minute

// script is the scripted model of every harness here (docs/scripted-model.md).
func script() map[string]any {
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "two cities"},
				"calls": []any{
					map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}},
					map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Rome"}},
				}},
			map[string]any{"when": map[string]any{"user_contains": "around an echo"},
				"calls": []any{
					map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}},
					map[string]any{"server_label": "everything", "name": "echo", "arguments": map[string]any{"message": "between"}},
					map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Rome"}},
				}},
			map[string]any{"when": map[string]any{"user_contains": "weather"}, "commentary": "Let me check.",
				"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
			map[string]any{"when": map[string]any{"user_contains": "slowly"}, "delay_ms": 8000, "reply": "Done slowly."},
			map[string]any{"when": map[string]any{"user_contains": "sum"},
				"calls": []any{map[string]any{"server_label": "everything", "name": "get-sum", "arguments": map[string]any{"a": 2, "b": 40}}}},
			map[string]any{"when": map[string]any{"after_tool": "everything__get-sum"}, "reply": "Sum: {{tool_output \"everything__get-sum\"}}"},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"},
				"reply": "Weather:{{range .Tools}} {{.Output}};{{end}}"},
		},
		"default_reply": "You said: {{.UserText}}",
		"chunk_size":    4,
	}
}

// weatherTool is the guide's get_weather inline function.
func weatherTool() cptypes.HarnessTool {
	return cptypes.HarnessTool{Type: cptypes.HarnessToolTypeInlineFunction, Name: aws.String("get_weather"),
		Config: &cptypes.HarnessToolConfigurationMemberInlineFunction{Value: cptypes.HarnessInlineFunctionConfig{
			Description: aws.String("Get the current weather for a city."),
			InputSchema: cpdoc.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}),
		}}}
}

// overrideWeatherTool is the same tool as an InvokeHarness override.
func overrideWeatherTool() dptypes.HarnessTool {
	return dptypes.HarnessTool{Type: dptypes.HarnessToolTypeInlineFunction, Name: aws.String("get_weather"),
		Config: &dptypes.HarnessToolConfigurationMemberInlineFunction{Value: dptypes.HarnessInlineFunctionConfig{
			Description: aws.String("Get the current weather for a city."),
			InputSchema: dpdoc.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}),
		}}}
}

// fixture is one test's own project with a harness on the scripted model, and both official clients.
type fixture struct {
	st            *stack.Stack
	project       string
	keyID, secret string // the project's access key
	ctx           context.Context
	control       *cp.Client
	data          *dp.Client
	arn           string
}

// dataClient returns a new data plane client (InvokeHarness) of the fixture's access key, without retries.
func (f *fixture) dataClient() *dp.Client {
	return dp.New(dp.Options{Region: stack.AgentCoreRegion, BaseEndpoint: aws.String(f.st.APIURL),
		Credentials: credentials.NewStaticCredentialsProvider(f.keyID, f.secret, ""), Retryer: aws.NopRetryer{}, HTTPClient: stack.SDKHTTPClient()})
}

// withOwnClient is f with a data plane client of its own, for an invocation whose stream is read while another one
// is: the SDK decodes every event stream of a client with that client's one decoder and payload buffer (smithy-go's
// eventstream Codec), which streams read at the same time share unguarded (a data race under -race).
func (f *fixture) withOwnClient() *fixture {
	g := *f
	g.data = f.dataClient()
	return &g
}

// newFixture creates a project of the shared stack, its access key and a harness on the package's script() whose
// saved tools are tools.
func newFixture(t *testing.T, name string, tools ...cptypes.HarnessTool) *fixture {
	t.Helper()
	return newScriptedFixture(t, stack.Shared(t), name, script(), tools...)
}

// newScriptedFixture creates a project of st, its access key and a harness on the scripted model running script
// (docs/scripted-model.md) whose saved tools are tools.
func newScriptedFixture(t *testing.T, st *stack.Stack, name string, script map[string]any, tools ...cptypes.HarnessTool) *fixture {
	t.Helper()
	project := fmt.Sprintf("acd-%s-%x", name, time.Now().UnixNano())
	id, secret := st.NewAccessKey(t, project)
	return newFixtureIn(t, st, project, id, secret, name, script, tools...)
}

// newFixtureIn makes the fixture in an existing project of st with its access key: both official clients and a
// harness named "h_"+name on the scripted model running script, whose saved tools are tools (none: an empty list).
func newFixtureIn(t *testing.T, st *stack.Stack, project, id, secret, name string, script map[string]any, tools ...cptypes.HarnessTool) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	f := &fixture{st: st, project: project, keyID: id, secret: secret, ctx: ctx, control: stack.AgentCoreControl(st, id, secret)}
	f.data = f.dataClient()
	if tools == nil {
		tools = []cptypes.HarnessTool{}
	}
	out, err := f.control.CreateHarness(ctx, &cp.CreateHarnessInput{
		HarnessName:      aws.String("h_" + name),
		ExecutionRoleArn: aws.String("arn:aws:iam::123456789012:role/HarnessRole"),
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted"), AdditionalParams: cpdoc.NewLazyDocument(map[string]any{"script": script})}},
		Tools: tools,
	})
	if err != nil {
		t.Fatalf("CreateHarness: %v", err)
	}
	f.arn = aws.ToString(out.Harness.Arn)
	return f
}

// newSessionID returns a fresh runtimeSessionId (33+ characters).
func newSessionID(t *testing.T) string {
	return fmt.Sprintf("sess-%s-%032x", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano())
}

// frame is one decoded stream event: its union member name and payload (JSON of the SDK's value).
type frame struct {
	Type  string
	Value any
}

// invoke calls InvokeHarness and reads the whole stream: the frames, and the stream's error (an HTTP error or
// an in-stream exception).
func (f *fixture) invoke(t *testing.T, sessionID string, in *dp.InvokeHarnessInput) ([]frame, error) {
	t.Helper()
	in.HarnessArn = aws.String(f.arn)
	in.RuntimeSessionId = aws.String(sessionID)
	out, err := f.data.InvokeHarness(f.ctx, in)
	if err != nil {
		return nil, err
	}
	stream := out.GetStream()
	defer stream.Close()
	var frames []frame
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *dptypes.InvokeHarnessStreamOutputMemberMessageStart:
			frames = append(frames, frame{"messageStart", v.Value})
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockStart:
			frames = append(frames, frame{"contentBlockStart", v.Value})
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockDelta:
			frames = append(frames, frame{"contentBlockDelta", v.Value})
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockStop:
			frames = append(frames, frame{"contentBlockStop", v.Value})
		case *dptypes.InvokeHarnessStreamOutputMemberMessageStop:
			frames = append(frames, frame{"messageStop", v.Value})
		case *dptypes.InvokeHarnessStreamOutputMemberMetadata:
			frames = append(frames, frame{"metadata", v.Value})
		default:
			frames = append(frames, frame{fmt.Sprintf("%T", ev), ev})
		}
	}
	return frames, stream.Err()
}

// userText is a user message with one text block.
func userText(s string) dptypes.HarnessMessage {
	return dptypes.HarnessMessage{Role: dptypes.HarnessConversationRoleUser, Content: []dptypes.HarnessContentBlock{&dptypes.HarnessContentBlockMemberText{Value: s}}}
}

// toolResults is a user message with one success toolResult per (id, text) pair.
func toolResults(pairs ...string) dptypes.HarnessMessage {
	m := dptypes.HarnessMessage{Role: dptypes.HarnessConversationRoleUser}
	for i := 0; i+1 < len(pairs); i += 2 {
		m.Content = append(m.Content, &dptypes.HarnessContentBlockMemberToolResult{Value: dptypes.HarnessToolResultBlock{
			ToolUseId: aws.String(pairs[i]), Status: dptypes.HarnessToolUseStatusSuccess,
			Content: []dptypes.HarnessToolResultContentBlock{&dptypes.HarnessToolResultContentBlockMemberText{Value: pairs[i+1]}}}})
	}
	return m
}

// shape renders the frames as one token each: messageStart:<role>, text, toolUse:<name>, input, toolResult:<id>,
// result, stop:<index>, messageStop:<reason>, metadata.
func shape(frames []frame) string {
	var out []string
	for _, f := range frames {
		switch v := f.Value.(type) {
		case dptypes.HarnessMessageStartEvent:
			out = append(out, "messageStart:"+string(v.Role))
		case dptypes.HarnessContentBlockStartEvent:
			switch s := v.Start.(type) {
			case *dptypes.HarnessContentBlockStartMemberToolUse:
				out = append(out, "toolUse:"+aws.ToString(s.Value.Name))
			case *dptypes.HarnessContentBlockStartMemberToolResult:
				out = append(out, "toolResult")
			default:
				out = append(out, fmt.Sprintf("start?%T", s))
			}
		case dptypes.HarnessContentBlockDeltaEvent:
			switch v.Delta.(type) {
			case *dptypes.HarnessContentBlockDeltaMemberText:
				if n := len(out); n > 0 && out[n-1] == "text" {
					continue // consecutive text deltas read as one
				}
				out = append(out, "text")
			case *dptypes.HarnessContentBlockDeltaMemberToolUse:
				out = append(out, "input")
			case *dptypes.HarnessContentBlockDeltaMemberToolResult:
				out = append(out, "result")
			default:
				out = append(out, fmt.Sprintf("delta?%T", v.Delta))
			}
		case dptypes.HarnessContentBlockStopEvent:
			out = append(out, fmt.Sprintf("stop:%d", aws.ToInt32(v.ContentBlockIndex)))
		case dptypes.HarnessMessageStopEvent:
			out = append(out, "messageStop:"+string(v.StopReason))
		case dptypes.HarnessMetadataEvent:
			out = append(out, "metadata")
		default:
			out = append(out, f.Type)
		}
	}
	return strings.Join(out, " ")
}

// texts returns the concatenated text deltas of the frames.
func texts(frames []frame) string {
	var b strings.Builder
	for _, f := range frames {
		if d, ok := f.Value.(dptypes.HarnessContentBlockDeltaEvent); ok {
			if tx, ok := d.Delta.(*dptypes.HarnessContentBlockDeltaMemberText); ok {
				b.WriteString(tx.Value)
			}
		}
	}
	return b.String()
}

// toolCall is one toolUse block of a stream with the toolResult block that answers it (matched by toolUseId): the
// toolUse block's id, type, name, serverName and assembled input, and the toolResult block's status and text. A
// toolResult whose toolUse is not in the stream is a toolCall with only ID and the result.
type toolCall struct {
	ID, Type, Name, Server, Input string
	Status, Result                string
	HasResult                     bool
}

// toolCalls pairs the stream's toolUse blocks with their toolResult blocks, in call order; a block's deltas are
// found by its block index within its message.
func toolCalls(frames []frame) []toolCall {
	var out []toolCall
	byID := map[string]int{}
	type open struct {
		call   int
		result bool
	}
	blocks := map[int32]open{} // block index of the current message → call
	for _, f := range frames {
		switch v := f.Value.(type) {
		case dptypes.HarnessMessageStartEvent:
			blocks = map[int32]open{}
		case dptypes.HarnessContentBlockStartEvent:
			switch s := v.Start.(type) {
			case *dptypes.HarnessContentBlockStartMemberToolUse:
				byID[aws.ToString(s.Value.ToolUseId)] = len(out)
				blocks[aws.ToInt32(v.ContentBlockIndex)] = open{call: len(out)}
				out = append(out, toolCall{ID: aws.ToString(s.Value.ToolUseId), Type: string(s.Value.Type),
					Name: aws.ToString(s.Value.Name), Server: aws.ToString(s.Value.ServerName)})
			case *dptypes.HarnessContentBlockStartMemberToolResult:
				i, ok := byID[aws.ToString(s.Value.ToolUseId)]
				if !ok {
					i = len(out)
					out = append(out, toolCall{ID: aws.ToString(s.Value.ToolUseId)})
				}
				out[i].HasResult, out[i].Status = true, string(s.Value.Status)
				blocks[aws.ToInt32(v.ContentBlockIndex)] = open{call: i, result: true}
			}
		case dptypes.HarnessContentBlockDeltaEvent:
			b, ok := blocks[aws.ToInt32(v.ContentBlockIndex)]
			if !ok {
				continue
			}
			switch d := v.Delta.(type) {
			case *dptypes.HarnessContentBlockDeltaMemberToolUse:
				if !b.result {
					out[b.call].Input += aws.ToString(d.Value.Input)
				}
			case *dptypes.HarnessContentBlockDeltaMemberToolResult:
				if b.result {
					for _, part := range d.Value {
						if tx, ok := part.(*dptypes.HarnessToolResultBlockDeltaMemberText); ok {
							out[b.call].Result += tx.Value
						}
					}
				}
			}
		}
	}
	return out
}

// toolUse is one handed-over call: its id, name, and its input assembled from the fragments of its block.
type toolUse struct {
	ID, Name, Input string
}

// toolUses collects the toolUse blocks the way the guide's client does: by block index.
func toolUses(frames []frame) []toolUse {
	var out []toolUse
	open := map[int32]int{}
	for _, f := range frames {
		switch v := f.Value.(type) {
		case dptypes.HarnessMessageStartEvent:
			open = map[int32]int{}
		case dptypes.HarnessContentBlockStartEvent:
			if s, ok := v.Start.(*dptypes.HarnessContentBlockStartMemberToolUse); ok {
				open[aws.ToInt32(v.ContentBlockIndex)] = len(out)
				out = append(out, toolUse{ID: aws.ToString(s.Value.ToolUseId), Name: aws.ToString(s.Value.Name)})
			}
		case dptypes.HarnessContentBlockDeltaEvent:
			if d, ok := v.Delta.(*dptypes.HarnessContentBlockDeltaMemberToolUse); ok {
				if i, ok := open[aws.ToInt32(v.ContentBlockIndex)]; ok {
					out[i].Input += aws.ToString(d.Value.Input)
				}
			}
		}
	}
	return out
}

// lastStop is the stop reason of the last messageStop.
func lastStop(frames []frame) string {
	reason := ""
	for _, f := range frames {
		if v, ok := f.Value.(dptypes.HarnessMessageStopEvent); ok {
			reason = string(v.StopReason)
		}
	}
	return reason
}

// wantValidation requires a ValidationException whose message contains part.
func wantValidation(t *testing.T, what string, err error, part string) {
	t.Helper()
	var ve *dptypes.ValidationException
	if !errors.As(err, &ve) {
		t.Fatalf("%s: error %v (%T); want a ValidationException", what, err, err)
	}
	if !strings.Contains(aws.ToString(ve.Message), part) {
		t.Fatalf("%s: ValidationException %q; want it to contain %q", what, aws.ToString(ve.Message), part)
	}
}

// agentsKey returns a bearer key of the fixture's project for reading its Sessions through the Agents API.
func (f *fixture) agentsKey(t *testing.T) *stack.Stack {
	t.Helper()
	return f.st.WithKey(f.st.NewProjectKey(t, f.project))
}

// onlySession returns the id of the project's only Session (read through the Agents API).
func onlySession(t *testing.T, api *stack.Stack) string {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions", nil, nil)
	var body struct {
		Data []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil || len(body.Data) != 1 {
		t.Fatalf("GET /v1/agents/sessions: %d %s; want exactly one session", r.Status, r.Body)
	}
	return body.Data[0].ID
}

// sessionItems lists a Session's items through the Agents API.
func sessionItems(t *testing.T, api *stack.Stack, sessionID string) []map[string]any {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions/"+sessionID+"/items?limit=100", nil, nil)
	var body struct {
		Data []map[string]any `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil {
		t.Fatalf("GET items: %d %s", r.Status, r.Body)
	}
	return body.Data
}

// waitFor polls cond until it holds or the test's time runs out.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sessionOf returns the project's only Session id, if it exists yet.
func sessionOf(t *testing.T, api *stack.Stack) (string, bool) {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions", nil, nil)
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil || len(body.Data) != 1 {
		return "", false
	}
	return body.Data[0].ID, true
}

// sessionStatus reads a Session's status through the Agents API.
func sessionStatus(t *testing.T, api *stack.Stack, id string) string {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/v1/agents/sessions/"+id, nil, nil)
	var body struct {
		Status string `json:"status"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil {
		t.Fatalf("GET session %s: %d %s", id, r.Status, r.Body)
	}
	return body.Status
}

// asErr is errors.As for a test's typed SDK error.
func asErr[T error](err error, target *T) bool { return err != nil && errors.As(err, target) }
