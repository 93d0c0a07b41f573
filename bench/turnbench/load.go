package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// loadPollGap is the least time between two reads of one load-phase session (and between answering a call and
// reading the session again), so that the client's reads do not crowd out the stack on a small machine and the
// few sessions left at the end are not read in a tight loop.
const loadPollGap = 50 * time.Millisecond

// loadSession is the client's view of one load-phase session.
type loadSession struct {
	id, turnID  string
	sent        map[string]string // call id → the output the client sent for it
	order       []string          // call ids in the order they were answered
	lastRead    time.Time
	completedAt time.Time
}

// loadResult is what the load phase measured and checked.
type loadResult struct {
	sessions, rounds, clients int
	openAtOnce                int           // executions RUNNING on the Step Functions endpoint once every message was posted
	createWall, driveWall     time.Duration // creating the sessions; first message POST → last turn idle
	reads                     int64         // session GETs of the client
	// From the table: results (RESULT# records) and function_call_output items per answered call.
	storedResults, outputItems int
	// From the Step Functions histories: task-token resumes (TaskSucceeded of a .waitForTaskToken task).
	resumes, executionsSucceeded int
	// failures counts the histories' failed or timed-out tasks by event type (each one retried or caught), and
	// transitions sums the executions' state transitions (GET /_baton/stats).
	failures    map[string]int
	transitions int64
	// phases sums, over every execution, the time between pairs of history events (phaseStarts, phaseEnds), and
	// phaseN counts the pairs, so that the report can show where a turn's time goes under load.
	phases           map[string]time.Duration
	phaseN           map[string]int
	open             string    // the phase opened by the last start event, while reading one history
	openAt           time.Time // its start
	lost, duplicated int
	problems         []string // the first few mismatches, for the report
}

// loadAgent creates the load phase's agent: its scripted model calls step_1 on a user message, step_k+1 after
// step_k's result, and answers after step_<rounds>'s, so one turn makes `rounds` inline round trips.
func (b *bench) loadAgent(ctx context.Context, rounds int) (string, error) {
	var tools []openai.PersistedAgentToolParamUnion
	var rules []any
	for k := 1; k <= rounds; k++ {
		name := fmt.Sprintf("step_%d", k)
		tools = append(tools, openai.PersistedAgentToolParamOfParamFunction("Load step", name,
			map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "integer"}}}))
		call := []any{map[string]any{"name": name, "arguments": map[string]any{"k": k}}}
		if k == 1 {
			rules = append(rules, map[string]any{"when": map[string]any{"user_contains": "load"}, "calls": call})
		} else {
			rules = append(rules, map[string]any{"when": map[string]any{"after_tool": fmt.Sprintf("step_%d", k-1)}, "calls": call})
		}
	}
	rules = append(rules, map[string]any{"when": map[string]any{"after_tool": fmt.Sprintf("step_%d", rounds)}, "reply": "done"})
	a, err := b.client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted", Tools: tools},
		option.WithJSONSet("x_baton", map[string]any{"script": map[string]any{"rules": rules}}))
	if err != nil {
		return "", explain("create load agent", err)
	}
	return a.ID, nil
}

// loadPhase opens n sessions, posts one message to each (so n turns are in progress at once: none can finish
// before the client answers its calls), then answers every required action with a pool of `clients` workers
// that read sessions round-robin (GET session), until every turn is idle after `rounds` results. Then it checks
// the table and the Step Functions histories.
func (b *bench) loadPhase(ctx context.Context, n, rounds, clients int) (*loadResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	agentID, err := b.loadAgent(ctx, rounds)
	if err != nil {
		return nil, err
	}
	res := &loadResult{sessions: n, rounds: rounds, clients: clients}
	sessions := b.client.Beta.Agents.Sessions
	list := make([]*loadSession, n)

	start := time.Now()
	if err := parallel(ctx, n, clients, func(i int) error {
		s, err := sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(agentID),
			Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}}})
		if err != nil {
			return explain("create session", err)
		}
		list[i] = &loadSession{id: s.ID, sent: map[string]string{}}
		return nil
	}); err != nil {
		return nil, err
	}
	res.createWall = time.Since(start)

	start = time.Now()
	msg := openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText("load")}}})
	if err := parallel(ctx, n, clients, func(i int) error {
		if err := sessions.Events.New(ctx, list[i].id, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{msg}}); err != nil {
			return explain("post message", err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// No turn can finish before the client answers its calls, so every one of them is in progress now.
	st, err := getJSON[sfnStats](ctx, b.stack.SFNURL+"/_baton/stats")
	if err != nil {
		return nil, err
	}
	res.openAtOnce = st.ByStatus["RUNNING"]

	queue := make(chan *loadSession, n)
	for _, s := range list {
		queue <- s
	}
	var remaining atomic.Int64
	remaining.Store(int64(n))
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var s *loadSession
				select {
				case next, ok := <-queue:
					if !ok {
						return
					}
					s = next
				case <-ctx.Done():
					return
				}
				if wait := loadPollGap - time.Since(s.lastRead); wait > 0 {
					time.Sleep(wait)
				}
				done, err := b.driveOnce(ctx, s, rounds)
				reads.Add(1)
				if err != nil {
					cancel(err)
					return
				}
				if done {
					if remaining.Add(-1) == 0 {
						close(queue)
					}
					continue
				}
				select {
				case queue <- s:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("load phase: %w", err)
	}
	res.driveWall = time.Since(start)
	res.reads = reads.Load()

	fmt.Printf("Checking the table and %d Step Functions histories…\n", n)
	if err := b.checkTable(ctx, list, rounds, res); err != nil {
		return nil, err
	}
	if err := b.checkHistories(ctx, list, rounds, res); err != nil {
		return nil, err
	}
	return res, nil
}

// driveOnce reads the session and answers each required action not answered yet; done reports that the turn is
// idle after `rounds` answers.
func (b *bench) driveOnce(ctx context.Context, s *loadSession, rounds int) (done bool, err error) {
	sessions := b.client.Beta.Agents.Sessions
	sess, err := sessions.Get(ctx, s.id)
	s.lastRead = time.Now()
	if err != nil {
		return false, explain("get session", err)
	}
	switch {
	case sess.Status == openai.AgentSessionStatusFailed:
		return false, fmt.Errorf("session %s failed: %s", s.id, sess.Error)
	case sess.Status == openai.AgentSessionStatusIdle && len(s.order) == rounds:
		s.completedAt = time.Now()
		return true, nil
	}
	for _, a := range sess.RequiredActions {
		if _, ok := s.sent[a.CallID]; ok {
			continue // a required action stays listed until the turn resumes
		}
		if s.turnID != "" && a.TurnID != s.turnID {
			return false, fmt.Errorf("session %s: a second turn %s beside %s", s.id, a.TurnID, s.turnID)
		}
		s.turnID = a.TurnID
		out := fmt.Sprintf("result %d of %s", len(s.order)+1, s.id)
		result := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(a.CallID, true, a.TurnID)
		result.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{OfString: openai.String(out)}
		if err := sessions.Events.New(ctx, s.id, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{result}}); err != nil {
			return false, explain("post tool result", err)
		}
		s.sent[a.CallID] = out
		s.order = append(s.order, a.CallID)
		s.lastRead = time.Now()
	}
	return false, nil
}

// checkTable reads each session's partition and counts, per answered call, its stored result (sort key
// RESULT#<call_id>) and its function_call_output items (sort key ITEM#…, attribute type), each holding the output
// the client sent. A call with neither is lost; a second output item, or a stored result the client never sent,
// is a duplicate.
func (b *bench) checkTable(ctx context.Context, list []*loadSession, rounds int, res *loadResult) error {
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(b.stack.DynamoDBURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	for _, s := range list {
		results, outputs := map[string]int{}, map[string]int{}
		p := dynamodb.NewQueryPaginator(client, &dynamodb.QueryInput{
			TableName:                 aws.String(b.stack.Table),
			KeyConditionExpression:    aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":pk": &ddbtypes.AttributeValueMemberS{Value: "SESSION#" + s.id}},
			ConsistentRead:            aws.Bool(true),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("query session %s: %w", s.id, err)
			}
			for _, it := range page.Items {
				sk := str(it["sk"])
				switch {
				case strings.HasPrefix(sk, "RESULT#"):
					id := str(it["call_id"])
					results[id]++
					if want, ok := s.sent[id]; ok && !strings.Contains(str(it["output"]), want) {
						res.problem("session %s: stored result of %s is %q, the client sent %q", s.id, id, str(it["output"]), want)
						res.lost++
					}
				case strings.HasPrefix(sk, "ITEM#") && str(it["type"]) == "function_call_output":
					var doc struct {
						CallID string          `json:"call_id"`
						Output json.RawMessage `json:"output"`
					}
					_ = json.Unmarshal([]byte(str(it["doc"])), &doc)
					outputs[doc.CallID]++
					if want, ok := s.sent[doc.CallID]; ok && !strings.Contains(string(doc.Output), want) {
						res.problem("session %s: function_call_output of %s holds %s, the client sent %q", s.id, doc.CallID, doc.Output, want)
						res.lost++
					}
				}
			}
		}
		if len(s.order) != rounds {
			res.problem("session %s: the client answered %d calls, want %d", s.id, len(s.order), rounds)
		}
		for _, id := range s.order {
			res.storedResults += min(results[id], 1)
			res.outputItems += outputs[id]
			switch {
			case results[id] == 0 || outputs[id] == 0:
				res.lost++
				res.problem("session %s: call %s has %d stored results and %d function_call_output items, want 1 and 1", s.id, id, results[id], outputs[id])
			case outputs[id] > 1:
				res.duplicated += outputs[id] - 1
				res.problem("session %s: call %s has %d function_call_output items", s.id, id, outputs[id])
			}
		}
		for id, k := range results {
			if _, ok := s.sent[id]; !ok {
				res.duplicated += k
				res.problem("session %s: a stored result for %s, which the client never answered", s.id, id)
			}
		}
		for id, k := range outputs {
			if _, ok := s.sent[id]; !ok {
				res.duplicated += k
				res.problem("session %s: a function_call_output item for %s, which the client never answered", s.id, id)
			}
		}
	}
	return nil
}

// checkHistories reads each turn's execution history from the Step Functions endpoint (GetExecutionHistory) and
// counts its task-token resumes: TaskSucceeded events of a .waitForTaskToken task, which only SendTaskSuccess
// with the stored token produces. Each execution must have succeeded with exactly `rounds` of them.
func (b *bench) checkHistories(ctx context.Context, list []*loadSession, rounds int, res *loadResult) error {
	st, err := getJSON[sfnStats](ctx, b.stack.SFNURL+"/_baton/stats")
	if err != nil {
		return err
	}
	arnOf := map[string]string{}
	for arn := range st.Executions {
		arnOf[arn[strings.LastIndex(arn, ":")+1:]] = arn
	}
	res.failures = map[string]int{}
	res.phases, res.phaseN = map[string]time.Duration{}, map[string]int{}
	client := sfn.New(sfn.Options{Region: "us-east-1", BaseEndpoint: aws.String(b.stack.SFNURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	for _, s := range list {
		arn, ok := arnOf[s.turnID]
		if !ok {
			res.lost += rounds
			res.problem("session %s: no execution for turn %s", s.id, s.turnID)
			continue
		}
		resumes, succeeded := 0, false
		res.transitions += st.Executions[arn].StateTransitions
		p := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("GetExecutionHistory %s: %w", arn, err)
			}
			for _, ev := range page.Events {
				res.phase(ev)
				switch ev.Type {
				case sfntypes.HistoryEventTypeTaskSucceeded:
					if d := ev.TaskSucceededEventDetails; d != nil && strings.HasSuffix(aws.ToString(d.Resource), "waitForTaskToken") {
						resumes++
					}
				case sfntypes.HistoryEventTypeExecutionSucceeded:
					succeeded = true
				case sfntypes.HistoryEventTypeTaskFailed, sfntypes.HistoryEventTypeTaskTimedOut, sfntypes.HistoryEventTypeActivityFailed,
					sfntypes.HistoryEventTypeActivityTimedOut, sfntypes.HistoryEventTypeLambdaFunctionFailed, sfntypes.HistoryEventTypeLambdaFunctionTimedOut:
					res.failures[string(ev.Type)]++
				}
			}
		}
		res.resumes += resumes
		if succeeded {
			res.executionsSucceeded++
		} else {
			res.problem("execution %s did not succeed", arn)
		}
		switch {
		case resumes < rounds:
			res.lost += rounds - resumes
			res.problem("execution %s: %d task-token resumes, want %d", arn, resumes, rounds)
		case resumes > rounds:
			res.duplicated += resumes - rounds
			res.problem("execution %s: %d task-token resumes, want %d", arn, resumes, rounds)
		}
	}
	return nil
}

// phaseStarts maps the history event that opens a phase to the phase's name, phaseEnds the event that closes it.
var (
	phaseStarts = map[sfntypes.HistoryEventType]string{
		sfntypes.HistoryEventTypeActivityScheduled: "activity task queued until a runtime takes it",
		sfntypes.HistoryEventTypeActivityStarted:   "activity task run by the runtime",
		sfntypes.HistoryEventTypeTaskScheduled:     "Lambda task invoked until it answered",
		sfntypes.HistoryEventTypeTaskSubmitted:     "parked until the task-token resume (includes the client's answer)",
	}
	phaseEnds = map[sfntypes.HistoryEventType]string{
		sfntypes.HistoryEventTypeActivityStarted:   "activity task queued until a runtime takes it",
		sfntypes.HistoryEventTypeActivitySucceeded: "activity task run by the runtime",
		sfntypes.HistoryEventTypeTaskSubmitted:     "Lambda task invoked until it answered",
		sfntypes.HistoryEventTypeTaskSucceeded:     "parked until the task-token resume (includes the client's answer)",
	}
)

// phase adds the time since the open phase's start event when ev closes it. History events of one execution
// come in order, and the phases of one execution never overlap.
func (r *loadResult) phase(ev sfntypes.HistoryEvent) {
	if name, ok := phaseEnds[ev.Type]; ok && !r.openAt.IsZero() && r.open == name {
		r.phases[name] += aws.ToTime(ev.Timestamp).Sub(r.openAt)
		r.phaseN[name]++
		r.open, r.openAt = "", time.Time{}
	}
	if name, ok := phaseStarts[ev.Type]; ok {
		// A lambda:invoke without a callback (Settle) ends with TaskSucceeded, not TaskSubmitted.
		if ev.Type == sfntypes.HistoryEventTypeTaskScheduled && r.open != "" {
			return
		}
		r.open, r.openAt = name, aws.ToTime(ev.Timestamp)
	}
}

func (r *loadResult) problem(format string, args ...any) {
	if len(r.problems) < 10 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

// write prints the load phase's table and its checks.
func (r *loadResult) write(out io.Writer) {
	handoffs := r.sessions * r.rounds
	fmt.Fprintf(out, "\nLoad phase on this machine: %d sessions × %d inline round trips, one turn each, %d client requests in flight\n", r.sessions, r.rounds, r.clients)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "measure\tvalue\t")
	fmt.Fprintf(w, "executions running at once (after every message was posted)\t%d\t\n", r.openAtOnce)
	fmt.Fprintf(w, "session creation (wall)\t%s\t\n", r.createWall.Round(time.Millisecond))
	fmt.Fprintf(w, "first message POST → last turn idle (wall)\t%s\t\n", r.driveWall.Round(time.Millisecond))
	fmt.Fprintf(w, "handoffs (tool results answered)\t%d\t\n", handoffs)
	fmt.Fprintf(w, "throughput\t%.1f handoffs/s\t\n", float64(handoffs)/r.driveWall.Seconds())
	fmt.Fprintf(w, "client session reads (GET)\t%d\t\n", r.reads)
	fmt.Fprintf(w, "results stored in the table (RESULT# records)\t%d of %d\t\n", r.storedResults, handoffs)
	fmt.Fprintf(w, "function_call_output items in the table\t%d of %d\t\n", r.outputItems, handoffs)
	fmt.Fprintf(w, "executions succeeded\t%d of %d\t\n", r.executionsSucceeded, r.sessions)
	fmt.Fprintf(w, "task-token resumes in the execution histories\t%d of %d\t\n", r.resumes, handoffs)
	fmt.Fprintf(w, "state transitions per turn\t%.1f\t\n", float64(r.transitions)/float64(r.sessions))
	failed := []string{}
	for typ, k := range r.failures {
		failed = append(failed, fmt.Sprintf("%d %s", k, typ))
	}
	sort.Strings(failed)
	if len(failed) == 0 {
		failed = []string{"none"}
	}
	fmt.Fprintf(w, "failed or timed-out tasks in the histories (retried or caught)\t%s\t\n", strings.Join(failed, ", "))
	fmt.Fprintf(w, "lost results\t%d\t\n", r.lost)
	fmt.Fprintf(w, "duplicated results\t%d\t\n", r.duplicated)
	w.Flush()
	if len(r.phaseN) > 0 {
		fmt.Fprintf(out, "Where a load-phase turn's time goes (from the execution histories, millisecond timestamps)\n")
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "phase\tcount\tmean\t")
		names := make([]string, 0, len(r.phaseN))
		for name := range r.phaseN {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(w, "%s\t%d\t%s\t\n", name, r.phaseN[name], (r.phases[name] / time.Duration(r.phaseN[name])).Round(time.Millisecond))
		}
		w.Flush()
	}
	for _, p := range r.problems {
		fmt.Fprintf(out, "  MISMATCH: %s\n", p)
	}
}

// parallel runs f(0..n-1) with at most `workers` at once and returns the first error.
func parallel(ctx context.Context, n, workers int, f func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					cancel(err)
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// str returns a string attribute's value, or "" for any other attribute.
func str(v ddbtypes.AttributeValue) string {
	if s, ok := v.(*ddbtypes.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
