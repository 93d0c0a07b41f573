package sfn_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/baton-run/baton/local/sfn"
)

func TestRestartKeepsParkedTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	box := &tokenBox{}
	lam := newFakeLambda()
	lam.handle("Park", box.park)

	first := newStack(t, sfn.Options{DataDir: dir, Invoker: lam})
	machine := first.createMachine(t, callbackMachine)
	activityARN := first.activity(t, "Queued")
	actMachine, err := first.client.CreateStateMachine(ctx(t), &awssfn.CreateStateMachineInput{
		Name: aws.String("queued-activity"), Definition: aws.String(activityMachine(activityARN)), RoleArn: aws.String(roleARN),
	})
	if err != nil {
		t.Fatal(err)
	}
	execARN := first.start(t, machine, "turn_restart", `{"k":1}`)
	token := box.wait(t, 1)
	first.waitForEvent(t, execARN, types.HistoryEventTypeTaskSubmitted)
	actExec := first.start(t, aws.ToString(actMachine.StateMachineArn), "", `{"job":"after-restart","timeouts":{"run":30,"heartbeat":10}}`)
	first.waitForEvent(t, actExec, types.HistoryEventTypeActivityScheduled)
	first.close()

	second := newStack(t, sfn.Options{DataDir: dir, Invoker: lam})
	if _, err := second.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"resumed":true}`)}); err != nil {
		t.Fatalf("SendTaskSuccess after restart: %v", err)
	}
	out := second.await(t, execARN)
	if out.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("status %s %q %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
	}
	diffJSON(t, `{"k":1,"resume":{"resumed":true}}`, aws.ToString(out.Output))
	if n := lam.count("Park"); n != 1 {
		t.Errorf("Park invoked %d times, want 1 (nothing runs twice)", n)
	}
	// the activity task that no worker had taken is queued again
	task := second.poll(t, activityARN, "w")
	if task.TaskToken == nil {
		t.Fatal("the queued activity task was lost in the restart")
	}
	diffJSON(t, `{"job":"after-restart"}`, aws.ToString(task.Input))
	if _, err := second.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: task.TaskToken, Output: aws.String(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if out := second.await(t, actExec); out.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("activity execution %s", out.Status)
	}
	// the same start again is ExecutionAlreadyExists: the name survived the restart
	_, err = second.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("turn_restart"), Input: aws.String(`{"k":1}`)})
	mustAs[*types.ExecutionAlreadyExists](t, err)
}

func TestRestartWithoutDataDirForgetsTokens(t *testing.T) {
	t.Parallel()
	box := &tokenBox{}
	lam := newFakeLambda()
	lam.handle("Park", box.park)
	first := newStack(t, sfn.Options{Invoker: lam})
	first.start(t, first.createMachine(t, callbackMachine), "turn_gone", `{}`)
	token := box.wait(t, 1)
	first.close()

	second := newStack(t, sfn.Options{Invoker: lam})
	_, err := second.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{}`)})
	mustAs[*types.TaskDoesNotExist](t, err)
}
