package sfn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/statemachine"
)

// API is the subset of the Step Functions client the orchestrator uses.
type API interface {
	StartExecution(ctx context.Context, in *awssfn.StartExecutionInput, opts ...func(*awssfn.Options)) (*awssfn.StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, in *awssfn.DescribeExecutionInput, opts ...func(*awssfn.Options)) (*awssfn.DescribeExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, in *awssfn.SendTaskSuccessInput, opts ...func(*awssfn.Options)) (*awssfn.SendTaskSuccessOutput, error)
	StopExecution(ctx context.Context, in *awssfn.StopExecutionInput, opts ...func(*awssfn.Options)) (*awssfn.StopExecutionOutput, error)
}

// Orchestrator implements engine.Orchestrator on one state machine.
type Orchestrator struct {
	api             API
	stateMachineARN string
}

var _ engine.Orchestrator = (*Orchestrator)(nil)

// New returns an Orchestrator for the state machine ARN.
func New(api API, stateMachineARN string) *Orchestrator {
	return &Orchestrator{api: api, stateMachineARN: stateMachineARN}
}

// StartTurn implements engine.Orchestrator. The execution name is the turn id, so a repeated start is idempotent:
// the service answers the same ARN for the same input, and ExecutionAlreadyExists (another input, or a closed
// execution) is resolved to the existing execution's ARN.
func (o *Orchestrator) StartTurn(ctx context.Context, in engine.TurnExecution) (string, error) {
	input, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("start turn %s: encode input: %w", in.TurnID, err)
	}
	out, err := o.api.StartExecution(ctx, &awssfn.StartExecutionInput{
		StateMachineArn: aws.String(o.stateMachineARN),
		Name:            aws.String(in.TurnID),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		var exists *types.ExecutionAlreadyExists
		if errors.As(err, &exists) {
			return o.executionARN(in.TurnID), nil
		}
		return "", fmt.Errorf("start turn %s: %w", in.TurnID, err)
	}
	return aws.ToString(out.ExecutionArn), nil
}

// executionARN derives an execution ARN from the state machine ARN and the execution name.
func (o *Orchestrator) executionARN(name string) string {
	return strings.Replace(o.stateMachineARN, ":stateMachine:", ":execution:", 1) + ":" + name
}

// Resume implements engine.Orchestrator. A token Step Functions no longer accepts (TaskTimedOut,
// TaskDoesNotExist, InvalidToken: the task already closed) is reported as engine.ErrTaskClosed.
func (o *Orchestrator) Resume(ctx context.Context, taskToken string) error {
	output, err := json.Marshal(statemachine.ResumeOutput{Resumed: true})
	if err != nil {
		return fmt.Errorf("resume parked task: encode output: %w", err)
	}
	_, err = o.api.SendTaskSuccess(ctx, &awssfn.SendTaskSuccessInput{TaskToken: aws.String(taskToken), Output: aws.String(string(output))})
	if err != nil {
		var timedOut *types.TaskTimedOut
		var missing *types.TaskDoesNotExist
		var invalid *types.InvalidToken
		if errors.As(err, &timedOut) || errors.As(err, &missing) || errors.As(err, &invalid) {
			return fmt.Errorf("resume parked task: %w: %w", engine.ErrTaskClosed, err)
		}
		return fmt.Errorf("resume parked task: %w", err)
	}
	return nil
}

// ExecutionEnded implements engine.Orchestrator with DescribeExecution: any status but RUNNING, or
// ExecutionDoesNotExist, is ended.
func (o *Orchestrator) ExecutionEnded(ctx context.Context, executionARN string) (bool, error) {
	if !strings.HasPrefix(executionARN, "arn:") {
		executionARN = o.executionARN(executionARN)
	}
	out, err := o.api.DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(executionARN)})
	if err != nil {
		var missing *types.ExecutionDoesNotExist
		if errors.As(err, &missing) {
			return true, nil
		}
		return false, fmt.Errorf("describe %s: %w", executionARN, err)
	}
	return out.Status != types.ExecutionStatusRunning, nil
}

// StopTurn implements engine.Orchestrator; an execution that already ended is not an error. executionARN may also
// be the turn id (the execution name) when the ARN was never recorded.
func (o *Orchestrator) StopTurn(ctx context.Context, executionARN, cause string) error {
	if !strings.HasPrefix(executionARN, "arn:") {
		executionARN = o.executionARN(executionARN)
	}
	_, err := o.api.StopExecution(ctx, &awssfn.StopExecutionInput{ExecutionArn: aws.String(executionARN), Cause: aws.String(cause), Error: aws.String(statemachine.ErrorCancelled)})
	if err != nil {
		var notFound *types.ExecutionDoesNotExist
		if errors.As(err, &notFound) {
			return nil
		}
		return fmt.Errorf("stop %s: %w", executionARN, err)
	}
	return nil
}
