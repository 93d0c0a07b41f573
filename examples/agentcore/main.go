// Command agentcore is the README's AgentCore example: it creates a harness with the official control-plane client
// and invokes it with the data-plane client, printing the event-stream frames. Run it while `make local` runs
// (`go run ./examples/agentcore`); BATON_AGENTCORE_ENDPOINT, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY replace the
// local defaults when set.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
)

func main() {
	ctx := context.Background()
	endpoint, id, secret := envOr("BATON_AGENTCORE_ENDPOINT", "http://127.0.0.1:8080"),
		envOr("AWS_ACCESS_KEY_ID", "BATONLOCALACCESSKEY1"), envOr("AWS_SECRET_ACCESS_KEY", "baton-local-secret-access-key")
	creds := credentials.NewStaticCredentialsProvider(id, secret, "")
	control := bedrockagentcorecontrol.New(bedrockagentcorecontrol.Options{Region: "us-east-1",
		BaseEndpoint: aws.String(endpoint), Credentials: creds})
	h, err := control.CreateHarness(ctx, &bedrockagentcorecontrol.CreateHarnessInput{
		HarnessName:      aws.String(fmt.Sprintf("weather_%d", time.Now().Unix())),
		ExecutionRoleArn: aws.String("arn:aws:iam::123456789012:role/HarnessRole"),
		// The scripted model runs offline (docs/agentcore.md §3.3); name a Bedrock model id on AWS.
		Model: &cptypes.HarnessModelConfigurationMemberBedrockModelConfig{Value: cptypes.HarnessBedrockModelConfig{
			ModelId: aws.String("baton.scripted")}},
	})
	if err != nil {
		log.Fatal(err)
	}
	data := bedrockagentcore.New(bedrockagentcore.Options{Region: "us-east-1",
		BaseEndpoint: aws.String(endpoint), Credentials: creds})
	out, err := data.InvokeHarness(ctx, &bedrockagentcore.InvokeHarnessInput{
		HarnessArn:       h.Harness.Arn,
		RuntimeSessionId: aws.String(fmt.Sprintf("session-%032d", time.Now().UnixNano())),
		Messages: []types.HarnessMessage{{Role: types.HarnessConversationRoleUser,
			Content: []types.HarnessContentBlock{&types.HarnessContentBlockMemberText{Value: "Hello"}}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	stream := out.GetStream()
	defer stream.Close()
	for ev := range stream.Events() { // messageStart, contentBlockDelta …, messageStop, metadata
		fmt.Printf("%T\n", ev)
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
