package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// limitModel is a fake provider for the limit tests: each Stream answers with the next response of responses
// (the last one repeats) and records the request's MaxOutputTokens. A response with block set streams its parts
// and then waits for the request's context to end, failing with its error, as a provider's stream does when the
// request is cancelled.
type limitModel struct {
	responses [][]harness.Part
	block     bool
	calls     int
	maxTokens []int
	last      harness.Request
}

func (m *limitModel) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.maxTokens = append(m.maxTokens, req.MaxOutputTokens)
	m.last = req
	parts := m.responses[min(m.calls, len(m.responses)-1)]
	m.calls++
	return &limitStream{ctx: ctx, parts: parts, block: m.block}, nil
}

type limitStream struct {
	ctx   context.Context
	parts []harness.Part
	block bool
}

func (s *limitStream) Next() (harness.Part, error) {
	if len(s.parts) > 0 {
		p := s.parts[0]
		s.parts = s.parts[1:]
		return p, nil
	}
	if s.block {
		<-s.ctx.Done()
		return harness.Part{}, s.ctx.Err()
	}
	return harness.Part{}, io.EOF
}

func (s *limitStream) Close() error { return nil }

func textPart(t string) harness.Part { return harness.Part{Kind: harness.PartText, Text: t} }

func usagePart(in, out int64) harness.Part {
	return harness.Part{Kind: harness.PartUsage, Usage: usage(in, out)}
}

// callOfUnoffered is a call of a tool the request did not offer: the harness answers it with an error result and
// asks the model again, so a model that keeps making it keeps the loop going.
func callOfUnoffered() harness.Part {
	return harness.Part{Kind: harness.PartCall, Call: &harness.Call{Name: "not_offered", Arguments: json.RawMessage(`{}`)}}
}

func limitConfig(c agent.Controls) agent.Config {
	return agent.Config{Model: "fake", Controls: &c}
}

func runLimited(t *testing.T, cfg agent.Config, m *limitModel) (harness.Outcome, []op) {
	t.Helper()
	j := &journal{}
	got, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_lim", Config: cfg, History: []session.Item{user("go")}, Journal: j}, m)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return got, j.ops
}

func TestRunStopsAtMaxIterations(t *testing.T) {
	t.Parallel()
	m := &limitModel{responses: [][]harness.Part{{callOfUnoffered(), usagePart(3, 1)}}}
	got, ops := runLimited(t, limitConfig(agent.Controls{MaxIterations: 3}), m)
	if got != (harness.Outcome{Status: harness.StatusCompleted}) {
		t.Fatalf("outcome = %+v, want completed", got)
	}
	if m.calls != 3 {
		t.Fatalf("model calls = %d, want 3 (MaxIterations)", m.calls)
	}
	want := []op{{Op: "usage", Usage: usage(3, 1)}, {Op: "usage", Usage: usage(3, 1)}, {Op: "usage", Usage: usage(3, 1)},
		{Op: "stop", Text: session.StopMaxIterationsExceeded}}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops =\n%+v\nwant\n%+v", ops, want)
	}
}

func TestRunWithoutMaxIterationsKeepsTheStepBound(t *testing.T) {
	t.Parallel()
	m := &limitModel{responses: [][]harness.Part{{callOfUnoffered()}}}
	j := &journal{}
	_, err := harness.Run(context.Background(), harness.Job{TurnID: "turn_lim", Config: limitConfig(agent.Controls{}), History: []session.Item{user("go")}, Journal: j}, m)
	var me *harness.ModelError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want a *ModelError after MaxSteps", err)
	}
	if m.calls != harness.MaxSteps {
		t.Fatalf("model calls = %d, want %d", m.calls, harness.MaxSteps)
	}
	for _, o := range j.ops {
		if o.Op == "stop" {
			t.Fatalf("a stop reason was recorded without a limit: %+v", o)
		}
	}
}

func TestRunStopsAtTimeout(t *testing.T) {
	t.Parallel()
	// The response streams some text and then stalls; the task's 1-second limit cuts it.
	m := &limitModel{block: true, responses: [][]harness.Part{{textPart("Partial "), textPart("answer"), usagePart(5, 2)}}}
	got, ops := runLimited(t, limitConfig(agent.Controls{TimeoutSeconds: 1}), m)
	if got != (harness.Outcome{Status: harness.StatusCompleted}) {
		t.Fatalf("outcome = %+v, want completed", got)
	}
	want := []op{
		{Op: "usage", Usage: usage(5, 2)},
		{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
		{Op: "append", ItemID: "msg_1", Text: "Partial "},
		{Op: "append", ItemID: "msg_1", Text: "answer"},
		{Op: "finish", ItemID: "msg_1", Text: "Partial answer"},
		{Op: "stop", Text: session.StopTimeoutExceeded},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops =\n%+v\nwant\n%+v", ops, want)
	}
}

func TestRunTimeoutDoesNotRunTheCutResponsesCalls(t *testing.T) {
	t.Parallel()
	m := &limitModel{block: true, responses: [][]harness.Part{{harness.Part{Kind: harness.PartCall, Call: &harness.Call{Name: "get_weather", Arguments: json.RawMessage(`{}`)}}}}}
	cfg := limitConfig(agent.Controls{TimeoutSeconds: 1})
	cfg.Tools = []json.RawMessage{json.RawMessage(`{"type":"function","name":"get_weather","parameters":{"type":"object"}}`)}
	got, ops := runLimited(t, cfg, m)
	if got != (harness.Outcome{Status: harness.StatusCompleted}) {
		t.Fatalf("outcome = %+v, want completed (the cut call is not handed over)", got)
	}
	if want := []op{{Op: "stop", Text: session.StopTimeoutExceeded}}; !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops = %+v, want %+v", ops, want)
	}
}

func TestRunBoundsOutputTokens(t *testing.T) {
	t.Parallel()
	m := &limitModel{responses: [][]harness.Part{{callOfUnoffered(), usagePart(10, 6)}, {callOfUnoffered(), usagePart(10, 5)}}}
	got, ops := runLimited(t, limitConfig(agent.Controls{MaxTokens: 10}), m)
	if got != (harness.Outcome{Status: harness.StatusCompleted}) {
		t.Fatalf("outcome = %+v, want completed", got)
	}
	// Each call is asked for what is left of the budget; after 6+5 >= 10 no further call is made.
	if want := []int{10, 4}; !reflect.DeepEqual(m.maxTokens, want) {
		t.Fatalf("MaxOutputTokens per request = %v, want %v", m.maxTokens, want)
	}
	if last := ops[len(ops)-1]; !reflect.DeepEqual(last, op{Op: "stop", Text: session.StopMaxOutputTokensExceeded}) {
		t.Fatalf("last op = %+v, want stop %s", last, session.StopMaxOutputTokensExceeded)
	}
}

func TestRunReportsAResponseCutAtItsTokenLimit(t *testing.T) {
	t.Parallel()
	m := &limitModel{responses: [][]harness.Part{{textPart("Truncat"), usagePart(4, 3), {Kind: harness.PartStop, Stop: session.StopMaxTokens}}}}
	got, ops := runLimited(t, limitConfig(agent.Controls{MaxTokens: 3}), m)
	if got != (harness.Outcome{Status: harness.StatusCompleted}) {
		t.Fatalf("outcome = %+v, want completed", got)
	}
	want := []op{
		{Op: "usage", Usage: usage(4, 3)},
		{Op: "start", Phase: "final_answer", ItemID: "msg_1"},
		{Op: "append", ItemID: "msg_1", Text: "Truncat"},
		{Op: "finish", ItemID: "msg_1", Text: "Truncat"},
		{Op: "stop", Text: session.StopMaxTokens},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops =\n%+v\nwant\n%+v", ops, want)
	}
}

func TestRunSendsTheSamplingParameters(t *testing.T) {
	t.Parallel()
	temp, topP := 0.7, 0.9
	m := &limitModel{responses: [][]harness.Part{{textPart("Hi")}}}
	runLimited(t, limitConfig(agent.Controls{Temperature: &temp, TopP: &topP}), m)
	if m.last.Temperature == nil || *m.last.Temperature != 0.7 || m.last.TopP == nil || *m.last.TopP != 0.9 || m.last.MaxOutputTokens != 0 {
		t.Fatalf("request temperature %v, top_p %v, max output tokens %d; want 0.7, 0.9, 0", m.last.Temperature, m.last.TopP, m.last.MaxOutputTokens)
	}
	m = &limitModel{responses: [][]harness.Part{{textPart("Hi")}}}
	runLimited(t, agent.Config{Model: "fake"}, m)
	if m.last.Temperature != nil || m.last.TopP != nil {
		t.Fatalf("without Controls the request must carry no sampling parameters, got %v %v", m.last.Temperature, m.last.TopP)
	}
}
