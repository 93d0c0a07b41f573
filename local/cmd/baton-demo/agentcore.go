package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cpdoc "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/document"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
	"github.com/aws/smithy-go"

	"github.com/baton-run/baton/local/stackproc"
)

// runAgentCore is the same job through the AgentCore front door (docs/agentcore.md), with the official
// bedrockagentcorecontrol and bedrockagentcore clients signed with the stack's local access key pair: a harness on
// the scripted model (docs/agentcore.md §3.3) with the inline function get_weather, an InvokeHarness whose stream
// pauses on the toolUse (the final messageStop tool_use), and a follow-up on the same runtimeSessionId carrying only
// the matching toolResult, whose stream is the answer. Every frame is printed as it arrives.
func runAgentCore(ctx context.Context, st stackproc.Stack, question, toolOutput string) error {
	region := st.Region
	if region == "" {
		region = "us-east-1"
	}
	creds := credentials.NewStaticCredentialsProvider(st.AccessKeyID, st.SecretAccessKey, "")
	control := cp.New(cp.Options{Region: region, BaseEndpoint: aws.String(st.APIURL), Credentials: creds, Retryer: aws.NopRetryer{}})
	data := dp.New(dp.Options{Region: region, BaseEndpoint: aws.String(st.APIURL), Credentials: creds, Retryer: aws.NopRetryer{}})
	fmt.Printf("endpoint   %s  (SigV4, region %s, access key %s)\n", st.APIURL, region, st.AccessKeyID)

	script := map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_matches": `(?i)weather in (?P<city>\w+)`}, "commentary": "Let me check.",
			"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "{{.Match.city}}"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"},
			"reply": `Here is the weather in {{tool_arg "get_weather" "city"}}: {{tool_output "get_weather"}}`},
	}}
	h, err := control.CreateHarness(ctx, &cp.CreateHarnessInput{
		HarnessName:      aws.String(fmt.Sprintf("demo_weather_%d", time.Now().Unix())),
		ExecutionRoleArn: aws.String("arn:aws:iam::123456789012:role/HarnessRole"),
		SystemPrompt:     []cptypes.HarnessSystemContentBlock{&cptypes.HarnessSystemContentBlockMemberText{Value: "Answer weather questions."}},
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted"), AdditionalParams: cpdoc.NewLazyDocument(map[string]any{"script": script})}},
		Tools: []cptypes.HarnessTool{{Type: cptypes.HarnessToolTypeInlineFunction, Name: aws.String("get_weather"),
			Config: &cptypes.HarnessToolConfigurationMemberInlineFunction{Value: cptypes.HarnessInlineFunctionConfig{
				Description: aws.String("Current weather for a city"),
				InputSchema: cpdoc.NewLazyDocument(map[string]any{"type": "object",
					"properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}),
			}}}},
	})
	if err != nil {
		return explainAWS("CreateHarness", err)
	}
	fmt.Printf("harness    %s  (%s, version %s; model baton.scripted, inline function get_weather)\n",
		aws.ToString(h.Harness.Arn), h.Harness.Status, aws.ToString(h.Harness.HarnessVersion))

	sessionID := fmt.Sprintf("demo-session-%032x", time.Now().UnixNano())
	fmt.Printf("session    %s  (runtimeSessionId)\n\n", sessionID)
	fmt.Printf("user       %s\n", question)
	uses, err := invokeAndPrint(ctx, data, h.Harness.Arn, sessionID, dptypes.HarnessMessage{Role: dptypes.HarnessConversationRoleUser,
		Content: []dptypes.HarnessContentBlock{&dptypes.HarnessContentBlockMemberText{Value: question}}})
	if err != nil {
		return err
	}
	if len(uses) == 0 {
		return errors.New("the invocation ended without handing over a toolUse")
	}
	results := dptypes.HarnessMessage{Role: dptypes.HarnessConversationRoleUser}
	for _, id := range uses {
		results.Content = append(results.Content, &dptypes.HarnessContentBlockMemberToolResult{Value: dptypes.HarnessToolResultBlock{
			ToolUseId: aws.String(id), Status: dptypes.HarnessToolUseStatusSuccess,
			Content: []dptypes.HarnessToolResultContentBlock{&dptypes.HarnessToolResultContentBlockMemberText{Value: toolOutput}}}})
		fmt.Printf("caller     toolResult for %s: %s\n", id, toolOutput)
	}
	fmt.Println()
	more, err := invokeAndPrint(ctx, data, h.Harness.Arn, sessionID, results)
	if err != nil {
		return err
	}
	if len(more) != 0 {
		return fmt.Errorf("the follow-up paused again on %v", more)
	}
	return nil
}

// invokeAndPrint sends one InvokeHarness and prints its frames as they arrive: message boundaries with their role
// and stopReason, text as it streams, each toolUse (and toolResult) with its id and its input (output) once its block
// stops, and the metadata.
// It returns the ids of the handed-over toolUse blocks when the stream ends with stopReason tool_use.
func invokeAndPrint(ctx context.Context, data *dp.Client, arn *string, sessionID string, msg dptypes.HarnessMessage) ([]string, error) {
	started := time.Now()
	out, err := data.InvokeHarness(ctx, &dp.InvokeHarnessInput{HarnessArn: arn, RuntimeSessionId: aws.String(sessionID),
		Messages: []dptypes.HarnessMessage{msg}})
	if err != nil {
		return nil, explainAWS("InvokeHarness", err)
	}
	stream := out.GetStream()
	defer stream.Close()
	type block struct {
		id, name, kind string
		input          strings.Builder
	}
	var (
		role    string
		blocks  = map[int32]*block{}
		inText  bool
		pending []string
		last    dptypes.HarnessStopReason
	)
	endText := func() {
		if inText {
			fmt.Println()
			inText = false
		}
	}
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *dptypes.InvokeHarnessStreamOutputMemberMessageStart:
			role, blocks, pending = string(v.Value.Role), map[int32]*block{}, nil
			fmt.Printf("  ▸ messageStart %s\n", role)
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockStart:
			switch s := v.Value.Start.(type) {
			case *dptypes.HarnessContentBlockStartMemberToolUse:
				blocks[aws.ToInt32(v.Value.ContentBlockIndex)] = &block{id: aws.ToString(s.Value.ToolUseId), name: aws.ToString(s.Value.Name), kind: string(s.Value.Type)}
			case *dptypes.HarnessContentBlockStartMemberToolResult:
				blocks[aws.ToInt32(v.Value.ContentBlockIndex)] = &block{id: aws.ToString(s.Value.ToolUseId), kind: "toolResult"}
			}
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockDelta:
			switch d := v.Value.Delta.(type) {
			case *dptypes.HarnessContentBlockDeltaMemberText:
				if !inText {
					fmt.Printf("%-11s", role)
					inText = true
				}
				fmt.Print(d.Value) // streamed as it arrives
			case *dptypes.HarnessContentBlockDeltaMemberToolUse:
				if b := blocks[aws.ToInt32(v.Value.ContentBlockIndex)]; b != nil {
					b.input.WriteString(aws.ToString(d.Value.Input))
				}
			case *dptypes.HarnessContentBlockDeltaMemberToolResult:
				if b := blocks[aws.ToInt32(v.Value.ContentBlockIndex)]; b != nil {
					for _, part := range d.Value {
						if tx, ok := part.(*dptypes.HarnessToolResultBlockDeltaMemberText); ok {
							b.input.WriteString(tx.Value)
						}
					}
				}
			}
		case *dptypes.InvokeHarnessStreamOutputMemberContentBlockStop:
			endText()
			if b := blocks[aws.ToInt32(v.Value.ContentBlockIndex)]; b != nil && b.kind == "toolResult" {
				fmt.Printf("%-11stoolResult %s  [toolUseId %s]\n", role, b.input.String(), b.id)
			} else if b != nil {
				fmt.Printf("%-11stoolUse %s(%s)  [toolUseId %s]\n", role, b.name, b.input.String(), b.id)
				if b.kind != string(dptypes.HarnessToolUseTypeMcpToolUse) {
					pending = append(pending, b.id)
				}
			}
		case *dptypes.InvokeHarnessStreamOutputMemberMessageStop:
			endText()
			last = v.Value.StopReason
			fmt.Printf("  ▸ messageStop %s\n", last)
		case *dptypes.InvokeHarnessStreamOutputMemberMetadata:
			endText()
			u := v.Value.Usage
			if u != nil {
				fmt.Printf("  ▸ metadata  tokens in %d, out %d\n", aws.ToInt32(u.InputTokens), aws.ToInt32(u.OutputTokens))
			} else {
				fmt.Println("  ▸ metadata")
			}
		}
	}
	endText()
	if err := stream.Err(); err != nil {
		return nil, explainAWS("InvokeHarness stream", err)
	}
	fmt.Printf("  (stream closed after %s)\n", time.Since(started).Round(time.Millisecond))
	if last != dptypes.HarnessStopReasonToolUse {
		return nil, nil
	}
	return pending, nil
}

// explainAWS adds the AgentCore error type and message to an SDK error.
func explainAWS(what string, err error) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%s: %s: %s", what, apiErr.ErrorCode(), apiErr.ErrorMessage())
	}
	return fmt.Errorf("%s: %w", what, err)
}
