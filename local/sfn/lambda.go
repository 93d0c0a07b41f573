package sfn

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// LambdaInvokeAPI is the part of *lambda.Client that LambdaInvoker uses.
type LambdaInvokeAPI interface {
	Invoke(ctx context.Context, in *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// LambdaInvoker is the Invoker backed by the aws-sdk-go-v2 Lambda client (RequestResponse invocations).
// Point the client at the local Lambda invoke endpoint with AWS_ENDPOINT_URL_LAMBDA or BaseEndpoint.
// Service errors come back as the SDK's errors, which carry ErrorCode(), so tasks fail with
// "Lambda.<code>" (e.g. Lambda.ResourceNotFoundException, spec §3.1).
type LambdaInvoker struct {
	Client LambdaInvokeAPI
}

var _ Invoker = LambdaInvoker{}

// Invoke implements Invoker.
func (l LambdaInvoker) Invoke(ctx context.Context, functionARN string, payload []byte) ([]byte, string, error) {
	out, err := l.Client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(functionARN),
		Payload:        payload,
		InvocationType: types.InvocationTypeRequestResponse,
	})
	if err != nil {
		return nil, "", fmt.Errorf("invoke %s: %w", functionARN, err)
	}
	return out.Payload, aws.ToString(out.FunctionError), nil
}
