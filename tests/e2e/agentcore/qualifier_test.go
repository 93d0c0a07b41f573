package agentcore_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
)

// TestTheQualifierRunsTheVersionItsEndpointTargets: an endpoint pinned to version 1 keeps answering with version 1's
// configuration after an update, DEFAULT runs the latest; each qualifier's runtimeSessionId is its own Session.
func TestTheQualifierRunsTheVersionItsEndpointTargets(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "qualifier")
	id := f.arn[strings.LastIndex(f.arn, "/")+1:]
	if _, err := f.control.CreateHarnessEndpoint(f.ctx, &cp.CreateHarnessEndpointInput{HarnessId: aws.String(id),
		EndpointName: aws.String("pinned"), TargetVersion: aws.String("1")}); err != nil {
		t.Fatalf("CreateHarnessEndpoint: %v", err)
	}
	v2 := script()
	v2["default_reply"] = "Version 2 heard: {{.UserText}}"
	if _, err := f.control.UpdateHarness(f.ctx, &cp.UpdateHarnessInput{HarnessId: aws.String(id),
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted"), AdditionalParams: cpdoc.NewLazyDocument(map[string]any{"script": v2})}}}); err != nil {
		t.Fatalf("UpdateHarness: %v", err)
	}
	sid := newSessionID(t)
	for _, c := range []struct {
		qualifier *string
		want      string
	}{
		{aws.String("pinned"), "You said: hi"},
		{nil, "Version 2 heard: hi"},
		{aws.String("DEFAULT"), "Version 2 heard: hi"},
	} {
		frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Qualifier: c.qualifier, Messages: []dptypes.HarnessMessage{userText("hi")}})
		if err != nil {
			t.Fatalf("qualifier %v: %v", aws.ToString(c.qualifier), err)
		}
		if got := texts(frames); got != c.want {
			t.Errorf("qualifier %q: %q, want %q", aws.ToString(c.qualifier), got, c.want)
		}
	}
	r := f.agentsKey(t).Do(t, http.MethodGet, "/v1/agents/sessions", nil, nil)
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list.Data) != 2 {
		t.Fatalf("sessions of the project: %s; want 2 (pinned, DEFAULT)", r.Body)
	}
	_, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Qualifier: aws.String("missing"), Messages: []dptypes.HarnessMessage{userText("hi")}})
	var nf *dptypes.ResourceNotFoundException
	if !asErr(err, &nf) {
		t.Fatalf("unknown endpoint: %v (%T); want ResourceNotFoundException", err, err)
	}
}
