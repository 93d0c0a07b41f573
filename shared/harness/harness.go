package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/statemachine"
)

// Kind is the harness kind this package implements (docs/decisions.md §2).
const Kind = agent.HarnessBaton

// Journal is where a step's output goes, durably and in order. *engine.Run implements it; each method is one
// commit and fails with engine.ErrTurnNotRunnable once the turn was cancelled or ended.
type Journal interface {
	// StartMessage opens an assistant message with phase session.PhaseFinalAnswer or session.PhaseCommentary and
	// returns its item id.
	StartMessage(ctx context.Context, phase string) (string, error)
	// AppendText emits one text delta of an open message.
	AppendText(ctx context.Context, itemID, delta string) error
	// FinishMessage completes an open message with its whole text.
	FinishMessage(ctx context.Context, itemID, text string) error
	// RequestCalls parks the turn on the calls, in order, stores the queued calls that follow them in the model's
	// response (Job.Queued of the run that resumes the round), and returns the new round.
	RequestCalls(ctx context.Context, calls []engine.PendingCall, queued ...engine.PendingCall) (int, error)
	// RecordUsage adds the step's token usage to the turn. A Journal that is also a Flusher may hold it (and
	// buffered text) for its next commit; Run flushes such a journal before it returns.
	RecordUsage(ctx context.Context, u session.Usage) error
	// RecordStopReason notes why the harness ends the turn early (a session.Stop* limit reason, see Limits); Run
	// then returns completed.
	RecordStopReason(ctx context.Context, reason string) error
	// StartToolExecution appends an in_progress command_execution item (the harness is about to run a builtin tool)
	// and returns its id.
	StartToolExecution(ctx context.Context, c engine.ToolExecution) (string, error)
	// FinishToolExecution completes (or, when failed, fails) a command_execution item with what the tool observed.
	FinishToolExecution(ctx context.Context, itemID string, res engine.ToolExecutionResult) error
	// StartMCPCall appends an in_progress mcp_call item (the harness is about to call the tool) and returns its id.
	StartMCPCall(ctx context.Context, c engine.MCPCall) (string, error)
	// FinishMCPCall completes (or, when failed, fails) an mcp_call item with the observed output and error.
	FinishMCPCall(ctx context.Context, itemID string, output, errValue json.RawMessage, failed bool) error
}

var _ Journal = (*engine.Run)(nil)
var _ Flusher = (*engine.Run)(nil)

// Job is one activity task of a turn as the harness sees it.
type Job struct {
	// TurnID is the turn being run.
	TurnID string
	// Config is the configuration the turn runs with: the Session's frozen configuration, or the Turn's own
	// (session.Turn.EffectiveConfig).
	Config agent.Config
	// History is every item of the Session in seq order, including this turn's input and function results.
	History []session.Item
	// Journal receives the output.
	Journal Journal
	// MCP connects the configuration's HTTP MCP servers; nil means this runtime has no MCP client (every MCP
	// server is then unavailable, and a required one fails the run).
	MCP MCPConnector
	// Queued are the calls of the response that parked the previous round which follow its function calls
	// (engine.Run.Queued): Run runs them, in model order, before asking the model again (docs/tools.md "Order of
	// tool calls"). Nil = none.
	Queued []engine.PendingCall
	// Credentials resolves token-vault references in MCP server headers (docs/tools.md "MCP headers"); nil means
	// none can be resolved: a server whose headers hold a reference fails to connect with ErrNoCredentialResolver.
	Credentials CredentialResolver
	// Builtins are the builtin tool implementations this runtime hosts, by name (BuiltinToolNames); nil = none, so
	// no builtin tool is offered even when the configuration asks for them.
	Builtins map[string]BuiltinTool
	// Logger receives operational logs (an optional MCP server that is unavailable); nil means slog.Default().
	Logger *slog.Logger
}

// JobOf returns the Job of a begun engine run (without an MCP connector; the runtime sets Job.MCP).
func JobOf(r *engine.Run) Job {
	s, t, history := r.Snapshot()
	return Job{TurnID: t.ID, Config: t.EffectiveConfig(s), History: history, Journal: r, Queued: r.Queued}
}

// MaxSteps bounds the model steps of one activity task (steps whose calls all run in the harness — MCP tools and
// tool_search — continue the loop; a step with function calls or without calls ends it). Reaching it fails the
// task with a *ModelError.
const MaxSteps = 32

// Outcome statuses (the activity output's `status`, statemachine.StatusCompleted and StatusRequiresAction).
const (
	StatusCompleted      = statemachine.StatusCompleted
	StatusRequiresAction = statemachine.StatusRequiresAction
)

// Outcome is the activity task's output, statemachine.ActivityOutput: {"status":"completed"} or
// {"status":"requires_action","round":n}, where round is the turn's round the calls were requested in (1-based).
type Outcome = statemachine.ActivityOutput

// Run performs one activity task of a turn: the agent loop from the current history until the turn needs the
// caller (function calls) or ends.
//
// At the start it builds the toolbox (docs/tools.md): eager functions, deferred functions already called in the
// Session, tool_search (when declared; docs/tool-search.md), builtin tools the runtime implements (when the
// configuration asks for them) and the tools of the HTTP MCP servers it connects (filtered by allowed_tools, named
// MCPToolName, input schemas compiled; a required server that fails to initialize fails the run with a
// *ConfigError before anything is journaled) — all filtered by Controls.AllowedTools. With text.format
// json_schema it compiles the schema once. Calls queued by the previous round (Job.Queued) run first.
//
// Each step streams one model response into the journal. Every call gets a Core call id unique within the Session
// ("call_<turn id without its prefix>_<n>", see callIDs); the provider's own id is dropped. Text deltas become one assistant message per run of text;
// a message's phase is commentary when the response also calls tools and final_answer otherwise (streamed live when
// the provider declares the phase, held back until it is known when it does not, see Part.Phase). Usage parts are
// summed and recorded before the calls or the final message are committed. Then the calls run in model order:
//   - calls of MCP tools run in the harness, each journaled as an mcp_call item (item.added in_progress, then
//     item.done completed or failed; arguments byte for byte, checked against the tool's input schema first);
//     tool_search and builtin calls run in the harness and are not journaled;
//   - a call of a tool the request did not offer is never run and never handed to the caller: the model gets an
//     error result (a failed mcp_call item when the name belongs to a declared MCP server);
//   - at the first function call, the journal parks the turn on it and the function calls directly after it, the
//     calls after those are queued for the resume, and Run returns requires_action and the round; without
//     function calls the results join the conversation and the next step runs;
//   - a response without calls completes the turn. With a json_schema the final text is held back, validated
//     (a *StructuredOutputError when invalid, nothing journaled) and published as one final_answer message with one
//     delta, unchanged.
//
// Limits (agent.Controls, docs/agentcore.md §3.5; none on the Agents API): MaxIterations bounds the model calls of
// the task, MaxTokens their output tokens together (each request asks for what is left, Request.MaxOutputTokens)
// and TimeoutSeconds its wall time once the tools are connected (the model call running at the deadline is cut:
// its text so far is finished as the final message, its calls are not run). Hitting one — or a response the provider cut at its
// requested limit (PartStop) that has no calls — records the session.Stop* reason with Journal.RecordStopReason
// and completes the turn. Without MaxIterations, MaxSteps consecutive harness-tool steps fail the task.
//
// Errors: the model's *ModelError (also for a stream that fails midway; output already journaled stays and the
// state machine's settle marks it incomplete), *ConfigError, *StructuredOutputError, ctx's error,
// engine.ErrTurnNotRunnable (wrapped) when the turn was cancelled meanwhile, or a journal (store) error.
func Run(ctx context.Context, job Job, model Model) (Outcome, error) {
	out, err := run(ctx, job, model)
	if c, ok := job.Journal.(Completer); ok && err == nil && out.Status == StatusCompleted {
		// The turn's completion rides on the commit of what the journal still holds (the final message): when it
		// is written, the activity output says so and no Settle task runs. When it is not (the turn was cancelled
		// meanwhile, or the write failed), Flush below writes what it can and Settle decides.
		if cerr := c.Complete(ctx); cerr == nil {
			out.Settled = true
		} else if job.Logger != nil {
			job.Logger.Warn("complete turn: left to the Settle task", "error", cerr)
		}
	}
	if f, ok := job.Journal.(Flusher); ok {
		// What the journal still holds (usage it stages for its next commit, buffered text) is written before the
		// activity task ends; after an error it is written when it still can be.
		if ferr := f.Flush(ctx); ferr != nil && err == nil {
			return Outcome{}, fmt.Errorf("flush journal: %w", ferr)
		}
	}
	return out, err
}

// Completer is a Journal that can end the turn as completed in the same commit as the output it still holds
// (*engine.Run.Complete). Run calls it when the harness completed the turn and sets Outcome.Settled when it
// succeeded; an error means nothing was written.
type Completer interface {
	Complete(ctx context.Context) error
}

// Flusher is a Journal that holds output for its next commit (*engine.Run: staged usage, buffered text); Flush
// writes it.
type Flusher interface {
	Flush(ctx context.Context) error
}

func run(ctx context.Context, job Job, model Model) (Outcome, error) {
	req := NewRequest(job.TurnID, job.Config, job.History)
	var validator *outputValidator
	if req.OutputSchema != nil {
		v, err := compileOutputSchema(req.OutputSchema)
		if err != nil {
			return Outcome{}, err
		}
		validator = v
	}
	tb, err := openTools(ctx, job)
	if err != nil {
		return Outcome{}, err
	}
	defer tb.close()
	log := job.Logger
	if log == nil {
		log = slog.Default()
	}
	lim := limitsOf(job.Config)
	mctx := ctx
	if lim.timeout > 0 {
		var cancel context.CancelFunc
		mctx, cancel = context.WithTimeout(ctx, lim.timeout)
		defer cancel()
	}
	if len(job.Queued) > 0 {
		req.Tools = tb.offered()
		out, more, err := runQueued(ctx, job.Journal, log, tb, job.Queued, job.History)
		if err != nil || out != nil {
			if out == nil {
				return Outcome{}, err
			}
			return *out, err
		}
		req.Messages = append(req.Messages, more...)
	}
	var used int // output tokens of this task's model calls
	for n := 0; ; n++ {
		switch {
		case lim.iterations > 0 && n == lim.iterations:
			return stop(ctx, job.Journal, session.StopMaxIterationsExceeded)
		case lim.iterations == 0 && n == MaxSteps:
			return Outcome{}, &ModelError{Cause: fmt.Sprintf("the model called harness tools in %d consecutive steps without finishing", MaxSteps)}
		case lim.tokens > 0 && used >= lim.tokens:
			return stop(ctx, job.Journal, session.StopMaxOutputTokensExceeded)
		case mctx.Err() != nil && ctx.Err() == nil:
			return stop(ctx, job.Journal, session.StopTimeoutExceeded)
		}
		req.Tools = tb.offered()
		if lim.tokens > 0 {
			req.MaxOutputTokens = lim.tokens - used
		}
		out, more, err := runStep(ctx, mctx, job.Journal, log, model, req, tb, validator, &used)
		if err != nil || more == nil {
			return out, err
		}
		req.Messages = append(req.Messages, more...)
	}
}

// limits are the Controls limits of a configuration (agent.Controls; 0 = none): iterations bounds the model calls
// of one activity task, tokens the output tokens of its model calls together (each call is asked for at most what
// is left, Request.MaxOutputTokens), timeout its wall time.
type limits struct {
	iterations int
	tokens     int
	timeout    time.Duration
}

func limitsOf(cfg agent.Config) limits {
	c := cfg.Controls
	if c == nil {
		return limits{}
	}
	return limits{iterations: max(c.MaxIterations, 0), tokens: max(c.MaxTokens, 0), timeout: time.Duration(max(c.TimeoutSeconds, 0)) * time.Second}
}

// stop ends the activity task early on a limit: it records the reason on the turn and completes it.
func stop(ctx context.Context, j Journal, reason string) (Outcome, error) {
	if err := j.RecordStopReason(ctx, reason); err != nil {
		return Outcome{}, fmt.Errorf("record stop reason: %w", err)
	}
	return Outcome{Status: StatusCompleted}, nil
}

// runStep streams one response and acts on it. It returns the outcome when the activity task ends, or the
// messages to append (the assistant's calls and their results) when the loop continues.
//
// The model call runs under mctx (ctx bounded by the task's time limit); the journal writes under ctx. When mctx
// ends first, the step stops cleanly: the text so far is finished as a message (held structured output is
// dropped), usage is recorded, the response's calls are not run, and the turn completes with
// session.StopTimeoutExceeded. *used is increased by the response's output tokens. A response the provider ended
// at its output-token limit (PartStop with session.StopMaxTokens) and without calls completes the turn with
// session.StopMaxTokens.
func runStep(ctx, mctx context.Context, j Journal, log *slog.Logger, model Model, req Request, tb *toolbox, v *outputValidator, used *int) (Outcome, []Message, error) {
	timedOut := func() bool { return mctx.Err() != nil && ctx.Err() == nil }
	s := &step{ctx: ctx, j: j, structured: v != nil, nextCallID: callIDs(req), log: log}
	st, err := model.Stream(mctx, req)
	if err != nil {
		if timedOut() {
			out, err := stop(ctx, j, session.StopTimeoutExceeded)
			return out, nil, err
		}
		return Outcome{}, nil, err
	}
	defer st.Close()
	for {
		p, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if timedOut() {
				return s.endEarly(session.StopTimeoutExceeded)
			}
			return Outcome{}, nil, err
		}
		if err := s.take(p); err != nil {
			return Outcome{}, nil, err
		}
	}
	if timedOut() {
		// The provider may end a cut stream without an error; what arrived is kept, its calls are not run.
		return s.endEarly(session.StopTimeoutExceeded)
	}
	if s.usage != nil {
		*used += int(s.usage.OutputTokens)
	}
	out, more, err := s.end(tb, v)
	if err == nil && more == nil && out.Status == StatusCompleted && s.stop != "" && len(s.calls) == 0 {
		if _, err := stop(ctx, j, s.stop); err != nil {
			return Outcome{}, nil, err
		}
	}
	return out, more, err
}

// endEarly ends a response cut by a limit: it records the usage, finishes the text so far as a final_answer
// message (dropping text held for structured output), runs none of the calls, and completes the turn with reason.
func (s *step) endEarly(reason string) (Outcome, []Message, error) {
	if s.usage != nil {
		if err := s.j.RecordUsage(s.ctx, *s.usage); err != nil {
			return Outcome{}, nil, fmt.Errorf("record usage: %w", err)
		}
	}
	if s.structured {
		s.held = nil
	}
	if err := s.flush(session.PhaseFinalAnswer); err != nil {
		return Outcome{}, nil, err
	}
	out, err := stop(s.ctx, s.j, reason)
	return out, nil, err
}

// step is the state of one response being journaled.
type step struct {
	ctx context.Context
	j   Journal
	// structured holds every text delta back (text.format json_schema): the final answer is validated first and
	// then published as one delta.
	structured bool
	// open is the item id of the message being streamed live ("" = none); text its text so far.
	open string
	text strings.Builder
	// said is the whole text of the response (every message), for the in-memory conversation.
	said strings.Builder
	// held are text deltas whose message phase is not known yet.
	held []string
	// calls are the response's calls under their Core call ids (nextCallID); the provider's ids are dropped.
	calls      []Call
	nextCallID func() string
	usage      *session.Usage
	log        *slog.Logger
	// stop is the provider's stop reason for the response when it reported one (PartStop), else "".
	stop string
}

func (s *step) take(p Part) error {
	switch p.Kind {
	case PartText:
		if p.Text == "" {
			return nil
		}
		s.said.WriteString(p.Text)
		if s.open == "" && p.Phase != "" && len(s.held) == 0 && !s.structured {
			if err := s.start(p.Phase); err != nil {
				return err
			}
		}
		if s.open == "" {
			s.held = append(s.held, p.Text)
			return nil
		}
		return s.appendText(p.Text)
	case PartCall:
		if p.Call == nil || p.Call.Name == "" {
			return &ModelError{Cause: "the model returned a function call without a name"}
		}
		if err := s.flush(session.PhaseCommentary); err != nil {
			return err
		}
		c := *p.Call
		c.ID = s.nextCallID()
		if len(c.Arguments) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
		s.calls = append(s.calls, c)
		return nil
	case PartUsage:
		if p.Usage != nil {
			if s.usage == nil {
				s.usage = &session.Usage{}
			}
			s.usage.InputTokens += p.Usage.InputTokens
			s.usage.OutputTokens += p.Usage.OutputTokens
		}
		return nil
	case PartStop:
		s.stop = p.Stop
		return nil
	default:
		return fmt.Errorf("harness: unknown model part kind %d", p.Kind)
	}
}

// callIDs returns the maker of the Core call ids of a request's response: "call_<turn id without its prefix>_<n>",
// n counting every call of req.Messages plus the response's calls from 1 and skipping ids req.Messages already
// holds. The harness gives every call a model makes such an id and drops the provider's own (providers reuse ids
// like "call_0" across turns, which would collide with the Session's CALL#<call_id> records): the ids are unique
// within the Session (the turn id is), the same for the same history, at most 40 characters for engine.NewID turn
// ids, and match ^[a-zA-Z0-9_-]+$ (what the Anthropic and Bedrock APIs accept) whenever the turn id does. The
// conversation sent back to providers uses them on both sides (the assistant's calls and the tool results), since
// both are rebuilt from items that carry them. The scripted model mints the same ids.
func callIDs(req Request) func() string {
	n := 0
	used := map[string]bool{}
	for _, m := range req.Messages {
		n += len(m.Calls)
		for _, c := range m.Calls {
			used[c.ID] = true
		}
	}
	turn := req.TurnID
	if _, rest, ok := strings.Cut(turn, "_"); ok {
		turn = rest
	}
	return func() string {
		for {
			n++
			id := fmt.Sprintf("call_%d", n)
			if turn != "" {
				id = fmt.Sprintf("call_%s_%d", turn, n)
			}
			if !used[id] {
				used[id] = true
				return id
			}
		}
	}
}

// start opens a message with the given phase.
func (s *step) start(phase string) error {
	id, err := s.j.StartMessage(s.ctx, phase)
	if err != nil {
		return fmt.Errorf("start message: %w", err)
	}
	s.open = id
	s.text.Reset()
	return nil
}

func (s *step) appendText(delta string) error {
	if err := s.j.AppendText(s.ctx, s.open, delta); err != nil {
		return fmt.Errorf("append text: %w", err)
	}
	s.text.WriteString(delta)
	return nil
}

// flush ends the current run of text: held text becomes a message of the given phase, and the open (or just
// opened) message is finished.
func (s *step) flush(phase string) error {
	if s.open == "" && len(s.held) > 0 {
		if err := s.start(phase); err != nil {
			return err
		}
		held := s.held
		s.held = nil
		for _, d := range held {
			if err := s.appendText(d); err != nil {
				return err
			}
		}
	}
	if s.open == "" {
		return nil
	}
	if err := s.j.FinishMessage(s.ctx, s.open, s.text.String()); err != nil {
		return fmt.Errorf("finish message: %w", err)
	}
	s.open = ""
	s.text.Reset()
	return nil
}

// end finishes the response: it records usage, finishes (or validates and publishes) the text, runs the calls
// that belong to the harness, and parks on function calls. more is nil when the activity task ends.
func (s *step) end(tb *toolbox, v *outputValidator) (out Outcome, more []Message, err error) {
	if s.usage != nil {
		if err := s.j.RecordUsage(s.ctx, *s.usage); err != nil {
			return Outcome{}, nil, fmt.Errorf("record usage: %w", err)
		}
	}
	if len(s.calls) == 0 {
		if v != nil {
			return s.endStructured(v)
		}
		if err := s.flush(session.PhaseFinalAnswer); err != nil {
			return Outcome{}, nil, err
		}
		return Outcome{Status: StatusCompleted}, nil, nil
	}
	if err := s.flush(session.PhaseCommentary); err != nil {
		return Outcome{}, nil, err
	}
	results, functions, rest, err := s.runCalls(tb, s.calls)
	if err != nil {
		return Outcome{}, nil, err
	}
	if len(functions) > 0 {
		return s.park(functions, rest)
	}
	return Outcome{}, []Message{
		{Role: RoleAssistant, Text: s.said.String(), Calls: s.calls},
		{Role: RoleTool, Results: results},
	}, nil
}

// park requests the function calls and queues the calls that follow them in the response; the activity task
// ends with requires_action.
func (s *step) park(functions []engine.PendingCall, rest []Call) (Outcome, []Message, error) {
	queued := make([]engine.PendingCall, 0, len(rest))
	for _, c := range rest {
		queued = append(queued, engine.PendingCall{CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	round, err := s.j.RequestCalls(s.ctx, functions, queued...)
	if err != nil {
		return Outcome{}, nil, fmt.Errorf("request calls: %w", err)
	}
	return Outcome{Status: StatusRequiresAction, Round: round}, nil, nil
}

// runCalls executes the calls of one response in model order (docs/tools.md "Order of tool calls"):
// tool_search, MCP and builtin tools run here; a call of a tool the request did not offer is never run and never
// handed to the caller — it gets an error result (and, when its name belongs to a declared MCP server, a failed
// mcp_call item). At the first function call it stops: functions are that call and the function calls directly
// after it (handed to the caller together), rest the calls after those, unrun (queued until the results arrive).
// results are those of the calls run, in order.
func (s *step) runCalls(tb *toolbox, calls []Call) (results []Result, functions []engine.PendingCall, rest []Call, err error) {
	for i, c := range calls {
		k := tb.kind(c.Name)
		if k != callFunction && len(functions) > 0 {
			return results, functions, calls[i:], nil
		}
		switch k {
		case callFunction:
			functions = append(functions, engine.PendingCall{CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
		case callSearch:
			text, isErr := tb.searchTools(c.Arguments)
			results = append(results, Result{CallID: c.ID, Name: c.Name, Output: text, IsError: isErr})
		case callMCP:
			r, err := s.callMCP(tb.mcp[c.Name], c)
			if err != nil {
				return nil, nil, nil, err
			}
			results = append(results, r)
		case callBuiltin:
			r, err := s.callBuiltin(tb.builtins[c.Name], c)
			if err != nil {
				return nil, nil, nil, err
			}
			results = append(results, r)
		case callUnoffered:
			r, err := s.rejectCall(tb, c)
			if err != nil {
				return nil, nil, nil, err
			}
			// The conversation sent back to the provider names the call in a form the provider accepts (a
			// hallucinated name such as "functions.lookup" would make it reject the next request).
			calls[i].Name = providerSafe(c.Name, c.Name)
			r.Name = calls[i].Name
			results = append(results, r)
		}
	}
	return results, functions, nil, nil
}

// runQueued continues the response that parked the previous round: it runs the queued calls (Job.Queued) in
// order, skipping those whose mcp_call item the history already holds (a retried task), until the next function
// call, where it parks again with the calls after it queued. Otherwise it returns the conversation messages of
// the calls it ran — each shown as one assistant call followed by its result, as Conversation shows mcp_call
// items — and the loop asks the model for the next step.
func runQueued(ctx context.Context, j Journal, log *slog.Logger, tb *toolbox, queued []engine.PendingCall, history []session.Item) (*Outcome, []Message, error) {
	done := map[string]bool{}
	for _, it := range history {
		if (it.Type == session.ItemMCPCall || it.Type == session.ItemCommandExecution) && it.CallID != "" {
			done[it.CallID] = true
		}
	}
	var calls []Call
	for _, q := range queued {
		if !done[q.CallID] {
			args := q.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			calls = append(calls, Call{ID: q.CallID, Name: q.Name, Arguments: args})
		}
	}
	s := &step{ctx: ctx, j: j, log: log}
	results, functions, rest, err := s.runCalls(tb, calls)
	if err != nil {
		return nil, nil, err
	}
	if len(functions) > 0 {
		out, _, err := s.park(functions, rest)
		return &out, nil, err
	}
	var more []Message
	for i, r := range results {
		more = append(more, Message{Role: RoleAssistant, Calls: []Call{calls[i]}}, Message{Role: RoleTool, Results: []Result{r}})
	}
	return nil, more, nil
}

// rejectCall answers a call of a tool the request did not offer with an error result the model reads. A name
// that belongs to a declared MCP server (tb.mcpRefOf) is journaled as an mcp_call item with status failed and
// that error; any other name leaves no item (like tool_search, it lives only in the activity task's conversation)
// and is logged.
func (s *step) rejectCall(tb *toolbox, c Call) (Result, error) {
	msg := fmt.Sprintf("tool %q is not available: it was not offered in this request (not declared, not allowed, not loaded yet, or its server is unavailable). Call only the offered tools.", c.Name)
	if ref, ok := tb.mcpRefOf(c.Name); ok {
		msg = fmt.Sprintf("MCP tool %q of server %q is not available: it was not offered in this request (not allowed, not listed by the server, or the server is unavailable). Call only the offered tools.", ref.name, ref.label)
		if err := s.failedMCPCall(ref, c, msg); err != nil {
			return Result{}, err
		}
	} else {
		s.log.Warn("the model called a tool that was not offered; it got an error result", "tool", c.Name, "call_id", c.ID)
	}
	return Result{CallID: c.ID, Name: c.Name, Output: msg, IsError: true}, nil
}

// failedMCPCall journals an mcp_call item that never reached the server: item.added in_progress, then item.done
// failed with error msg.
func (s *step) failedMCPCall(ref mcpRef, c Call, msg string) error {
	id, err := s.j.StartMCPCall(s.ctx, engine.MCPCall{CallID: c.ID, ServerLabel: ref.label, Name: ref.name, Arguments: c.Arguments})
	if err != nil {
		return fmt.Errorf("start mcp call: %w", err)
	}
	errValue, _ := json.Marshal(msg)
	if err := s.j.FinishMCPCall(s.ctx, id, nil, errValue, true); err != nil {
		return fmt.Errorf("finish mcp call: %w", err)
	}
	return nil
}

// callBuiltin runs an offered builtin tool and journals it as a command_execution item (docs/tools.md "Items"):
// item.added in_progress before the call, item.done after it — completed with the observed output, or failed when
// the tool reported a failure or could not run. Arguments that do not match the tool's parameters are refused
// before it runs (a failed item). The model reads the output, or the error text with IsError set.
func (s *step) callBuiltin(b builtinTool, c Call) (Result, error) {
	start := time.Now()
	var res BuiltinResult
	var refused string
	if err := checkArguments(b.schema, c.Arguments); err != nil {
		refused = fmt.Sprintf("tool %q was not run: %v", c.Name, err)
	}
	id, err := s.j.StartToolExecution(s.ctx, engine.ToolExecution{CallID: c.ID, Name: c.Name, Arguments: c.Arguments,
		Command: builtinCommand(c, ""), Cwd: ""})
	if err != nil {
		return Result{}, fmt.Errorf("start tool execution: %w", err)
	}
	if refused != "" {
		res = BuiltinResult{Output: refused, IsError: true}
	} else {
		var runErr error
		res, runErr = b.impl.Call(s.ctx, c.Arguments)
		if err := s.ctx.Err(); err != nil {
			return Result{}, err
		}
		if runErr != nil {
			res = BuiltinResult{Output: fmt.Sprintf("tool %q failed: %v", c.Name, runErr), IsError: true}
		}
	}
	if res.Command != "" {
		res.Command = builtinCommand(c, res.Command)
	}
	if err := s.j.FinishToolExecution(s.ctx, id, engine.ToolExecutionResult{Command: res.Command, Cwd: res.Cwd, Output: res.Output, ExitCode: res.ExitCode,
		DurationMs: time.Since(start).Milliseconds(), Failed: res.IsError}); err != nil {
		return Result{}, fmt.Errorf("finish tool execution: %w", err)
	}
	return Result{CallID: c.ID, Name: c.Name, Output: res.Output, IsError: res.IsError, Images: res.Images}, nil
}

// MaxCommandBytes bounds a command_execution item's `command` (the whole input stays in `arguments`): longer
// renderings are cut at a rune boundary and end with "…".
const MaxCommandBytes = 1024

// builtinCommand is the command_execution item's `command` for a call: the tool's own rendering, else the shell
// command of a shell call, else the tool name and its arguments; at most MaxCommandBytes.
func builtinCommand(c Call, own string) string {
	s := fullCommand(c, own)
	if len(s) <= MaxCommandBytes {
		return s
	}
	cut := MaxCommandBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func fullCommand(c Call, own string) string {
	if own != "" {
		return own
	}
	if c.Name == "shell" {
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(c.Arguments, &a) == nil && a.Command != "" {
			return a.Command
		}
	}
	return c.Name + " " + string(c.Arguments)
}

// endStructured validates the held final answer and publishes it as one final_answer message with one delta.
func (s *step) endStructured(v *outputValidator) (Outcome, []Message, error) {
	text := strings.Join(s.held, "")
	s.held = nil
	if err := v.validate(text); err != nil {
		return Outcome{}, nil, err
	}
	if err := s.start(session.PhaseFinalAnswer); err != nil {
		return Outcome{}, nil, err
	}
	if err := s.appendText(text); err != nil {
		return Outcome{}, nil, err
	}
	if err := s.flush(session.PhaseFinalAnswer); err != nil {
		return Outcome{}, nil, err
	}
	return Outcome{Status: StatusCompleted}, nil, nil
}

// callMCP runs one MCP tool call and journals it as an mcp_call item: item.added in_progress before the call,
// item.done after it — completed with the output (docs/mcp.md "Results"), or failed with the error (a tool
// result with isError: error = its output; a failed call: error = "MCP error: …", output null). The model reads
// the output, or the error text with IsError set.
func (s *step) callMCP(t mcpTool, c Call) (Result, error) {
	if err := checkArguments(t.schema, c.Arguments); err != nil {
		msg := fmt.Sprintf("MCP tool %q of server %q was not called: %v", t.name, t.label, err)
		if err := s.failedMCPCall(mcpRef{t.label, t.name}, c, msg); err != nil {
			return Result{}, err
		}
		return Result{CallID: c.ID, Name: c.Name, Output: msg, IsError: true}, nil
	}
	id, err := s.j.StartMCPCall(s.ctx, engine.MCPCall{CallID: c.ID, ServerLabel: t.label, Name: t.name, Arguments: c.Arguments})
	if err != nil {
		return Result{}, fmt.Errorf("start mcp call: %w", err)
	}
	cctx, cancel := context.WithTimeout(s.ctx, MCPCallTimeout)
	res, callErr := t.sess.CallTool(cctx, t.name, c.Arguments)
	cancel()
	if err := s.ctx.Err(); err != nil {
		return Result{}, err
	}
	var output, errValue json.RawMessage
	switch {
	case callErr != nil:
		errValue, _ = json.Marshal("MCP error: " + callErr.Error())
	case res.IsError:
		errValue = res.Output
		if len(errValue) == 0 {
			errValue = json.RawMessage(`"the tool reported an error"`)
		}
	default:
		output = res.Output
		if len(output) == 0 {
			output = json.RawMessage(`""`)
		}
	}
	failed := errValue != nil
	if err := s.j.FinishMCPCall(s.ctx, id, output, errValue, failed); err != nil {
		return Result{}, fmt.Errorf("finish mcp call: %w", err)
	}
	r := Result{CallID: c.ID, Name: c.Name, IsError: failed, Output: resultText(output)}
	if failed {
		r.Output = resultText(errValue)
	}
	return r, nil
}
