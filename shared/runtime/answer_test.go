package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/statemachine"
)

// TestRuntimeRetriesTheAnswerUntilDelivered: a SendTaskSuccess or SendTaskFailure that fails transiently is retried
// with backoff while the task keeps heartbeating, until Step Functions accepts it (exactly one accepted answer);
// an error that says the task can never be answered (TaskTimedOut, TaskDoesNotExist, InvalidToken) stops at once.
func TestRuntimeRetriesTheAnswerUntilDelivered(t *testing.T) {
	t.Parallel()
	throttled := errors.New("ThrottlingException: rate exceeded")
	tests := []struct {
		name         string
		script       string
		input        string
		errs         []error
		want         *answer
		wantAttempts int
	}{
		{
			name: "success is retried through transient errors", errs: []error{throttled, throttled, throttled},
			want: &answer{Op: "success", Output: `{"status":"completed","settled":true}`}, wantAttempts: 4,
		},
		{
			name: "failure is retried through transient errors", script: `{"rules":[{"error":"simulated outage"}]}`, errs: []error{throttled, throttled},
			want: &answer{Op: "failure", Error: statemachine.ErrorModel, Cause: "scripted model: simulated outage"}, wantAttempts: 3,
		},
		{
			name: "a timed out task is not answered again", errs: []error{&types.TaskTimedOut{Message: aws.String("timed out")}},
			wantAttempts: 1,
		},
		{
			name: "a task that no longer exists is not answered again", errs: []error{throttled, &types.TaskDoesNotExist{Message: aws.String("gone")}},
			wantAttempts: 2,
		},
		{
			name: "an invalid token stops the failure of a malformed task", input: `{"nope":1}`, errs: []error{&types.InvalidToken{Message: aws.String("bad")}},
			wantAttempts: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newMemStore()
			var x *agent.Extension
			if tc.script != "" {
				x = &agent.Extension{Script: json.RawMessage(tc.script)}
			}
			store.seed("s_a", x, "Hello", false)
			store.seed("s_after", nil, "Hello", false)
			clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
			act := newActivities()
			act.sendErrs["t_a"] = tc.errs
			rt, err := runtime.New(engine.New(engine.Options{Store: store, Clock: clock}), act, runtime.Config{
				ID: "rt_test", ActivityARN: "arn:activity", Concurrency: 1, TaskHeartbeat: 10 * time.Millisecond,
				RegisterEvery: time.Hour, Clock: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			input := tc.input
			if input == "" {
				input = `{"session_id":"s_a","turn_id":"turn_s_a","harness":"baton"}`
			}
			// One worker: the task after t_a starts only once t_a's answer is delivered or given up.
			act.tasks <- [2]string{"t_a", input}
			act.tasks <- [2]string{"t_after", `{"session_id":"s_after","turn_id":"turn_s_after","harness":"baton"}`}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _ = rt.Run(ctx) }()
			for done := false; !done; {
				select {
				case token := <-act.got:
					done = token == "t_after"
				case <-time.After(10 * time.Second):
					t.Fatal("timed out waiting for answers")
				}
			}
			act.mu.Lock()
			defer act.mu.Unlock()
			got, ok := act.answers["t_a"]
			if tc.want == nil && ok {
				t.Errorf("t_a answered %+v, want no accepted answer", got)
			}
			if tc.want != nil {
				if diff := cmp.Diff(*tc.want, got); diff != "" {
					t.Errorf("t_a answer (-want +got):\n%s", diff)
				}
			}
			beats := act.attempts["t_a"]
			if len(beats) != tc.wantAttempts {
				t.Fatalf("t_a send attempts = %d, want %d", len(beats), tc.wantAttempts)
			}
			if tc.input == "" && len(beats) > 1 && beats[len(beats)-1] <= beats[0] {
				t.Errorf("heartbeats at each attempt = %v: the task stopped heartbeating while its answer was retried", beats)
			}
		})
	}
}
