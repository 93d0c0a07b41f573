package agentcore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/document"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
)

func TestPlainReplyStreamsTheFramesInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "plain")
	frames, err := f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello there")}})
	if err != nil {
		t.Fatalf("InvokeHarness: %v", err)
	}
	if got, want := shape(frames), "messageStart:assistant text stop:0 messageStop:end_turn metadata"; got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
	if got := texts(frames); got != "You said: Hello there" {
		t.Errorf("text = %q", got)
	}
	md := frames[len(frames)-1].Value.(dptypes.HarnessMetadataEvent)
	u := md.Usage
	if u == nil || aws.ToInt32(u.OutputTokens) <= 0 || aws.ToInt32(u.TotalTokens) != aws.ToInt32(u.InputTokens)+aws.ToInt32(u.OutputTokens) || md.Metrics == nil {
		t.Errorf("metadata = %+v", md)
	}
}

func TestInlinePauseThenFollowUpResumes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "inline", weatherTool())
	for _, resend := range []bool{false, true} {
		sid := newSessionID(t)
		frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("What's the weather in Seattle?")}})
		if err != nil {
			t.Fatalf("InvokeHarness: %v", err)
		}
		if got, want := shape(frames), "messageStart:assistant text stop:0 toolUse:get_weather input stop:1 messageStop:tool_use metadata"; got != want {
			t.Fatalf("pause frames:\n got %s\nwant %s", got, want)
		}
		uses := toolUses(frames)
		if len(uses) != 1 || uses[0].Input != `{"city":"Paris"}` || lastStop(frames) != "tool_use" {
			t.Fatalf("handed over %+v, last stop %s", uses, lastStop(frames))
		}
		msgs := []dptypes.HarnessMessage{toolResults(uses[0].ID, "72F, partly cloudy")}
		if resend {
			// The guide allows re-sending the assistant toolUse; Baton ignores that copy.
			msgs = append([]dptypes.HarnessMessage{{Role: dptypes.HarnessConversationRoleAssistant, Content: []dptypes.HarnessContentBlock{
				&dptypes.HarnessContentBlockMemberToolUse{Value: dptypes.HarnessToolUseBlock{ToolUseId: aws.String(uses[0].ID), Name: aws.String("get_weather"), Input: dpdoc.NewLazyDocument(map[string]any{"city": "Paris"})}}}}}, msgs...)
		}
		frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: msgs})
		if err != nil {
			t.Fatalf("follow-up (resend=%v): %v", resend, err)
		}
		if got, want := shape(frames), "messageStart:user toolResult result stop:0 messageStop:tool_result messageStart:assistant text stop:0 messageStop:end_turn metadata"; got != want {
			t.Fatalf("follow-up frames (resend=%v):\n got %s\nwant %s", resend, got, want)
		}
		if got := texts(frames); got != "Weather: 72F, partly cloudy;" {
			t.Errorf("reply = %q", got)
		}
	}
}

func TestAdjacentInlineCallsAreHandedOverTogether(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "adjacent", weatherTool())
	sid := newSessionID(t)
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("weather in two cities")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(frames), "messageStart:assistant toolUse:get_weather input stop:0 toolUse:get_weather input stop:1 messageStop:tool_use metadata"; got != want {
		t.Fatalf("frames:\n got %s\nwant %s", got, want)
	}
	uses := toolUses(frames)
	if len(uses) != 2 || uses[0].Input != `{"city":"Paris"}` || uses[1].Input != `{"city":"Rome"}` {
		t.Fatalf("handed over %+v; want Paris then Rome", uses)
	}
	// One follow-up answers both, in any order; the harness applies them in model order.
	frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(uses[1].ID, "rainy", uses[0].ID, "sunny")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(frames); got != "Weather: sunny; rainy;" {
		t.Errorf("reply = %q", got)
	}
	if lastStop(frames) != "end_turn" {
		t.Errorf("last stop %s", lastStop(frames))
	}
}

func TestAnOverrideToolMustBeSentAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "override")
	sid := newSessionID(t)
	tools := []dptypes.HarnessTool{overrideWeatherTool()}
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Tools: tools, Messages: []dptypes.HarnessMessage{userText("weather please")}})
	if err != nil {
		t.Fatal(err)
	}
	uses := toolUses(frames)
	if len(uses) != 1 || lastStop(frames) != "tool_use" {
		t.Fatalf("no pause: %s", shape(frames))
	}
	_, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(uses[0].ID, "sunny")}})
	wantValidation(t, "follow-up without the override", err, "send the tools override again")
	frames, err = f.invoke(t, sid, &dp.InvokeHarnessInput{Tools: tools, Messages: []dptypes.HarnessMessage{toolResults(uses[0].ID, "sunny")}})
	if err != nil {
		t.Fatalf("follow-up with the override: %v", err)
	}
	if got := texts(frames); got != "Weather: sunny;" {
		t.Errorf("reply = %q", got)
	}
	// The override changed nothing saved: a new session without tools has no get_weather to call.
	frames, err = f.invoke(t, newSessionID(t), &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hi")}})
	if err != nil || texts(frames) != "You said: Hi" {
		t.Fatalf("after the override: %v %q", err, texts(frames))
	}
	h, err := f.control.GetHarness(f.ctx, &cp.GetHarnessInput{HarnessId: aws.String(f.arn[strings.LastIndex(f.arn, "/")+1:])})
	if err != nil || len(h.Harness.Tools) != 0 || aws.ToString(h.Harness.HarnessVersion) != "1" {
		t.Fatalf("GetHarness after overrides: %v %+v", err, h)
	}
}

func TestABusySessionIsAConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "busy")
	api := f.agentsKey(t)
	sid := newSessionID(t)
	first := make(chan error, 1)
	var firstFrames []frame
	go func() {
		fr, err := f.withOwnClient().invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("answer slowly")}})
		firstFrames = fr
		first <- err
	}()
	// Wait until the first invocation's turn is durably running (its Session reads in_progress).
	waitFor(t, func() bool {
		id, ok := sessionOf(t, api)
		return ok && sessionStatus(t, api, id) == "in_progress"
	})
	_, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello")}})
	var ce *dptypes.ConflictException
	if !errors.As(err, &ce) {
		t.Fatalf("second invoke: %v (%T); want ConflictException", err, err)
	}
	if err := <-first; err != nil {
		t.Fatalf("first invoke: %v", err)
	}
	if got := texts(firstFrames); got != "Done slowly." || lastStop(firstFrames) != "end_turn" {
		t.Fatalf("first stream %q %s", got, shape(firstFrames))
	}
	// Once the turn ended, the session takes the next message.
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("Hello")}})
	if err != nil || texts(frames) != "You said: Hello" {
		t.Fatalf("after the busy turn: %v %q", err, texts(frames))
	}
}
