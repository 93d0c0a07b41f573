package e2e_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/tests/stack"
)

// A crash of the whole stack (SIGKILL to every process) while a required action is pending, on stacks of their
// own. With a data folder the pending turn survives and completes exactly once; in memory it is gone.

// crashWhilePending starts a stack on dataDir ("" = in memory), drives a turn to its required action, waits
// until the turn is parked (AwaitResults' Park invocation has returned, so the task token is stored) and kills
// the stack. It returns the session, turn and required actions seen before the crash.
func crashWhilePending(t *testing.T, dataDir string) (string, string, []requiredAction) {
	t.Helper()
	st := stack.Start(t, stack.Options{DataDir: dataDir})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sid, _, turnID, actions := pendingTurn(t, ctx, stack.OpenAI(st), "weather in Paris")
	waitParked(t, ctx, stack.SFN(st), st.StateMachineARN("baton"), turnID)
	st.Kill(t)
	return sid, turnID, actions
}

// waitParked waits until the turn's execution has a TaskSubmitted event (the waitForTaskToken invocation of Park
// returned).
func waitParked(t *testing.T, ctx context.Context, client *awssfn.Client, stateMachineARN, turnID string) {
	t.Helper()
	arn := executionARN(t, ctx, client, stateMachineARN, turnID)
	deadline := time.Now().Add(eventTimeout)
	for {
		h, err := client.GetExecutionHistory(ctx, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
		if err != nil {
			t.Fatalf("GetExecutionHistory: %v", err)
		}
		for _, e := range h.Events {
			if e.Type == types.HistoryEventTypeTaskSubmitted {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("turn %s not parked after %s", turnID, eventTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// executions lists the state machine's executions (all statuses).
func executions(t *testing.T, ctx context.Context, client *awssfn.Client, stateMachineARN string) []types.ExecutionListItem {
	t.Helper()
	out, err := client.ListExecutions(ctx, &awssfn.ListExecutionsInput{StateMachineArn: aws.String(stateMachineARN), MaxResults: 1000})
	if err != nil {
		t.Fatalf("ListExecutions: %v", err)
	}
	return out.Executions
}

func executionARN(t *testing.T, ctx context.Context, client *awssfn.Client, stateMachineARN, turnID string) string {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for {
		for _, x := range executions(t, ctx, client, stateMachineARN) {
			if aws.ToString(x.Name) == turnID {
				return aws.ToString(x.ExecutionArn)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no execution named %s", turnID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRestartOnDataFolderKeepsThePendingTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sid, turnID, actions := crashWhilePending(t, dir)

	st := stack.Start(t, stack.Options{DataDir: dir})
	client := stack.OpenAI(st)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := getSession(t, ctx, client, sid)
	if s.Status != "requires_action" {
		t.Errorf("session status after the restart = %q, want requires_action", s.Status)
	}
	if diff := cmp.Diff(actions, s.RequiredActions); diff != "" {
		t.Errorf("required actions after the restart (-before +after):\n%s", diff)
	}

	rec := record(t, ctx, client, sid)
	const out = `{"temp_c":19}`
	wantAccepted(t, "tool result after the restart", postRaw(t, st, sid, resultEvent(turnID, actions[0].CallID, out)))
	completeTurn(t, rec, 0, turnID)
	checkRoundTripItems(t, listItems(t, ctx, client, sid), actions[0].CallID, out)

	sfnClient := stack.SFN(st)
	deadline := time.Now().Add(eventTimeout)
	for {
		xs := executions(t, ctx, sfnClient, st.StateMachineARN("baton"))
		if len(xs) != 1 || aws.ToString(xs[0].Name) != turnID {
			t.Fatalf("executions after the restart = %+v, want exactly one named %s", xs, turnID)
		}
		if xs[0].Status == types.ExecutionStatusSucceeded {
			break
		}
		if xs[0].Status != types.ExecutionStatusRunning || time.Now().After(deadline) {
			t.Fatalf("execution %s status %s, want SUCCEEDED", turnID, xs[0].Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRestartInMemoryLosesThePendingTurn(t *testing.T) {
	t.Parallel()
	sid, _, _ := crashWhilePending(t, "")

	st := stack.Start(t, stack.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	wantNotFound(t, "session after an in-memory restart", st.Do(t, http.MethodGet, "/v1/agents/sessions/"+sid, nil, nil))
	if xs := executions(t, ctx, stack.SFN(st), st.StateMachineARN("baton")); len(xs) != 0 {
		t.Errorf("executions after an in-memory restart = %+v, want none", xs)
	}
}
