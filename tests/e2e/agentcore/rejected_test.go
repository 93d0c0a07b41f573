package agentcore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"

	"github.com/baton-run/baton/tests/stack"
)

// TestRejectedInvocationsWriteNothing: each request InvokeHarness refuses is the SDK's typed error, decided before
// anything is written (not even the Session of a new runtimeSessionId). Not parallel: it compares table snapshots.
func TestRejectedInvocationsWriteNothing(t *testing.T) {
	f := newFixture(t, "rejected", weatherTool())
	sid := newSessionID(t)
	foreign := strings.Replace(f.arn, "harness/h_rejected-", "harness/h_missing-", 1)
	cases := []struct {
		name  string
		arn   string
		sid   string
		in    dp.InvokeHarnessInput
		field string // the ValidationException's fieldList name; "" = ResourceNotFoundException
	}{
		{"a short runtimeSessionId", f.arn, "too-short", dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")}}, "runtimeSessionId"},
		{"a malformed harness ARN", "arn:aws:iam::123456789012:role/x", sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")}}, "harnessArn"},
		{"a malformed qualifier", f.arn, sid, dp.InvokeHarnessInput{Qualifier: aws.String("9bad"), Messages: []dptypes.HarnessMessage{userText("hi")}}, "qualifier"},
		{"an unknown harness", foreign, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")}}, ""},
		{"a bad override tool name", f.arn, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")},
			Tools: []dptypes.HarnessTool{{Type: dptypes.HarnessToolTypeAgentcoreBrowser, Name: aws.String("bad name!")}}}, "tools[0].name"},
		{"a skills override", f.arn, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")},
			Skills: []dptypes.HarnessSkill{&dptypes.HarnessSkillMemberPath{Value: "/opt/skills/x"}}}, "skills"},
		{"a bad maxIterations", f.arn, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("hi")}, MaxIterations: aws.Int32(0)}, "maxIterations"},
		{"toolResults on a new session", f.arn, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults("tooluse_1", "x")}}, "messages"},
		{"no user text", f.arn, sid, dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("   ")}}, "messages"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := stack.Snapshot(t, f.st)
			fx := *f
			fx.arn = c.arn
			in := c.in
			_, err := fx.invoke(t, c.sid, &in)
			if c.field == "" {
				var nf *dptypes.ResourceNotFoundException
				if !errors.As(err, &nf) {
					t.Fatalf("%v (%T); want ResourceNotFoundException", err, err)
				}
			} else {
				var ve *dptypes.ValidationException
				if !errors.As(err, &ve) {
					t.Fatalf("%v (%T); want ValidationException", err, err)
				}
				found := false
				for _, fe := range ve.FieldList {
					found = found || aws.ToString(fe.Name) == c.field
				}
				if !found {
					t.Fatalf("ValidationException %q %+v does not name %s", aws.ToString(ve.Message), ve.FieldList, c.field)
				}
			}
			stack.AssertUnchanged(t, before, stack.Snapshot(t, f.st))
		})
	}
}
