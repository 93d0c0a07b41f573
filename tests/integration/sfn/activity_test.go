package sfn_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/sfn"
)

// activityMachine runs one activity task whose limits come from the input, like Baton's turn machine.
func activityMachine(activityARN string) string {
	return `{"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"` + activityARN + `",
		"Parameters":{"job.$":"$.job"},"TimeoutSecondsPath":"$.timeouts.run","HeartbeatSecondsPath":"$.timeouts.heartbeat",
		"ResultPath":"$.run","End":true}}}`
}

func (s *stack) activity(t *testing.T, name string) string {
	t.Helper()
	a, err := s.client.CreateActivity(ctx(t), &awssfn.CreateActivityInput{Name: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.client.CreateActivity(ctx(t), &awssfn.CreateActivityInput{Name: aws.String(name)})
	if err != nil || aws.ToString(a.ActivityArn) != aws.ToString(b.ActivityArn) || !a.CreationDate.Equal(*b.CreationDate) {
		t.Fatalf("A16: CreateActivity is not idempotent: %v %v %v", err, a, b)
	}
	return aws.ToString(a.ActivityArn)
}

func (s *stack) poll(t *testing.T, activityARN, worker string) *awssfn.GetActivityTaskOutput {
	t.Helper()
	in := &awssfn.GetActivityTaskInput{ActivityArn: aws.String(activityARN)}
	if worker != "" {
		in.WorkerName = aws.String(worker)
	}
	out, err := s.client.GetActivityTask(ctx(t), in)
	if err != nil {
		t.Fatalf("GetActivityTask: %v", err)
	}
	return out
}

func TestActivities(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{ActivityPollTimeout: time.Second})

	t.Run("A17 an empty queue answers without a token after the hold", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Empty")
		start := time.Now()
		out := s.poll(t, arn, "w")
		if out.TaskToken != nil || time.Since(start) < 900*time.Millisecond {
			t.Fatalf("token %v after %v", out.TaskToken, time.Since(start))
		}
		_, err := s.client.DescribeActivity(ctx(t), &awssfn.DescribeActivityInput{ActivityArn: aws.String(arn + "x")})
		mustAs[*types.ActivityDoesNotExist](t, err)
	})
	t.Run("T12 a heartbeating worker succeeds past HeartbeatSeconds", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Beats")
		execARN := s.start(t, s.createMachine(t, activityMachine(arn)), "", `{"job":"j1","timeouts":{"run":10,"heartbeat":1}}`)
		task := s.poll(t, arn, "w1")
		if task.TaskToken == nil {
			t.Fatal("no task")
		}
		diffJSON(t, `{"job":"j1"}`, aws.ToString(task.Input))
		for range 4 {
			time.Sleep(400 * time.Millisecond)
			if _, err := s.client.SendTaskHeartbeat(ctx(t), &awssfn.SendTaskHeartbeatInput{TaskToken: task.TaskToken}); err != nil {
				t.Fatalf("SendTaskHeartbeat: %v", err)
			}
		}
		if _, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: task.TaskToken, Output: aws.String(`{"status":"completed"}`)}); err != nil {
			t.Fatalf("SendTaskSuccess: %v", err)
		}
		out := s.await(t, execARN)
		diffJSON(t, `{"job":"j1","timeouts":{"run":10,"heartbeat":1},"run":{"status":"completed"}}`, aws.ToString(out.Output))
		events := s.history(t, execARN)
		want := []string{"ExecutionStarted", "TaskStateEntered", "ActivityScheduled", "ActivityStarted", "ActivitySucceeded", "TaskStateExited", "ExecutionSucceeded"}
		if d := cmp.Diff(want, eventTypes(events)); d != "" {
			t.Errorf("history (-want +got):\n%s", d)
		}
		if got := aws.ToString(events[3].ActivityStartedEventDetails.WorkerName); got != "w1" {
			t.Errorf("workerName %q", got)
		}
		if sch := events[2].ActivityScheduledEventDetails; aws.ToInt64(sch.HeartbeatInSeconds) != 1 || aws.ToInt64(sch.TimeoutInSeconds) != 10 {
			t.Errorf("ActivityScheduled limits %+v", sch)
		}
	})
	t.Run("T8 a worker without heartbeats times out", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Silent")
		execARN := s.start(t, s.createMachine(t, activityMachine(arn)), "", `{"job":"j2","timeouts":{"run":10,"heartbeat":1}}`)
		task := s.poll(t, arn, "")
		out := s.await(t, execARN)
		if out.Status != types.ExecutionStatusFailed || aws.ToString(out.Error) != "States.Timeout" {
			t.Fatalf("got %s %q", out.Status, aws.ToString(out.Error))
		}
		_, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: task.TaskToken, Output: aws.String(`{}`)})
		mustAs[*types.TaskTimedOut](t, err)
		events := s.history(t, execARN)
		if events[len(events)-2].Type != types.HistoryEventTypeActivityTimedOut {
			t.Errorf("history %v", eventTypes(events))
		}
	})
	t.Run("T14 TimeoutSeconds applies whatever the heartbeats", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Slow")
		execARN := s.start(t, s.createMachine(t, activityMachine(arn)), "", `{"job":"j3","timeouts":{"run":2,"heartbeat":1}}`)
		task := s.poll(t, arn, "w")
		start := time.Now()
		for {
			out, err := s.client.DescribeExecution(ctx(t), &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != types.ExecutionStatusRunning {
				if aws.ToString(out.Error) != "States.Timeout" || time.Since(start) < 1500*time.Millisecond {
					t.Fatalf("got %s %q after %v", out.Status, aws.ToString(out.Error), time.Since(start))
				}
				break
			}
			_, _ = s.client.SendTaskHeartbeat(ctx(t), &awssfn.SendTaskHeartbeatInput{TaskToken: task.TaskToken})
			time.Sleep(200 * time.Millisecond)
		}
	})
	t.Run("T13 SendTaskFailure fails the execution", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Failing")
		execARN := s.start(t, s.createMachine(t, activityMachine(arn)), "", `{"job":"j4","timeouts":{"run":10,"heartbeat":5}}`)
		task := s.poll(t, arn, "")
		if _, err := s.client.SendTaskFailure(ctx(t), &awssfn.SendTaskFailureInput{TaskToken: task.TaskToken, Error: aws.String("Baton.HarnessError"), Cause: aws.String("x")}); err != nil {
			t.Fatal(err)
		}
		out := s.await(t, execARN)
		if aws.ToString(out.Error) != "Baton.HarnessError" || aws.ToString(out.Cause) != "x" {
			t.Fatalf("got %s %q %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
		}
	})
	t.Run("T15 a missing activity fails with States.Runtime", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, activityMachine("arn:aws:states:us-east-1:123456789012:activity:Ghost"), `{"job":"j","timeouts":{"run":2,"heartbeat":1}}`)
		if aws.ToString(out.Error) != "States.Runtime" || !strings.Contains(aws.ToString(out.Cause), "does not exist") {
			t.Fatalf("got %s %q %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
		}
	})
	t.Run("T16 StopExecution closes a queued activity task", func(t *testing.T) {
		t.Parallel()
		arn := s.activity(t, "Stopped")
		execARN := s.start(t, s.createMachine(t, activityMachine(arn)), "", `{"job":"j5","timeouts":{"run":10,"heartbeat":5}}`)
		s.waitForEvent(t, execARN, types.HistoryEventTypeActivityScheduled)
		if _, err := s.client.StopExecution(ctx(t), &awssfn.StopExecutionInput{ExecutionArn: aws.String(execARN)}); err != nil {
			t.Fatal(err)
		}
		if out := s.poll(t, arn, ""); out.TaskToken != nil {
			t.Fatalf("a stopped execution's task was handed out")
		}
	})
}
