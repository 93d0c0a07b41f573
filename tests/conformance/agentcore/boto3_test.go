package agentcore_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
	"github.com/google/go-cmp/cmp"
)

// TestBoto3ControlPlane runs testdata/control_plane.py — boto3's bedrock-agentcore-control client with only the
// endpoint, region and credentials set — against the local stack. Without python3 and boto3 it is skipped, except
// under CI=true, where it fails.
func TestBoto3ControlPlane(t *testing.T) {
	t.Parallel()
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with boto3 is required under CI=true: %v", err)
		}
		t.Skipf("python3 with boto3 is not available: %v", err)
	}
	p := newProject(t, "boto3")
	cmd := exec.CommandContext(p.ctx, "python3", "testdata/control_plane.py")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "BATON_AGENTCORE_ENDPOINT="+p.st.APIURL, "AWS_ACCESS_KEY_ID="+p.keyID, "AWS_SECRET_ACCESS_KEY="+p.secret,
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("control_plane.py: %v\n%s\n%s", err, out, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("control_plane.py printed %s: %v", out, err)
	}
	want := map[string]any{
		"status": "READY",
		"tools": []any{"remote_mcp:exa", "remote_mcp:exa-secure", "agentcore_gateway:my-gateway", "agentcore_browser:browser",
			"agentcore_code_interpreter:code-interpreter", "inline_function:approve_purchase"},
		"createdAtIsDatetime":    true,
		"latestPrompt":           []any{map[string]any{"text": "Be brief."}},
		"notFound":               "ResourceNotFoundException",
		"providerArn":            "arn:aws:bedrock-agentcore:us-east-1:000000000000:token-vault/default/apikeycredentialprovider/my-exa-key",
		"providerTimeIsDatetime": true,
		"providerHasKey":         false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("boto3 saw (-want +got):\n%s", diff)
	}
}

// TestBoto3SeedExamples runs the guide's boto3 examples (testdata/seed_inline.py): the six-tool list at invoke, and
// the get_weather inline-function flow verbatim — the handoff ends with stopReason tool_use, the client captures the
// toolUse id and its streamed input, and the follow-up toolResult resumes the turn to its final answer.
func TestBoto3SeedExamples(t *testing.T) {
	t.Parallel()
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with boto3 is required under CI=true: %v", err)
		}
		t.Skipf("python3 with boto3 is not available: %v", err)
	}
	p := newProject(t, "boto3seed")
	// boto3 1.43's model of bedrockModelConfig has no additionalParams, so the harness that selects the scripted
	// model (docs/agentcore.md) is created with the Go client; the guide's examples need only its ARN.
	script := map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "weather"}, "calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Seattle"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": `In Seattle: {{tool_output "get_weather"}}`},
	}}
	created, err := p.client.CreateHarness(p.ctx, &cp.CreateHarnessInput{
		HarnessName:      aws.String(fmt.Sprintf("seed_%d", time.Now().UnixNano())),
		ExecutionRoleArn: aws.String("arn:aws:iam::123456789012:role/MyHarnessRole"),
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted"), AdditionalParams: cpdoc.NewLazyDocument(map[string]any{"script": script})}},
	})
	if err != nil {
		t.Fatalf("CreateHarness: %v", err)
	}
	cmd := exec.CommandContext(p.ctx, "python3", "testdata/seed_inline.py")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "BATON_AGENTCORE_ENDPOINT="+p.st.APIURL, "AWS_ACCESS_KEY_ID="+p.keyID, "AWS_SECRET_ACCESS_KEY="+p.secret,
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "HARNESS_ARN="+aws.ToString(created.Harness.Arn))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("seed_inline.py: %v\n%s\n%s", err, out, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("seed_inline.py printed %s: %v", out, err)
	}
	want := map[string]any{
		"plainStops":    []any{"end_turn"},
		"toolArguments": map[string]any{"city": "Seattle"},
		"finalText":     "In Seattle: 72°F, partly cloudy",
		"followUpStops": []any{"tool_result", "end_turn"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the guide's examples saw (-want +got):\n%s", diff)
	}
}
