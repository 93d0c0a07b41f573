package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/session"
)

// memStore is the part of engine.Store a runtime exercises, in memory, with the versioned commit semantics of
// engine.Commit. Other methods panic (the embedded nil interface).
type memStore struct {
	engine.Store
	mu       sync.Mutex
	sessions map[string]session.Session
	turns    map[string]session.Turn
	items    map[string][]session.Item
	events   map[string][]session.Event
	runtimes []engine.RuntimeInfo
	// commits counts Commit calls (including rejected ones).
	commits int
	// failCompletion makes every commit that completes a turn fail (a table that refuses the settle write).
	failCompletion bool
}

func newMemStore() *memStore {
	return &memStore{sessions: map[string]session.Session{}, turns: map[string]session.Turn{}, items: map[string][]session.Item{}, events: map[string][]session.Event{}}
}

func (m *memStore) GetSession(_ context.Context, id string) (session.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return s, engine.ErrNotFound
	}
	return s, nil
}

func (m *memStore) GetTurn(_ context.Context, sid, tid string) (session.Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.turns[sid+"/"+tid]
	if !ok {
		return t, engine.ErrNotFound
	}
	return t, nil
}

func (m *memStore) ItemsOfSession(_ context.Context, sid string) ([]session.Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]session.Item(nil), m.items[sid]...), nil
}

func (m *memStore) Commit(_ context.Context, c engine.Commit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.commits++
	for _, tw := range c.Turns {
		if m.failCompletion && tw.Turn.Status == session.TurnCompleted {
			return errors.New("injected: the table refused the write")
		}
	}
	if c.Session != nil && m.sessions[c.Session.ID].Version != c.SessionVersion {
		return engine.ErrConflict
	}
	for _, tw := range c.Turns {
		if m.turns[tw.Turn.SessionID+"/"+tw.Turn.ID].Version != tw.Version {
			return engine.ErrConflict
		}
	}
	if c.Session != nil {
		s := *c.Session
		s.Version = c.SessionVersion + 1
		m.sessions[s.ID] = s
	}
	for _, tw := range c.Turns {
		t := tw.Turn
		t.Version = tw.Version + 1
		m.turns[t.SessionID+"/"+t.ID] = t
	}
	for _, iw := range c.Items {
		list := m.items[iw.SessionID]
		replaced := false
		for i := range list {
			if iw.Replace && list[i].Seq == iw.Item.Seq {
				list[i], replaced = iw.Item, true
			}
		}
		if !replaced {
			list = append(list, iw.Item)
		}
		m.items[iw.SessionID] = list
	}
	if c.Session != nil {
		m.events[c.Session.ID] = append(m.events[c.Session.ID], c.Events...)
	}
	return nil
}

func (m *memStore) PutRuntime(_ context.Context, r engine.RuntimeInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runtimes = append(m.runtimes, r)
	return nil
}

// seed writes a session with one queued turn whose input is text, under the given x_baton.
func (m *memStore) seed(sid string, x *agent.Extension, text string, cancelled bool) {
	tid := "turn_" + sid
	m.sessions[sid] = session.Session{ID: sid, Status: session.StatusInProgress, ActiveTurnID: tid, ItemSeq: 1, Version: 1,
		Snapshot: agent.Snapshot{Config: agent.Config{Model: agent.ScriptedModel, XBaton: x}}}
	m.turns[sid+"/"+tid] = session.Turn{ID: tid, SessionID: sid, Status: session.TurnQueued, Harness: "baton", CancelRequested: cancelled, Version: 1}
	m.items[sid] = []session.Item{{Seq: 1, ID: "msg_1", Type: session.ItemMessage, TurnID: tid, Role: "user", Status: session.ItemCompleted,
		Content: []session.ContentPart{{Type: "input_text", Text: text}}}}
}

// answer is what the runtime sent for one task token.
type answer struct {
	Op     string
	Output string `json:",omitempty"`
	Error  string `json:",omitempty"`
	Cause  string `json:",omitempty"`
}

// activities is a fake Step Functions activity API: queued tasks are handed out in order, an empty queue holds
// the poll until its context ends, and answers are recorded per token. sendErrs are the errors the next
// SendTaskSuccess/SendTaskFailure attempts of a token return, in order, before one is accepted; attempts holds,
// per token, the token's heartbeat count at each attempt.
type activities struct {
	tasks    chan [2]string
	mu       sync.Mutex
	answers  map[string]answer
	beats    map[string]int
	gone     map[string]bool
	sendErrs map[string][]error
	attempts map[string][]int
	got      chan string
}

func newActivities() *activities {
	return &activities{tasks: make(chan [2]string, 100), answers: map[string]answer{}, beats: map[string]int{}, gone: map[string]bool{},
		sendErrs: map[string][]error{}, attempts: map[string][]int{}, got: make(chan string, 100)}
}

// attempt records a send attempt of token and returns the error it fails with (nil = accepted).
func (a *activities) attempt(token string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.attempts[token] = append(a.attempts[token], a.beats[token])
	if errs := a.sendErrs[token]; len(errs) > 0 {
		a.sendErrs[token] = errs[1:]
		return errs[0]
	}
	return nil
}

func (a *activities) GetActivityTask(ctx context.Context, in *sfn.GetActivityTaskInput, _ ...func(*sfn.Options)) (*sfn.GetActivityTaskOutput, error) {
	if aws.ToString(in.WorkerName) != "rt_test" || aws.ToString(in.ActivityArn) != "arn:activity" {
		return nil, fmt.Errorf("unexpected poll %q %q", aws.ToString(in.WorkerName), aws.ToString(in.ActivityArn))
	}
	select {
	case t := <-a.tasks:
		return &sfn.GetActivityTaskOutput{TaskToken: aws.String(t[0]), Input: aws.String(t[1])}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *activities) record(token string, ans answer) {
	a.mu.Lock()
	a.answers[token] = ans
	a.mu.Unlock()
	a.got <- token
}

func (a *activities) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	if err := a.attempt(aws.ToString(in.TaskToken)); err != nil {
		return nil, err
	}
	a.record(aws.ToString(in.TaskToken), answer{Op: "success", Output: aws.ToString(in.Output)})
	return &sfn.SendTaskSuccessOutput{}, nil
}

func (a *activities) SendTaskFailure(_ context.Context, in *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	if err := a.attempt(aws.ToString(in.TaskToken)); err != nil {
		return nil, err
	}
	a.record(aws.ToString(in.TaskToken), answer{Op: "failure", Error: aws.ToString(in.Error), Cause: aws.ToString(in.Cause)})
	return &sfn.SendTaskFailureOutput{}, nil
}

func (a *activities) SendTaskHeartbeat(_ context.Context, in *sfn.SendTaskHeartbeatInput, _ ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	token := aws.ToString(in.TaskToken)
	a.beats[token]++
	if a.gone[token] {
		if a.beats[token] == 1 {
			a.got <- token
		}
		return nil, &types.TaskTimedOut{Message: aws.String("timed out")}
	}
	return &sfn.SendTaskHeartbeatOutput{}, nil
}

// blockingModel never answers until its context ends.
type blockingModel struct{}

func (blockingModel) Stream(ctx context.Context, _ harness.Request) (harness.Stream, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// answerOf runs rt with the one task token/input queued, until the runtime answered it, and returns the answer.
func answerOf(t *testing.T, rt *runtime.Runtime, act *activities, token, input string) answer {
	t.Helper()
	act.tasks <- [2]string{token, input}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rt.Run(ctx) }()
	select {
	case <-act.got:
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for the answer")
	}
	act.mu.Lock()
	defer act.mu.Unlock()
	return act.answers[token]
}

// TestACompletionTheRuntimeCannotCommitIsLeftToTheSettleTask: the harness completes but the commit of the turn's
// completion (engine.Run.Complete) fails; the run writes its final message without it and the answer says
// settled:false, so the state machine's AfterRun sends the run to the Settle task instead of ending the execution
// with the turn unsettled (docs/internals.md "The turn state machine").
func TestACompletionTheRuntimeCannotCommitIsLeftToTheSettleTask(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	store.failCompletion = true
	store.seed("s_text", nil, "Hello", false)
	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	act := newActivities()
	providers := harness.Providers{}
	scripted.Register(providers)
	rt, err := runtime.New(engine.New(engine.Options{Store: store, Clock: clock}), act, runtime.Config{
		ID: "rt_test", ActivityARN: "arn:activity", Concurrency: 1, TaskHeartbeat: 10 * time.Millisecond,
		RegisterEvery: time.Hour, Providers: providers, Clock: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := answerOf(t, rt, act, "t_text", `{"session_id":"s_text","turn_id":"turn_s_text","harness":"baton"}`)
	if diff := cmp.Diff(answer{Op: "success", Output: `{"status":"completed","settled":false}`}, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if st := store.turns["s_text/turn_s_text"].Status; st.Terminal() {
		t.Errorf("turn status = %s, want it left non-terminal for the Settle task", st)
	}
	answered := false
	for _, it := range store.items["s_text"] {
		answered = answered || it.Role == "assistant" && it.Status == session.ItemCompleted
	}
	if !answered {
		t.Errorf("items %+v: the final message was not written without the completion", store.items["s_text"])
	}
}

func TestRuntimeServesActivityTasks(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	script := func(s string) *agent.Extension { return &agent.Extension{Script: json.RawMessage(s)} }
	store.seed("s_text", nil, "Hello", false)
	store.seed("s_call", script(`{"rules":[{"when":{"user_contains":"weather"},"calls":[{"name":"get_weather","arguments":{"city":"Paris"}},{"name":"get_time"}]}]}`), "weather?", false)
	// The functions the script calls are declared: a call of an undeclared tool gets an error result instead of
	// parking the turn (docs/tools.md).
	callSession := store.sessions["s_call"]
	callSession.Snapshot.Config.Tools = []json.RawMessage{
		json.RawMessage(`{"type":"function","name":"get_weather","parameters":{"type":"object"}}`),
		json.RawMessage(`{"type":"function","name":"get_time","parameters":{"type":"object"}}`),
	}
	store.sessions["s_call"] = callSession
	store.seed("s_cancel", nil, "Hello", true)
	store.seed("s_modelerr", script(`{"rules":[{"error":"simulated outage"}]}`), "Hello", false)
	store.seed("s_badscript", script(`{"rules":[{"when":{}}]}`), "Hello", false)
	store.seed("s_openai", &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_chat", APIKey: "sk-secret"}}, "Hello", false)
	store.seed("s_block", &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "blocking"}}, "Hello", false)
	store.seed("s_gone", &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "blocking"}}, "Hello", false)

	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	eng := engine.New(engine.Options{Store: store, Clock: clock})
	act := newActivities()
	providers := harness.Providers{"blocking": func(agent.Config) (harness.Model, error) { return blockingModel{}, nil }}
	scripted.Register(providers)
	rt, err := runtime.New(eng, act, runtime.Config{
		ID: "rt_test", ActivityARN: "arn:activity", Version: "v1", Concurrency: 3,
		TaskHeartbeat: 10 * time.Millisecond, RegisterEvery: time.Hour, RegistrationTTL: time.Minute,
		ShutdownGrace: 200 * time.Millisecond, Providers: providers, Clock: clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	input := func(sid, kind string) string {
		return fmt.Sprintf(`{"session_id":%q,"turn_id":%q,"harness":%q}`, sid, "turn_"+sid, kind)
	}
	for token, in := range map[string]string{
		"t_text":      input("s_text", "baton"),
		"t_call":      input("s_call", "baton"),
		"t_codex":     input("s_text", "codex"),
		"t_cancel":    input("s_cancel", "baton"),
		"t_modelerr":  input("s_modelerr", "baton"),
		"t_badscript": input("s_badscript", "baton"),
		"t_openai":    input("s_openai", "baton"),
		"t_garbage":   `{"nope":1}`,
	} {
		act.tasks <- [2]string{token, in}
	}
	act.gone["t_gone"] = true
	act.tasks <- [2]string{"t_gone", input("s_gone", "baton")}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- rt.Run(ctx) }()
	for range 9 {
		select {
		case <-act.got:
		case <-time.After(10 * time.Second):
			t.Fatal("timed out waiting for answers")
		}
	}
	// The blocking task is in flight when shutdown begins: it is cancelled after the grace and failed.
	act.tasks <- [2]string{"t_block", input("s_block", "baton")}
	for {
		act.mu.Lock()
		n := act.beats["t_block"]
		act.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatalf("Run = %v", err)
	}

	want := map[string]answer{
		"t_text":      {Op: "success", Output: `{"status":"completed","settled":true}`},
		"t_call":      {Op: "success", Output: `{"status":"requires_action","round":1,"settled":false}`},
		"t_codex":     {Op: "failure", Error: "Baton.RuntimeIncapable", Cause: `runtime rt_test hosts harness "baton", not "codex"`},
		"t_cancel":    {Op: "failure", Error: "Baton.TurnNotRunnable", Cause: "the turn was cancelled or has ended"},
		"t_modelerr":  {Op: "failure", Error: "Baton.ModelError", Cause: "scripted model: simulated outage"},
		"t_badscript": {Op: "failure", Error: "Baton.HarnessError", Cause: `model provider "scripted": invalid x_baton.script: rules[0].calls: a rule needs calls, reply or error`},
		"t_openai":    {Op: "failure", Error: "Baton.RuntimeIncapable", Cause: `model provider protocol "openai_chat" is not available in this runtime`},
		"t_garbage":   {Op: "failure", Error: "Baton.HarnessError", Cause: "the activity task input is not {session_id, turn_id, harness}"},
		"t_block":     {Op: "failure", Error: "Baton.HarnessError", Cause: "the runtime stopped before the step finished"},
	}
	act.mu.Lock()
	got := act.answers
	act.mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}

	// Output reached the journal: the text turn has a completed final answer, the call turn two pending calls.
	var final []string
	for _, it := range store.items["s_text"] {
		if it.Role == "assistant" {
			final = append(final, *it.Phase+":"+it.Status+":"+it.Text())
		}
	}
	if diff := cmp.Diff([]string{"final_answer:completed:You said: Hello"}, final); diff != "" {
		t.Errorf("s_text assistant items (-want +got):\n%s", diff)
	}
	// The runtime settled the text turn itself before answering settled:true.
	if textTurn := store.turns["s_text/turn_s_text"]; textTurn.Status != session.TurnCompleted {
		t.Errorf("s_text turn = status %s, want completed (settled by the runtime)", textTurn.Status)
	}
	callTurn := store.turns["s_call/turn_s_call"]
	if callTurn.Status != session.TurnWaiting || len(callTurn.PendingCalls) != 2 || callTurn.Usage == nil {
		t.Errorf("s_call turn = status %s, pending %v, usage %v; want waiting with 2 calls and usage", callTurn.Status, callTurn.PendingCalls, callTurn.Usage)
	}

	// Registered at start with a TTL, deregistered at shutdown.
	regs := store.runtimes
	if len(regs) < 2 {
		t.Fatalf("registrations = %v, want at least 2", regs)
	}
	now := clock().Unix()
	wantFirst := engine.RuntimeInfo{ID: "rt_test", Kind: "baton", Capabilities: runtime.BatonCapabilities, Version: "v1", StartedAt: now, HeartbeatAt: now, ExpiresAt: now + 60}
	if diff := cmp.Diff(wantFirst, regs[0]); diff != "" {
		t.Errorf("first registration (-want +got):\n%s", diff)
	}
	wantLast := wantFirst
	wantLast.ExpiresAt = now
	if diff := cmp.Diff(wantLast, regs[len(regs)-1]); diff != "" {
		t.Errorf("deregistration (-want +got):\n%s", diff)
	}
}

func TestNewRejectsOtherKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     runtime.Config
		wantErr string
	}{
		{name: "baton by default", cfg: runtime.Config{ID: "rt", ActivityARN: "arn"}},
		{name: "codex is not hosted here", cfg: runtime.Config{ID: "rt", ActivityARN: "arn", Kind: "codex"}, wantErr: `runtime: this runtime hosts harness "baton", not "codex"`},
		{name: "id is required", cfg: runtime.Config{ActivityARN: "arn"}, wantErr: "runtime: ID and ActivityARN are required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := runtime.New(nil, nil, tc.cfg)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("New error = %q, want %q", got, tc.wantErr)
			}
		})
	}
}
