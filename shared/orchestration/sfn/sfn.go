package sfn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
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

// Orchestrator implements engine.Orchestrator on one state machine per harness kind, all from the turn definition
// (docs/decisions.md §6).
type Orchestrator struct {
	api      API
	machines map[string]string // harness kind → state machine ARN
	kinds    []string          // the keys of machines, sorted
}

var _ engine.Orchestrator = (*Orchestrator)(nil)

// New returns an Orchestrator on the state machines of stateMachineARNs, harness kind → state machine ARN
// (BATON_STATE_MACHINE_ARNS).
func New(api API, stateMachineARNs map[string]string) *Orchestrator {
	o := &Orchestrator{api: api, machines: stateMachineARNs}
	for k := range stateMachineARNs {
		o.kinds = append(o.kinds, k)
	}
	sort.Strings(o.kinds)
	return o
}

// stateMachine returns the ARN of the harness kind's state machine. harness "" picks the first kind in sorted
// order (the readiness probe describes a made-up execution on any machine). Errors: no machine for the kind.
func (o *Orchestrator) stateMachine(harness string) (string, error) {
	if harness == "" && len(o.kinds) > 0 {
		return o.machines[o.kinds[0]], nil
	}
	arn, ok := o.machines[harness]
	if !ok {
		return "", fmt.Errorf("no turn state machine for harness kind %q (have %s)", harness, strings.Join(o.kinds, ", "))
	}
	return arn, nil
}

// execution returns the ARN of a turn's execution: execution itself when it is an ARN, else the execution of that
// name (the turn id) on the harness kind's state machine.
func (o *Orchestrator) execution(harness, execution string) (string, error) {
	if strings.HasPrefix(execution, "arn:") {
		return execution, nil
	}
	machine, err := o.stateMachine(harness)
	if err != nil {
		return "", err
	}
	return executionARN(machine, execution), nil
}

// StartTurn implements engine.Orchestrator on the state machine of in.Harness. The execution name is the turn id,
// so a repeated start is idempotent: the service answers the same ARN for the same input, and
// ExecutionAlreadyExists (another input, or a closed execution) is resolved to the existing execution's ARN.
// Errors: a harness kind without a state machine; the service's.
func (o *Orchestrator) StartTurn(ctx context.Context, in engine.TurnExecution) (string, error) {
	if in.Harness == "" {
		return "", fmt.Errorf("start turn %s: the turn names no harness kind", in.TurnID)
	}
	machine, err := o.stateMachine(in.Harness)
	if err != nil {
		return "", fmt.Errorf("start turn %s: %w", in.TurnID, err)
	}
	input, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("start turn %s: encode input: %w", in.TurnID, err)
	}
	out, err := o.api.StartExecution(ctx, &awssfn.StartExecutionInput{
		StateMachineArn: aws.String(machine),
		Name:            aws.String(in.TurnID),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		var exists *types.ExecutionAlreadyExists
		if errors.As(err, &exists) {
			return executionARN(machine, in.TurnID), nil
		}
		return "", fmt.Errorf("start turn %s: %w", in.TurnID, err)
	}
	return aws.ToString(out.ExecutionArn), nil
}

// executionARN derives an execution ARN from its state machine's ARN and the execution name.
func executionARN(stateMachineARN, name string) string {
	return strings.Replace(stateMachineARN, ":stateMachine:", ":execution:", 1) + ":" + name
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

// ExecutionState implements engine.Orchestrator with DescribeExecution: RUNNING is engine.ExecutionRunning, any
// other status engine.ExecutionEnded, ExecutionDoesNotExist engine.ExecutionMissing. DescribeExecution is eventually
// consistent: an execution started moments ago may still read as missing.
func (o *Orchestrator) ExecutionState(ctx context.Context, harness, execution string) (engine.ExecutionState, error) {
	executionARN, err := o.execution(harness, execution)
	if err != nil {
		return "", err
	}
	out, err := o.api.DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(executionARN)})
	if err != nil {
		var missing *types.ExecutionDoesNotExist
		if errors.As(err, &missing) {
			return engine.ExecutionMissing, nil
		}
		return "", fmt.Errorf("describe %s: %w", executionARN, err)
	}
	if out.Status == types.ExecutionStatusRunning {
		return engine.ExecutionRunning, nil
	}
	return engine.ExecutionEnded, nil
}

// StopTurn implements engine.Orchestrator; an execution that already ended is not an error. execution is the
// turn id (the execution name, on the harness kind's state machine) or the execution's ARN.
func (o *Orchestrator) StopTurn(ctx context.Context, harness, execution, cause string) error {
	executionARN, err := o.execution(harness, execution)
	if err != nil {
		return err
	}
	_, err = o.api.StopExecution(ctx, &awssfn.StopExecutionInput{ExecutionArn: aws.String(executionARN), Cause: aws.String(cause), Error: aws.String(statemachine.ErrorCancelled)})
	if err != nil {
		var notFound *types.ExecutionDoesNotExist
		if errors.As(err, &notFound) {
			return nil
		}
		return fmt.Errorf("stop %s: %w", executionARN, err)
	}
	return nil
}
