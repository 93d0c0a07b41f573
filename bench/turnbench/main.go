// Command turnbench (`make bench`) measures turns with inline round trips (user message → function call →
// required action → tool result → final answer, scripted model) on fresh local stacks, and prints (docs/bench.md):
//
//   - AWS requests per turn by process and operation: the launcher process (the API, plus Park, Settle and the
//     Step Functions endpoint's Lambda calls; read from its GET /_baton/metrics) and the harness runtime (counted
//     by a reverse proxy this program puts between the runtime and DynamoDB Local / the Step Functions endpoint),
//     with the DynamoDB capacity units both consumed (ReturnConsumedCapacity, added by counting proxies: the
//     launcher runs with -dynamodb-url pointing at one);
//   - Step Functions state transitions per turn (GET /_baton/stats on the Step Functions endpoint);
//   - the same for one turn each streaming a 4 KiB and a 64 KiB answer;
//   - the USD cost of one turn and of 1,000 turns at public us-east-1 prices (package bench/cost): transitions,
//     DynamoDB units, Lambda invocations and GB-seconds (Park and Settle timed by the local Lambda host's
//     GET /_baton/stats; the API and stream functions timed at the client, one invocation per request as API
//     Gateway would make them), API Gateway requests; memory sizes from template.yaml;
//   - the latency from the tool-result POST to the turn's agent.session.turn.completed event on the SSE stream
//     (p50/p95), beside one DynamoDB Local UpdateItem round trip (p50/p95) measured in the same run, and a
//     histogram of it as a PNG; then where that latency went, segment by segment (the client's readings and the
//     turn's Step Functions history, breakdown.go), and DynamoDB Local's round trip for each kind of request a turn
//     makes;
//   - a load phase: many sessions open at once, each one turn of several inline round trips, driven by a bounded
//     pool of client workers; throughput in handoffs per second, then a check against the table (each result
//     stored once, one function_call_output item per call) and every execution's Step Functions history (exactly
//     one task-token resume per round trip) that no result was lost or duplicated.
//
// Counts come from a first stack whose DynamoDB and (for the runtime) Step Functions requests pass through
// counting proxies; latency and load from a second stack without proxies (a proxy adds a hop to each request).
// A turn's counts run from its stream being open (the session already created) until its execution succeeded;
// the API's counts include that stream's polling of the table. With -out the printed report is also written to
// <out>/results.md and the histogram to <out>/latency.png. Needs bin/baton-local and bin/baton-runtime
// (`make build-native`).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/bench/cost"
	"github.com/baton-run/baton/local/ddblocal"
	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/shared/metrics"
)

// config holds the command-line sizes.
type config struct {
	turns, countTurns, warmup, updates    int
	loadSessions, loadRounds, loadClients int
	// out is the folder, relative to the repository root, for results.md and latency.png; "" writes nothing.
	out string
}

func main() {
	var cfg config
	flag.IntVar(&cfg.turns, "turns", 50, "measured turns for the latency")
	flag.IntVar(&cfg.countTurns, "count-turns", 10, "measured turns for the request counts and the cost")
	flag.IntVar(&cfg.warmup, "warmup", 3, "unmeasured turns before each phase")
	flag.IntVar(&cfg.updates, "updates", 200, "DynamoDB Local UpdateItem round trips")
	flag.IntVar(&cfg.loadSessions, "load-sessions", 200, "sessions of the load phase, all open at once (0 skips the phase)")
	flag.IntVar(&cfg.loadRounds, "load-rounds", 3, "inline round trips of each load-phase session's turn")
	flag.IntVar(&cfg.loadClients, "load-clients", 16, "client requests in flight at once during the load phase")
	flag.StringVar(&cfg.out, "out", "docs/bench", "folder (absolute, or relative to the repository root) for results.md and latency.png; empty writes nothing")
	quick := flag.Bool("quick", false, "a quick run: 10 timed turns, 3 counted, 1 warm-up, 50 UpdateItems, 20 load sessions, and no files written unless -out is given")
	flag.Parse()
	if *quick {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, v := range map[string]*int{"turns": &cfg.turns, "count-turns": &cfg.countTurns, "warmup": &cfg.warmup, "updates": &cfg.updates, "load-sessions": &cfg.loadSessions} {
			if !set[name] {
				*v = map[string]int{"turns": 10, "count-turns": 3, "warmup": 1, "updates": 50, "load-sessions": 20}[name]
			}
		}
		if !set["out"] {
			cfg.out = ""
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 45*time.Minute)
	defer cancel()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "turnbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config) error {
	started := time.Now()
	root, err := stackproc.FindRoot()
	if err != nil {
		return err
	}
	tmpl, err := template.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		return err
	}
	memoryMB := map[string]int{}
	for _, f := range tmpl.Functions() {
		memoryMB[f.LogicalID] = f.MemoryMB
	}
	meter := newClientMeter()

	// Stack 1: counts. DynamoDB Local of our own, the launcher's and the runtime's requests through counting
	// proxies (one per process, so each process's consumed units are told apart).
	fmt.Println("Starting DynamoDB Local and a stack whose AWS requests pass through counting proxies…")
	ddb, err := ddblocal.Start(ctx, ddblocal.Config{ModulesDir: stackproc.ModulesDir(root)})
	if err != nil {
		return fmt.Errorf("start DynamoDB Local: %w", err)
	}
	defer ddb.Stop()
	launcherProxy, err := newCountingProxy(map[string]string{"dynamodb": ddb.Endpoint()})
	if err != nil {
		return err
	}
	defer launcherProxy.Close()
	p, err := stackproc.Start(ctx, stackproc.Options{RootDir: root, Runtimes: -1, ExtraArgs: []string{"-dynamodb-url", launcherProxy.URL("dynamodb")}})
	if err != nil {
		return err
	}
	defer p.Stop()
	runtimeProxy, err := newCountingProxy(map[string]string{"dynamodb": ddb.Endpoint(), "sfn": p.SFNURL})
	if err != nil {
		return err
	}
	defer runtimeProxy.Close()
	b := newBench(p.Stack, meter)
	b.launcherProxy, b.runtimeProxy = launcherProxy, runtimeProxy
	if b.agentID, err = b.newAgent(ctx); err != nil {
		return err
	}
	rt, err := startRuntime(root, p.WorkDir, p.Stack, runtimeProxy.URL("dynamodb"), runtimeProxy.URL("sfn"))
	if err != nil {
		return err
	}
	defer rt.stop()
	if err := waitRuntime(ctx, p.Stack, rt.id); err != nil {
		return err
	}
	fmt.Printf("Phase 1: %d warm-up + %d counted turns…\n", cfg.warmup, cfg.countTurns)
	for i := 0; i < cfg.warmup; i++ {
		if _, err := b.turn(ctx, nil); err != nil {
			return err
		}
	}
	var counted []turnCounts
	for i := 0; i < cfg.countTurns; i++ {
		var c turnCounts
		if _, err := b.turn(ctx, &c); err != nil {
			return err
		}
		counted = append(counted, c)
	}
	streaming, err := b.streamingPhase(ctx, runtimeProxy)
	if err != nil {
		return err
	}
	rt.stop()
	_ = p.Stop()
	_ = ddb.Stop()

	// Stack 2: latency and load, no proxies.
	fmt.Println("Starting a fresh stack (DynamoDB Local, one runtime) without proxies…")
	p2, err := stackproc.Start(ctx, stackproc.Options{RootDir: root})
	if err != nil {
		return err
	}
	defer p2.Stop()
	b2 := newBench(p2.Stack, meter)
	if b2.agentID, err = b2.newAgent(ctx); err != nil {
		return err
	}
	fmt.Printf("Phase 2: %d warm-up + %d timed turns…\n", cfg.warmup, cfg.turns)
	for i := 0; i < cfg.warmup; i++ {
		if _, err := b2.turn(ctx, nil); err != nil {
			return err
		}
	}
	var latencies []time.Duration
	var marks []turnMarks
	for i := 0; i < cfg.turns; i++ {
		d, err := b2.turn(ctx, nil)
		if err != nil {
			return err
		}
		latencies = append(latencies, d)
		marks = append(marks, b2.last)
	}
	update, err := updateItemRoundTrips(ctx, p2.Stack, cfg.updates)
	if err != nil {
		return err
	}
	resume, err := b2.resumeBreakdown(ctx, marks)
	if err != nil {
		return err
	}
	if resume.ops, err = dynamoOpRoundTrips(ctx, p2.Stack.DynamoDBURL, p2.Stack.Table, cfg.updates); err != nil {
		return err
	}
	var load *loadResult
	if cfg.loadSessions > 0 {
		fmt.Printf("Phase 3: load, %d sessions open at once × %d inline round trips, %d client requests in flight…\n",
			cfg.loadSessions, cfg.loadRounds, cfg.loadClients)
		if load, err = b2.loadPhase(ctx, cfg.loadSessions, cfg.loadRounds, cfg.loadClients); err != nil {
			return err
		}
	}

	var buf bytes.Buffer
	w := io.MultiWriter(os.Stdout, &buf)
	report(w, counted, latencies, update)
	reportBreakdown(w, resume, update)
	reportStreaming(w, streaming)
	estimate := cost.Price(usageOf(counted, memoryMB))
	reportCost(w, counted, memoryMB, estimate)
	if load != nil {
		load.write(w)
	}
	fmt.Fprintf(w, "\nWall time of the whole bench: %s on %d CPUs (%s/%s).\n", time.Since(started).Round(time.Second), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if cfg.out != "" {
		dir := cfg.out
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		if err := writeOutputs(dir, buf.String(), estimate, latencies, update); err != nil {
			return err
		}
		fmt.Printf("\nWrote %s and %s.\n", filepath.Join(cfg.out, "results.md"), filepath.Join(cfg.out, "latency.png"))
	}
	if load != nil && (load.lost > 0 || load.duplicated > 0) {
		return fmt.Errorf("load phase: %d results lost, %d duplicated", load.lost, load.duplicated)
	}
	return nil
}

// streamed is what one turn that streams an answer of a given size cost the runtime.
type streamed struct {
	bytes                           int
	requests, writeMilli, readMilli int64
	deltaEvents                     int
}

// streamingPhase runs one turn each that streams a 4 KiB and a 64 KiB answer in 8-rune chunks (scripted model, no
// tools) with the runtime behind the counting proxy, and returns what each cost the runtime: DynamoDB requests and
// consumed units (engine.DeltaFlushBytes coalesces the deltas, so the writes grow with the bytes).
func (b *bench) streamingPhase(ctx context.Context, proxy *countingProxy) ([]streamed, error) {
	sizes := []int{4 << 10, 64 << 10}
	var rules []any
	for _, n := range sizes {
		rules = append(rules, map[string]any{"when": map[string]any{"user_contains": fmt.Sprintf("answer %d", n)},
			"reply": strings.Repeat("0123456789abcdef", n/16)})
	}
	a, err := b.client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted"},
		option.WithJSONSet("x_baton", map[string]any{"script": map[string]any{"chunk_size": 8, "rules": rules}}))
	if err != nil {
		return nil, explain("create streaming agent", err)
	}
	fmt.Printf("Phase 1b: one turn each streaming a 4 KiB and a 64 KiB answer (runtime through the counting proxy)…\n")
	var out []streamed
	for _, n := range sizes {
		before := proxy.Snapshot()
		deltas, err := b.answer(ctx, a.ID, fmt.Sprintf("answer %d", n))
		if err != nil {
			return nil, err
		}
		time.Sleep(200 * time.Millisecond) // the runtime's task answer and deregistration of the poll
		d := metrics.Diff(before, proxy.Snapshot())
		r := streamed{bytes: n, deltaEvents: deltas, writeMilli: d["DynamoDB.write.milliunits"], readMilli: d["DynamoDB.read.milliunits"]}
		for k, v := range d {
			if strings.HasPrefix(k, "DynamoDB.") && !strings.HasSuffix(k, ".milliunits") {
				r.requests += v
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// answer runs one turn of text on a new session and returns how many output_text.delta events the stream carried.
func (b *bench) answer(ctx context.Context, agentID, text string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	sessions := b.client.Beta.Agents.Sessions
	s, err := sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(agentID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}}})
	if err != nil {
		return 0, explain("create session", err)
	}
	stream := sessions.Events.StreamStreaming(ctx, s.ID)
	defer stream.Close()
	msg := openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText(text)}}})
	if err := sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{msg}}); err != nil {
		return 0, explain("post message", err)
	}
	deltas := 0
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "agent.session.turn.output_text.delta":
			deltas++
		case "agent.session.turn.failed":
			return 0, fmt.Errorf("turn failed: %s", ev.RawJSON())
		case "agent.session.idle":
			return deltas, nil
		}
	}
	return 0, fmt.Errorf("stream ended before the turn completed: %v", stream.Err())
}

// reportStreaming prints what the streaming turns cost the runtime, and the ratio between the two sizes.
func reportStreaming(out io.Writer, rows []streamed) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\nStreaming an answer in 8-rune chunks, runtime side (DynamoDB Local reports the consumed units)\n")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "answer\tdelta events\tDynamoDB requests\twrite units\tread units\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%d KiB\t%d\t%d\t%.1f\t%.1f\t\n", r.bytes>>10, r.deltaEvents, r.requests, float64(r.writeMilli)/1000, float64(r.readMilli)/1000)
	}
	w.Flush()
	if len(rows) == 2 && rows[0].writeMilli > 0 {
		fmt.Fprintf(out, "%d KiB / %d KiB: %.1f× the write units for %.0f× the bytes (writes grow with bytes, not tokens squared)\n",
			rows[1].bytes>>10, rows[0].bytes>>10, float64(rows[1].writeMilli)/float64(rows[0].writeMilli), float64(rows[1].bytes)/float64(rows[0].bytes))
	}
}

type bench struct {
	stack   stackproc.Stack
	client  openai.Client
	meter   *clientMeter
	agentID string
	// launcherProxy and runtimeProxy, when set, count the DynamoDB requests and consumed units of the launcher
	// process and of the runtime.
	launcherProxy, runtimeProxy *countingProxy
	// last are the client's readings of the latest turn (resumeBreakdown).
	last turnMarks
}

// newBench returns a bench whose Agents API client sends its requests through meter, without retries.
func newBench(st stackproc.Stack, meter *clientMeter) *bench {
	return &bench{stack: st, meter: meter, client: openai.NewClient(option.WithBaseURL(st.BaseURL), option.WithAPIKey(st.APIKey),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: meter}))}
}

// turnCounts are the counters around one turn.
type turnCounts struct {
	// apiBefore/apiAfter are the launcher process's request counters (GET /_baton/metrics) plus the consumed
	// units its counting proxy saw ("DynamoDB.write.milliunits", "DynamoDB.read.milliunits").
	apiBefore, apiAfter         map[string]int64
	runtimeBefore, runtimeAfter map[string]int64
	// lambdaBefore/lambdaAfter are the local Lambda host's counters (GET /_baton/stats on the Lambda endpoint).
	lambdaBefore, lambdaAfter map[string]lambdaStats
	// clientBefore/clientAfter are the client's requests by the function that would serve them on AWS.
	clientBefore, clientAfter map[string]invocationStats
	transitions               int64
}

// lambdaStats is one function's entry of the Lambda host's GET /_baton/stats (local/lambdahost.FunctionStats).
type lambdaStats struct {
	Invocations  int64 `json:"invocations"`
	BilledMillis int64 `json:"billed_ms"`
}

// snapshot records every counter of the turn's window into the given maps.
func (b *bench) snapshot(ctx context.Context, api, runtime *map[string]int64, lambda *map[string]lambdaStats, client *map[string]invocationStats) error {
	m, err := getJSON[map[string]int64](ctx, b.stack.APIURL+"/_baton/metrics")
	if err != nil {
		return err
	}
	if b.launcherProxy != nil {
		for k, v := range b.launcherProxy.Snapshot() {
			if strings.HasSuffix(k, ".milliunits") {
				m[k] = v
			}
		}
	}
	*api = m
	if b.runtimeProxy != nil {
		*runtime = b.runtimeProxy.Snapshot()
	}
	if *lambda, err = getJSON[map[string]lambdaStats](ctx, b.stack.LambdaURL+"/_baton/stats"); err != nil {
		return err
	}
	*client = b.meter.Snapshot()
	return nil
}

func (b *bench) newAgent(ctx context.Context) (string, error) {
	a, err := b.client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}})},
	}, option.WithJSONSet("x_baton", map[string]any{"script": map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "weather"},
			"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": `Paris: {{tool_output "get_weather"}}`},
	}}}))
	if err != nil {
		return "", explain("create agent", err)
	}
	return a.ID, nil
}

// turn runs one inline round trip on a new session and returns the time from just before the tool-result POST
// to the arrival of turn.completed. With c set it records the counters around the turn: from the moment its stream
// is open (the session is created) until the stream is closed and the execution has succeeded.
func (b *bench) turn(ctx context.Context, c *turnCounts) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	sessions := b.client.Beta.Agents.Sessions
	s, err := sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(b.agentID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}}})
	if err != nil {
		return 0, explain("create session", err)
	}
	stream := sessions.Events.StreamStreaming(ctx, s.ID)
	defer stream.Close()
	if err := stream.Err(); err != nil {
		return 0, explain("open stream", err)
	}
	if c != nil {
		if err := b.snapshot(ctx, &c.apiBefore, &c.runtimeBefore, &c.lambdaBefore, &c.clientBefore); err != nil {
			return 0, err
		}
	}
	msg := openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText("weather please")}}})
	if err := sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{msg}}); err != nil {
		return 0, explain("post message", err)
	}
	var sent time.Time
	var latency time.Duration
	turnID := ""
	for stream.Next() {
		ev := stream.Current()
		// Answer on requires_action, as a caller reading the session's required actions would.
		if ev.Type == "agent.session.requires_action" && sent.IsZero() {
			a := ev.Session.RequiredActions[0]
			turnID = a.TurnID
			result := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(a.CallID, true, a.TurnID)
			result.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{OfString: openai.String("sunny")}
			sent = time.Now()
			if err := sessions.Events.New(ctx, s.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{result}}); err != nil {
				return 0, explain("post tool result", err)
			}
			b.last = turnMarks{turnID: turnID, sent: sent, posted: time.Now()}
			continue
		}
		if !sent.IsZero() && b.last.first.IsZero() {
			b.last.first = time.Now()
		}
		if ev.Type == "agent.session.turn.completed" && ev.TurnID == turnID && !sent.IsZero() {
			latency = time.Since(sent)
			b.last.done = sent.Add(latency)
		}
		if ev.Type == "agent.session.turn.failed" {
			return 0, fmt.Errorf("turn %s failed: %s", ev.TurnID, ev.RawJSON())
		}
		if ev.Type == "agent.session.idle" && latency > 0 {
			break
		}
	}
	if latency == 0 {
		return 0, fmt.Errorf("stream ended before the turn completed: %v", stream.Err())
	}
	_ = stream.Close() // ends the stream function's invocation; the client meter records its duration
	if c != nil {
		n, err := b.waitSucceeded(ctx, turnID)
		if err != nil {
			return 0, err
		}
		c.transitions = n
		if err := b.snapshot(ctx, &c.apiAfter, &c.runtimeAfter, &c.lambdaAfter, &c.clientAfter); err != nil {
			return 0, err
		}
	}
	return latency, nil
}

// sfnStats is the part of GET /_baton/stats (local/sfn.Stats) the bench reads.
type sfnStats struct {
	ByStatus   map[string]int `json:"executions_by_status"`
	Executions map[string]struct {
		Status           string `json:"status"`
		StateTransitions int64  `json:"state_transitions"`
	} `json:"executions"`
}

// waitSucceeded waits until the turn's execution has succeeded and returns its state transitions.
func (b *bench) waitSucceeded(ctx context.Context, turnID string) (int64, error) {
	for {
		st, err := getJSON[sfnStats](ctx, b.stack.SFNURL+"/_baton/stats")
		if err != nil {
			return 0, err
		}
		for arn, x := range st.Executions {
			if strings.HasSuffix(arn, ":"+turnID) && x.Status == "SUCCEEDED" {
				return x.StateTransitions, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("execution of %s did not succeed: %w", turnID, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func getJSON[T any](ctx context.Context, url string) (T, error) {
	var v T
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return v, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return v, json.NewDecoder(resp.Body).Decode(&v)
}

// updateItemRoundTrips times n UpdateItem calls (ADD a counter on one item) against DynamoDB Local.
func updateItemRoundTrips(ctx context.Context, st stackproc.Stack, n int) ([]time.Duration, error) {
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(st.DynamoDBURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(st.Table),
		Key: map[string]ddbtypes.AttributeValue{
			"pk": &ddbtypes.AttributeValueMemberS{Value: "BENCH#updateitem"},
			"sk": &ddbtypes.AttributeValueMemberS{Value: "META"},
		},
		UpdateExpression:          aws.String("ADD n :one"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":one": &ddbtypes.AttributeValueMemberN{Value: "1"}},
	}
	for i := 0; i < 20; i++ { // warm-up
		if _, err := client.UpdateItem(ctx, in); err != nil {
			return nil, fmt.Errorf("UpdateItem: %w", err)
		}
	}
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := client.UpdateItem(ctx, in); err != nil {
			return nil, fmt.Errorf("UpdateItem: %w", err)
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}

// runtimeProc is a baton-runtime child started by the bench.
type runtimeProc struct {
	id     string
	cmd    *exec.Cmd
	exited chan struct{}
}

// waitRuntime waits until the admin API lists the runtime as live (GET /admin/v1/runtimes).
func waitRuntime(ctx context.Context, st stackproc.Stack, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.APIURL+"/admin/v1/runtimes", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+st.AdminKey)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var list struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			for _, r := range list.Data {
				if r.ID == id {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("runtime %s did not register: %w", id, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startRuntime starts bin/baton-runtime for the stack's baton Activity, with the given DynamoDB and Step
// Functions endpoints; its log goes to logDir.
func startRuntime(root, logDir string, st stackproc.Stack, dynamoURL, sfnURL string) (*runtimeProc, error) {
	id := fmt.Sprintf("rt_bench_%d", time.Now().UnixNano())
	cmd := exec.Command(filepath.Join(root, "bin", "baton-runtime"))
	cmd.Env = append(os.Environ(),
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB="+dynamoURL, "AWS_ENDPOINT_URL_SFN="+sfnURL, "AWS_ENDPOINT_URL_LAMBDA="+st.LambdaURL,
		"BATON_TABLE="+st.Table, "BATON_LOCAL_WAKE_URL="+st.WakeURL(),
		"BATON_ACTIVITY_ARN=arn:aws:states:us-east-1:000000000000:activity:BatonActivity",
		"BATON_HARNESS_KIND=baton", "BATON_RUNTIME_ID="+id,
		"BATON_HEARTBEAT_SECONDS=10")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if logf, err := os.CreateTemp(logDir, "runtime-*.log"); err == nil {
		cmd.Stdout, cmd.Stderr = logf, logf // the runtime logs every task
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start baton-runtime: %w", err)
	}
	r := &runtimeProc{id: id, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.exited) }()
	return r, nil
}

func (r *runtimeProc) stop() {
	select {
	case <-r.exited:
		return
	default:
	}
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.exited
	}
}

// report prints the tables.
func report(out io.Writer, counted []turnCounts, latencies, updates []time.Duration) {
	fmt.Fprintf(out, "\nBaton turn benchmark — one inline round trip per turn (scripted model, local stack)\n\n")
	fmt.Fprintf(out, "AWS requests per turn (mean over %d turns; message POST through the execution's success)\n", len(counted))
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "process\toperation\tper turn\tmin\tmax\t")
	totals := map[string]float64{}
	for _, proc := range []string{"launcher", "runtime"} {
		per := map[string][]int64{}
		for _, c := range counted {
			before, after := c.apiBefore, c.apiAfter
			if proc == "runtime" {
				before, after = c.runtimeBefore, c.runtimeAfter
			}
			for k, v := range after {
				if d := v - before[k]; d != 0 {
					per[k] = append(per[k], d)
				}
			}
		}
		names := make([]string, 0, len(per))
		for k := range per {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			vals := per[k]
			for len(vals) < len(counted) {
				vals = append(vals, 0)
			}
			mean := meanOf(vals)
			if !strings.HasSuffix(k, ".milliunits") { // consumed capacity (×1000), not requests
				totals[proc+" "+strings.SplitN(k, ".", 2)[0]] += mean
			}
			fmt.Fprintf(w, "%s\t%s\t%.1f\t%d\t%d\t\n", proc, k, mean, slices.Min(vals), slices.Max(vals))
		}
	}
	w.Flush()
	fmt.Fprintf(out, "\nDynamoDB requests per turn: launcher %.1f + runtime %.1f = %.1f\n", totals["launcher DynamoDB"], totals["runtime DynamoDB"],
		totals["launcher DynamoDB"]+totals["runtime DynamoDB"])
	fmt.Fprintf(out, "Step Functions API requests per turn: launcher %.1f + runtime %.1f (runtime GetActivityTask long polls depend on timing)\n",
		totals["launcher SFN"], totals["runtime SFN"])
	var tr []int64
	for _, c := range counted {
		tr = append(tr, c.transitions)
	}
	fmt.Fprintf(out, "Step Functions state transitions per turn: %.1f (min %d, max %d)\n", meanOf(tr), slices.Min(tr), slices.Max(tr))
	if n := len(counted); n > 0 {
		start := float64(0)
		for _, c := range counted {
			start += float64(c.apiAfter["SFN.StartExecution"] - c.apiBefore["SFN.StartExecution"])
		}
		if start/float64(n) != 1 {
			fmt.Fprintf(out, "WARNING: the launcher process counted %.1f StartExecution per turn (one execution per turn): its counters are off by that factor\n", start/float64(n))
		}
	}

	fmt.Fprintf(out, "\nLatency on this machine\n")
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "measure\tn\tp50\tp95\t")
	fmt.Fprintf(w, "tool-result POST → turn.completed event\t%d\t%s\t%s\t\n", len(latencies), pct(latencies, 50), pct(latencies, 95))
	fmt.Fprintf(w, "DynamoDB Local UpdateItem round trip\t%d\t%s\t%s\t\n", len(updates), pct(updates, 50), pct(updates, 95))
	w.Flush()
	if p50 := percentile(updates, 50); p50 > 0 {
		fmt.Fprintf(out, "\nThe resume path costs about %.0f UpdateItem round trips of wall time.\n", float64(percentile(latencies, 50))/float64(p50))
	}
}

func meanOf(v []int64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s int64
	for _, x := range v {
		s += x
	}
	return float64(s) / float64(len(v))
}

// percentile returns the p-th percentile (nearest rank).
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(i, 0)]
}

func pct(d []time.Duration, p int) string {
	return fmt.Sprintf("%.2f ms", float64(percentile(d, p).Microseconds())/1000)
}

// explain adds the Agents API error body to an SDK error.
func explain(what string, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%s: %d %s: %s", what, apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
