package sfn_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/sfn"
)

const fnPrefix = "arn:aws:lambda:us-east-1:123456789012:function:"

func TestLambdaInvoke(t *testing.T) {
	t.Parallel()
	lam := newFakeLambda()
	lam.handle("Echo", func(p []byte) ([]byte, string, error) { return []byte(`{"v":2,"got":` + string(p) + `}`), "", nil })
	lam.handle("Custom", func([]byte) ([]byte, string, error) { return fnError("CustomException", "nope") })
	s := newStack(t, sfn.Options{Invoker: lam})

	t.Run("D13 ResultSelector and ResultPath shape the wrapper", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
			"Parameters":{"FunctionName":"`+fnPrefix+`Echo","Payload.$":"$"},
			"ResultSelector":{"p.$":"$.Payload.v","code.$":"$.StatusCode","version.$":"$.ExecutedVersion"},"ResultPath":"$.r","End":true}}}`, `{"k":1}`)
		if out.Status != types.ExecutionStatusSucceeded {
			t.Fatalf("status %s %q %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
		}
		diffJSON(t, `{"k":1,"r":{"p":2,"code":200,"version":"$LATEST"}}`, aws.ToString(out.Output))
		types := eventTypes(s.history(t, aws.ToString(out.ExecutionArn)))
		want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"}
		if d := cmp.Diff(want, types); d != "" {
			t.Errorf("history (-want +got):\n%s", d)
		}
	})
	t.Run("T2 a function error is named by errorType and caught", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
			"Parameters":{"FunctionName":"Custom"},"Catch":[{"ErrorEquals":["CustomException"],"ResultPath":"$.err","Next":"Done"}],"End":true},
			"Done":{"Type":"Succeed"}}}`, `{"a":1}`)
		var got struct {
			A   int
			Err struct{ Error, Cause string }
		}
		if err := json.Unmarshal([]byte(aws.ToString(out.Output)), &got); err != nil {
			t.Fatalf("output %q: %v", aws.ToString(out.Output), err)
		}
		if got.A != 1 || got.Err.Error != "CustomException" || !strings.Contains(got.Err.Cause, `"errorType":"CustomException"`) {
			t.Fatalf("output %s", aws.ToString(out.Output))
		}
	})
	t.Run("T4 an unknown function is Lambda.ResourceNotFoundException", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"Nope"},"End":true}}}`, `{}`)
		if aws.ToString(out.Error) != "Lambda.ResourceNotFoundException" {
			t.Fatalf("got %s %q", out.Status, aws.ToString(out.Error))
		}
	})
	t.Run("T5 a legacy function ARN returns the payload as is", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"`+fnPrefix+`Echo","End":true}}}`, `{"x":1}`)
		diffJSON(t, `{"v":2,"got":{"x":1}}`, aws.ToString(out.Output))
		want := []string{"ExecutionStarted", "TaskStateEntered", "LambdaFunctionScheduled", "LambdaFunctionStarted", "LambdaFunctionSucceeded", "TaskStateExited", "ExecutionSucceeded"}
		if d := cmp.Diff(want, eventTypes(s.history(t, aws.ToString(out.ExecutionArn)))); d != "" {
			t.Errorf("history (-want +got):\n%s", d)
		}
	})
}

func TestRetryThenCatch(t *testing.T) {
	t.Parallel()
	lam := newFakeLambda()
	var mu sync.Mutex
	errs := []string{"ErrorA", "ErrorB", "ErrorC", "ErrorB"}
	var times []time.Time
	lam.handle("Flaky", func([]byte) ([]byte, string, error) {
		mu.Lock()
		defer mu.Unlock()
		times = append(times, time.Now())
		e := errs[0]
		errs = errs[1:]
		return fnError(e, "boom")
	})
	s := newStack(t, sfn.Options{Invoker: lam})
	// spec §4.8 worked example with the intervals shortened: [A,B] I=1 B=1 M=2, [C] I=1; the 4th error
	// (ErrorB) exhausts the first retrier and the catcher sends the machine to Z.
	out := s.run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"`+fnPrefix+`Flaky",
		"Retry":[{"ErrorEquals":["ErrorA","ErrorB"],"IntervalSeconds":1,"BackoffRate":1.0,"MaxAttempts":2},{"ErrorEquals":["ErrorC"],"IntervalSeconds":1}],
		"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}],"End":true},
		"Z":{"Type":"Pass","Parameters":{"caught.$":"$.Error"},"End":true}}}`, `{}`)
	if out.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("status %s %q %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
	}
	diffJSON(t, `{"caught":"ErrorB"}`, aws.ToString(out.Output))
	if n := lam.count("Flaky"); n != 4 {
		t.Fatalf("invoked %d times, want 4", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 900*time.Millisecond {
			t.Errorf("retry %d came after %v, want about 1s", i, gap)
		}
	}
	events := s.history(t, aws.ToString(out.ExecutionArn))
	n := 0
	for _, e := range events {
		if e.Type == types.HistoryEventTypeTaskStateEntered {
			n++
		}
	}
	if n != 1 {
		t.Errorf("TaskStateEntered %d times, want 1 (retries re-enter no state)", n)
	}
}

// callbackMachine parks on lambda:invoke.waitForTaskToken; Park records the token it receives.
const callbackMachine = `{"StartAt":"Await","States":{"Await":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
	"Parameters":{"FunctionName":"Park","Payload":{"token.$":"$$.Task.Token","data.$":"$"}},"ResultPath":"$.resume",
	"Catch":[{"ErrorEquals":["States.ALL"],"ResultPath":"$.e","Next":"Caught"}],"End":true},
	"Caught":{"Type":"Pass","End":true}}}`

type tokenBox struct {
	mu     sync.Mutex
	tokens []string
}

func (b *tokenBox) park(p []byte) ([]byte, string, error) {
	var in struct{ Token string }
	_ = json.Unmarshal(p, &in)
	b.mu.Lock()
	b.tokens = append(b.tokens, in.Token)
	b.mu.Unlock()
	return []byte(`{"ignored":true}`), "", nil
}

func (b *tokenBox) wait(t *testing.T, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		if len(b.tokens) >= n {
			tok := b.tokens[n-1]
			b.mu.Unlock()
			return tok
		}
		b.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("Park was not invoked %d times", n)
	return ""
}

func TestWaitForTaskToken(t *testing.T) {
	t.Parallel()
	t.Run("T6 SendTaskSuccess resumes with its output; a reused token is TaskTimedOut", func(t *testing.T) {
		t.Parallel()
		box := &tokenBox{}
		lam := newFakeLambda()
		lam.handle("Park", box.park)
		s := newStack(t, sfn.Options{Invoker: lam})
		execARN := s.start(t, s.createMachine(t, callbackMachine), "", `{"k":1}`)
		token := box.wait(t, 1)
		s.waitForEvent(t, execARN, types.HistoryEventTypeTaskSubmitted)
		if _, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"approved":true}`)}); err != nil {
			t.Fatalf("SendTaskSuccess: %v", err)
		}
		out := s.await(t, execARN)
		diffJSON(t, `{"k":1,"resume":{"approved":true}}`, aws.ToString(out.Output))
		_, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{}`)})
		mustAs[*types.TaskTimedOut](t, err)
		_, err = s.client.SendTaskHeartbeat(ctx(t), &awssfn.SendTaskHeartbeatInput{TaskToken: aws.String(token)})
		mustAs[*types.TaskTimedOut](t, err)
		want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"}
		if d := cmp.Diff(want, eventTypes(s.history(t, execARN))); d != "" {
			t.Errorf("history (-want +got):\n%s", d)
		}
	})
	t.Run("T11 SendTaskFailure is caught with its error and cause", func(t *testing.T) {
		t.Parallel()
		box := &tokenBox{}
		lam := newFakeLambda()
		lam.handle("Park", box.park)
		s := newStack(t, sfn.Options{Invoker: lam})
		execARN := s.start(t, s.createMachine(t, callbackMachine), "", `{"k":1}`)
		token := box.wait(t, 1)
		if _, err := s.client.SendTaskFailure(ctx(t), &awssfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String("E"), Cause: aws.String("C")}); err != nil {
			t.Fatalf("SendTaskFailure: %v", err)
		}
		out := s.await(t, execARN)
		diffJSON(t, `{"k":1,"e":{"Error":"E","Cause":"C"}}`, aws.ToString(out.Output))
		_, err := s.client.SendTaskFailure(ctx(t), &awssfn.SendTaskFailureInput{TaskToken: aws.String(token)})
		mustAs[*types.TaskTimedOut](t, err)
	})
	t.Run("T7 the function may answer before it returns", func(t *testing.T) {
		t.Parallel()
		var s *stack
		lam := newFakeLambda()
		lam.handle("Park", func(p []byte) ([]byte, string, error) {
			var in struct{ Token string }
			_ = json.Unmarshal(p, &in)
			_, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(in.Token), Output: aws.String(`"early"`)})
			return []byte(`{}`), "", err
		})
		s = newStack(t, sfn.Options{Invoker: lam})
		out := s.run(t, callbackMachine, `{}`)
		diffJSON(t, `{"resume":"early"}`, aws.ToString(out.Output))
	})
	t.Run("A19 a token this endpoint never issued is InvalidToken", func(t *testing.T) {
		t.Parallel()
		s := newStack(t, sfn.Options{})
		_, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String("FakeTaskToken"), Output: aws.String(`{}`)})
		if e := mustAs[*types.InvalidToken](t, err); e.ErrorMessage() != "Invalid Token: 'Invalid token'" {
			t.Errorf("message %q", e.ErrorMessage())
		}
	})
	t.Run("A21 output that is not JSON is InvalidOutput", func(t *testing.T) {
		t.Parallel()
		box := &tokenBox{}
		lam := newFakeLambda()
		lam.handle("Park", box.park)
		s := newStack(t, sfn.Options{Invoker: lam})
		execARN := s.start(t, s.createMachine(t, callbackMachine), "", `{}`)
		_, err := s.client.SendTaskSuccess(ctx(t), &awssfn.SendTaskSuccessInput{TaskToken: aws.String(box.wait(t, 1)), Output: aws.String(`{`)})
		mustAs[*types.InvalidOutput](t, err)
		if _, err := s.client.StopExecution(ctx(t), &awssfn.StopExecutionInput{ExecutionArn: aws.String(execARN)}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStopExecution(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	execARN := s.start(t, s.createMachine(t, `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":100,"End":true}}}`), "", `{}`)
	s.waitForEvent(t, execARN, types.HistoryEventTypeWaitStateEntered)
	if _, err := s.client.StopExecution(ctx(t), &awssfn.StopExecutionInput{ExecutionArn: aws.String(execARN), Error: aws.String("E"), Cause: aws.String("C")}); err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	out := s.await(t, execARN)
	if out.Status != types.ExecutionStatusAborted || aws.ToString(out.Error) != "E" || out.StopDate == nil {
		t.Fatalf("got %s %q stop=%v", out.Status, aws.ToString(out.Error), out.StopDate)
	}
	events := s.history(t, execARN)
	last := events[len(events)-1]
	if last.Type != types.HistoryEventTypeExecutionAborted || aws.ToString(last.ExecutionAbortedEventDetails.Cause) != "C" {
		t.Fatalf("last event %s %+v", last.Type, last.ExecutionAbortedEventDetails)
	}
	again, err := s.client.StopExecution(ctx(t), &awssfn.StopExecutionInput{ExecutionArn: aws.String(execARN)})
	if err != nil || !again.StopDate.Equal(*out.StopDate) {
		t.Fatalf("second stop: %v %v, want the first stopDate %v", err, again, out.StopDate)
	}
}

func TestExecutionNameIdempotency(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	machine := s.createMachine(t, `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":100,"End":true}}}`)
	first, err := s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("turn_1"), Input: aws.String(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("turn_1"), Input: aws.String(`{"a":1}`)})
	if err != nil {
		t.Fatalf("same name and input: %v", err)
	}
	if aws.ToString(first.ExecutionArn) != aws.ToString(second.ExecutionArn) || !first.StartDate.Equal(*second.StartDate) {
		t.Errorf("A8: got %v/%v, want %v/%v", aws.ToString(second.ExecutionArn), second.StartDate, aws.ToString(first.ExecutionArn), first.StartDate)
	}
	_, err = s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("turn_1"), Input: aws.String(`{"a":2}`)})
	mustAs[*types.ExecutionAlreadyExists](t, err)
	if _, err := s.client.StopExecution(ctx(t), &awssfn.StopExecutionInput{ExecutionArn: first.ExecutionArn}); err != nil {
		t.Fatal(err)
	}
	_, err = s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("turn_1"), Input: aws.String(`{"a":1}`)})
	mustAs[*types.ExecutionAlreadyExists](t, err)

	_, err = s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Input: aws.String(`not json`)})
	mustAs[*types.InvalidExecutionInput](t, err)
	_, err = s.client.StartExecution(ctx(t), &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("a b")})
	mustAs[*types.InvalidName](t, err)
	list, err := s.client.ListExecutions(ctx(t), &awssfn.ListExecutionsInput{StateMachineArn: aws.String(machine), StatusFilter: types.ExecutionStatusAborted})
	if err != nil || len(list.Executions) != 1 {
		t.Fatalf("ListExecutions ABORTED: %v %+v", err, list)
	}
}

func TestInvalidDefinition(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	cases := []struct{ name, def, code string }{
		{"without States", `{"StartAt":"A"}`, "SCHEMA_VALIDATION_FAILED"},
		{"dangling Next", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`, "MISSING_TRANSITION_TARGET"},
		{"a .$ value that is no path or intrinsic", pass(`"Parameters":{"k.$":"nope"},`), "SCHEMA_VALIDATION_FAILED"},
		{"JSONata", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`, "SCHEMA_VALIDATION_FAILED"},
		{"Parallel state", `{"StartAt":"A","States":{"A":{"Type":"Parallel","Branches":[],"End":true}}}`, "SCHEMA_VALIDATION_FAILED"},
		{"sync integration", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.sync","End":true}}}`, "SCHEMA_VALIDATION_FAILED"},
		{"variables", `{"StartAt":"A","States":{"A":{"Type":"Pass","Assign":{"x":1},"End":true}}}`, "SCHEMA_VALIDATION_FAILED"},
		{"unknown intrinsic", pass(`"Parameters":{"k.$":"States.Nope($.a)"},`), "SCHEMA_VALIDATION_FAILED"},
		{"States.ALL not last", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}],"End":true}}}`, "SCHEMA_VALIDATION_FAILED"},
		{"duplicate state name", `{"StartAt":"A","States":{"A":{"Type":"Succeed"},"A":{"Type":"Succeed"}}}`, "DUPLICATE_STATE_NAME"},
		{"filter path", pass(`"InputPath":"$.a[?(@.b > 1)]",`), "SCHEMA_VALIDATION_FAILED"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.client.CreateStateMachine(ctx(t), &awssfn.CreateStateMachineInput{
				Name: aws.String("bad" + string(rune('a'+i))), Definition: aws.String(tc.def), RoleArn: aws.String(roleARN),
			})
			e := mustAs[*types.InvalidDefinition](t, err)
			if !strings.HasPrefix(e.ErrorMessage(), "Invalid State Machine Definition: '"+tc.code) {
				t.Errorf("message %q, want code %s", e.ErrorMessage(), tc.code)
			}
		})
	}
}
