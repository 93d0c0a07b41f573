package agentcore_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/document"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/tests/stack"
)

// waitParked waits until the paused turn's task token is stored, so nothing writes the table until a follow-up.
func waitParked(t *testing.T, st *stack.Stack, sessionID string) {
	t.Helper()
	waitFor(t, func() bool {
		for k, v := range stack.Snapshot(t, st) {
			if strings.HasPrefix(k, "SESSION#"+sessionID+" TURN#") && strings.Contains(v, `"task_token"`) {
				return true
			}
		}
		return false
	})
}

// TestInvalidFollowUpsLeaveThePauseThenTheCorrectOneResumes sends each invalid follow-up kind to a pause of two
// adjacent calls: each is a ValidationException that writes nothing; then the correct follow-up still resumes, and
// sending it again is a stale result that writes nothing either. Not parallel: it compares table snapshots.
func TestInvalidFollowUpsLeaveThePauseThenTheCorrectOneResumes(t *testing.T) {
	f := newFixture(t, "invalid", weatherTool())
	api := f.agentsKey(t)
	sid := newSessionID(t)
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("weather in two cities")}})
	if err != nil {
		t.Fatal(err)
	}
	uses := toolUses(frames)
	if len(uses) != 2 {
		t.Fatalf("pause %s", shape(frames))
	}
	a, b := uses[0].ID, uses[1].ID
	session := onlySession(t, api)
	waitParked(t, f.st, session)
	resentForeign := dptypes.HarnessMessage{Role: dptypes.HarnessConversationRoleAssistant, Content: []dptypes.HarnessContentBlock{
		&dptypes.HarnessContentBlockMemberToolUse{Value: dptypes.HarnessToolUseBlock{ToolUseId: aws.String("tooluse_other"), Name: aws.String("get_weather"), Input: dpdoc.NewLazyDocument(map[string]any{})}}}}
	cases := []struct {
		name string
		msgs []dptypes.HarnessMessage
		want string
	}{
		{"missing", []dptypes.HarnessMessage{toolResults(a, "sunny")}, "Missing toolResult for " + b},
		{"duplicate", []dptypes.HarnessMessage{toolResults(a, "sunny", a, "sunny", b, "rainy")}, "Duplicate toolResult for " + a},
		{"unknown", []dptypes.HarnessMessage{toolResults(a, "sunny", b, "rainy", "tooluse_zzz", "x")}, "toolResult tooluse_zzz does not answer a pending tool call"},
		{"plain text", []dptypes.HarnessMessage{userText("hello?")}, "waiting for toolResult for " + a + ", " + b},
		{"text beside the results", []dptypes.HarnessMessage{toolResults(a, "sunny", b, "rainy"), userText("and?")}, "a user text cannot be sent"},
		{"a foreign re-sent toolUse", []dptypes.HarnessMessage{resentForeign, toolResults(a, "sunny", b, "rainy")}, "toolUse tooluse_other is not pending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := stack.Snapshot(t, f.st)
			_, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: c.msgs})
			wantValidation(t, c.name, err, c.want)
			stack.AssertUnchanged(t, before, stack.Snapshot(t, f.st))
		})
	}
	follow := &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(a, "sunny", b, "rainy")}}
	frames, err = f.invoke(t, sid, follow)
	if err != nil {
		t.Fatalf("the correct follow-up: %v", err)
	}
	if got := texts(frames); got != "Weather: sunny; rainy;" || lastStop(frames) != "end_turn" {
		t.Fatalf("reply %q, frames %s", got, shape(frames))
	}
	before := stack.Snapshot(t, f.st)
	_, err = f.invoke(t, sid, follow)
	wantValidation(t, "the same follow-up again", err, "is stale or replayed")
	stack.AssertUnchanged(t, before, stack.Snapshot(t, f.st))
}

// TestSixteenIdenticalFollowUpsResumeOnce races 16 identical follow-ups on one pause: exactly one streams the
// resumed turn, the others are ValidationExceptions; the turn has one toolResult item and its execution left the
// AwaitResults state once.
func TestSixteenIdenticalFollowUpsResumeOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "race", weatherTool())
	api := f.agentsKey(t)
	sid := newSessionID(t)
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("weather now")}})
	if err != nil {
		t.Fatal(err)
	}
	uses := toolUses(frames)
	if len(uses) != 1 {
		t.Fatalf("pause %s", shape(frames))
	}
	const n = 16
	var wg sync.WaitGroup
	results := make([]error, n)
	replies := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fr, err := f.withOwnClient().invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(uses[0].ID, "sunny")}})
			results[i], replies[i] = err, texts(fr)
		}()
	}
	wg.Wait()
	ok := 0
	for i, err := range results {
		var ve *dptypes.ValidationException
		switch {
		case err == nil:
			ok++
			if replies[i] != "Weather: sunny;" {
				t.Errorf("the resumed stream says %q", replies[i])
			}
		case errors.As(err, &ve):
		default:
			t.Errorf("follow-up %d: %v (%T); want a ValidationException", i, err, err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d follow-ups resumed; want exactly 1", ok)
	}
	session := onlySession(t, api)
	var outputs int
	turnID := ""
	for _, it := range sessionItems(t, api, session) {
		if it["type"] == "function_call_output" {
			outputs++
			turnID, _ = it["turn_id"].(string)
		}
	}
	if outputs != 1 {
		t.Fatalf("%d function_call_output items; want 1", outputs)
	}
	client := awssfn.New(awssfn.Options{Region: "us-east-1", BaseEndpoint: aws.String(f.st.SFNURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), Retryer: aws.NopRetryer{}, HTTPClient: stack.SDKHTTPClient()})
	execARN := strings.Replace(f.st.StateMachineARN("baton"), ":stateMachine:", ":execution:", 1) + ":" + turnID
	waitFor(t, func() bool {
		out, err := client.DescribeExecution(f.ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
		return err == nil && out.Status != "RUNNING"
	})
	exits := 0
	p := awssfn.NewGetExecutionHistoryPaginator(client, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN)})
	for p.HasMorePages() {
		page, err := p.NextPage(f.ctx)
		if err != nil {
			t.Fatalf("GetExecutionHistory: %v", err)
		}
		for _, ev := range page.Events {
			if d := ev.StateExitedEventDetails; d != nil && aws.ToString(d.Name) == "AwaitResults" {
				exits++
			}
		}
	}
	if exits != 1 {
		t.Fatalf("AwaitResults exited %d times; want 1 resume", exits)
	}
}
