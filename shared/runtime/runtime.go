package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/statemachine"
)

// Engine is what a runtime needs from the use-case layer; *engine.Engine implements it. PeekTurn is a read-only
// load the runtime uses to decline a task it cannot serve before BeginRunFrom, which starts from that read, writes anything.
type Engine interface {
	RegisterRuntime(ctx context.Context, r engine.RuntimeInfo) error
	PeekTurn(ctx context.Context, sessionID, turnID string) (engine.Peek, error)
	BeginRunFrom(ctx context.Context, p engine.Peek) (*engine.Run, error)
}

// Activities is the Step Functions activity worker API; *sfn.Client implements it (against AWS or the local
// endpoint, via AWS_ENDPOINT_URL_SFN).
type Activities interface {
	GetActivityTask(ctx context.Context, in *sfn.GetActivityTaskInput, opts ...func(*sfn.Options)) (*sfn.GetActivityTaskOutput, error)
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, opts ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
	SendTaskHeartbeat(ctx context.Context, in *sfn.SendTaskHeartbeatInput, opts ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error)
}

var _ Activities = (*sfn.Client)(nil)
var _ Engine = (*engine.Engine)(nil)

// Defaults for the zero values of Config.
const (
	DefaultConcurrency   = 4
	DefaultTaskHeartbeat = 10 * time.Second
	DefaultRegisterEvery = 10 * time.Second
	DefaultShutdownGrace = 25 * time.Second
	// sendTimeout bounds each SendTask* call, which runs on a context detached from shutdown.
	sendTimeout = 15 * time.Second
	// answerBudget bounds how long a task's SendTaskSuccess or SendTaskFailure is retried (heartbeats go on
	// meanwhile); answerBackoff is the first wait between attempts, doubling up to answerMaxBackoff.
	answerBudget     = 60 * time.Second
	answerBackoff    = 100 * time.Millisecond
	answerMaxBackoff = 5 * time.Second
)

// Config configures a Runtime. Zero values take the documented defaults.
type Config struct {
	// ID is the runtime's id in the table (RUNTIME#<id>) and its activity worker name. Required.
	ID string
	// Kind is the harness kind it hosts; "" means harness.Kind ("baton"), the only kind with a runtime
	// (docs/decisions.md §2). Any other value is rejected by New.
	Kind string
	// ActivityARN is the Activity of its kind (BATON_ACTIVITY_ARN). Required.
	ActivityARN string
	// Version is the runtime's build version, recorded in its registration.
	Version string
	// Capabilities it advertises; nil means BatonCapabilities.
	Capabilities []string
	// Concurrency is how many activity tasks run at once (each with its own long poll); 0 means DefaultConcurrency.
	Concurrency int
	// TaskHeartbeat is the interval of SendTaskHeartbeat while a task runs; 0 means DefaultTaskHeartbeat. A task
	// input that carries heartbeat_seconds shortens it to a third of that.
	TaskHeartbeat time.Duration
	// RegisterEvery is the interval of the registration heartbeat; 0 means DefaultRegisterEvery.
	RegisterEvery time.Duration
	// RegistrationTTL is how long a registration counts as live after each heartbeat; 0 means 3×RegisterEvery.
	RegistrationTTL time.Duration
	// ShutdownGrace bounds how long in-flight tasks may finish after shutdown begins; 0 means
	// DefaultShutdownGrace. Tasks still running then are cancelled and failed as Baton.HarnessError.
	ShutdownGrace time.Duration
	// Providers are the model providers it hosts; nil means only the scripted model.
	Providers harness.Providers
	// MCP connects the HTTP MCP servers of a Session's tools; nil means the go-sdk client of package harness/mcp.
	MCP harness.MCPConnector
	// Credentials resolves token-vault references in MCP server headers (docs/tools.md "MCP headers"); nil means
	// none can be resolved (a server whose headers hold a reference fails to connect).
	Credentials harness.CredentialResolver
	// ExtraCapabilities are added to the advertisement when Capabilities is nil: what the runtime's wiring enables
	// beyond the harness and Tools (profile.CapGateway when the MCP connector resolves and signs gateways).
	ExtraCapabilities []string
	// Tools supplies the harness-run builtin tools of a Session (docs/tools.md "Builtin tools"); nil means none
	// (no builtin tool is offered, and turns that need one are never dispatched here).
	Tools ToolHost
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
}

// ToolHost supplies the harness-run builtin tools of one Session's activity task (docs/tools.md "Builtin tools").
type ToolHost interface {
	// Tools returns the implementations for one activity task of the Session, keyed by tool name: the default tools
	// (harness.BuiltinToolNames, when this host has them) and the configuration's declared code interpreter and
	// browser tools by their declared names (agent.Config.HostedTools). release is called when the task ends; state
	// that outlives it (the workspace's files, a browser's page) is the host's to keep or expire. An error fails the
	// task as a configuration error.
	Tools(ctx context.Context, sessionID string, cfg agent.Config) (tools map[string]harness.BuiltinTool, release func(), err error)
	// Capabilities are the capabilities this host adds to the runtime's advertisement (profile.CapBuiltinTools,
	// profile.CapCodeInterpreter, profile.CapBrowser, profile.CapGateway), only for what works on this machine.
	Capabilities() []string
}

// Runtime is a harness runtime: the worker loop of one runtime container. Create it with New and start it with Run.
type Runtime struct {
	eng  Engine
	act  Activities
	cfg  Config
	log  *slog.Logger
	info engine.RuntimeInfo
}

// New returns a Runtime on the given ports. Errors: a missing ID or ActivityARN, or a Kind other than
// harness.Kind.
func New(eng Engine, act Activities, cfg Config) (*Runtime, error) {
	if cfg.ID == "" || cfg.ActivityARN == "" {
		return nil, errors.New("runtime: ID and ActivityARN are required")
	}
	if cfg.Kind == "" {
		cfg.Kind = harness.Kind
	}
	if cfg.Kind != harness.Kind {
		return nil, fmt.Errorf("runtime: this runtime hosts harness %q, not %q", harness.Kind, cfg.Kind)
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = slices.Clone(BatonCapabilities)
		if cfg.Tools != nil {
			cfg.Capabilities = append(cfg.Capabilities, cfg.Tools.Capabilities()...)
		}
		cfg.Capabilities = append(cfg.Capabilities, cfg.ExtraCapabilities...)
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.TaskHeartbeat <= 0 {
		cfg.TaskHeartbeat = DefaultTaskHeartbeat
	}
	if cfg.RegisterEvery <= 0 {
		cfg.RegisterEvery = DefaultRegisterEvery
	}
	if cfg.RegistrationTTL <= 0 {
		cfg.RegistrationTTL = 3 * cfg.RegisterEvery
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.Providers == nil {
		cfg.Providers = harness.Providers{}
		scripted.Register(cfg.Providers)
	}
	if cfg.MCP == nil {
		cfg.MCP = &mcp.Connector{}
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Runtime{eng: eng, act: act, cfg: cfg, log: log.With("runtime_id", cfg.ID, "kind", cfg.Kind)}
	r.info = engine.RuntimeInfo{ID: cfg.ID, Kind: cfg.Kind, Capabilities: cfg.Capabilities, Version: cfg.Version, StartedAt: cfg.Clock().Unix()}
	return r, nil
}

// Run registers the runtime, serves activity tasks until ctx ends, then shuts down gracefully: it stops polling,
// lets in-flight tasks finish for at most ShutdownGrace (then cancels them and fails them), and deregisters
// (a registration that expires now). It returns an error only when the first registration fails; otherwise nil
// after shutdown.
func (r *Runtime) Run(ctx context.Context) error {
	if err := r.register(ctx, r.cfg.RegistrationTTL); err != nil {
		return fmt.Errorf("runtime %s: register: %w", r.cfg.ID, err)
	}
	r.log.Info("runtime started", "activity_arn", r.cfg.ActivityARN, "concurrency", r.cfg.Concurrency, "capabilities", r.cfg.Capabilities)
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()

	var workers sync.WaitGroup
	for range r.cfg.Concurrency {
		workers.Go(func() { r.worker(ctx, work) })
	}
	var registrar sync.WaitGroup
	registrar.Go(func() { r.keepRegistered(ctx) })

	<-ctx.Done()
	r.log.Info("runtime stopping: no new tasks")
	done := make(chan struct{})
	go func() { workers.Wait(); close(done) }()
	grace := time.NewTimer(r.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		r.log.Warn("shutdown grace elapsed: cancelling in-flight tasks")
		stopWork()
		<-done
	}
	registrar.Wait()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	if err := r.register(dctx, 0); err != nil {
		r.log.Warn("deregister failed; the registration expires by its TTL", "error", err)
	}
	r.log.Info("runtime stopped")
	return nil
}

// register writes the registration with the given time to live (0 = expired now, i.e. deregistered).
func (r *Runtime) register(ctx context.Context, ttl time.Duration) error {
	now := r.cfg.Clock()
	info := r.info
	info.HeartbeatAt = now.Unix()
	info.ExpiresAt = now.Add(ttl).Unix()
	return r.eng.RegisterRuntime(ctx, info)
}

func (r *Runtime) keepRegistered(ctx context.Context) {
	t := time.NewTicker(r.cfg.RegisterEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := r.register(ctx, r.cfg.RegistrationTTL); err != nil && ctx.Err() == nil {
				r.log.Warn("registration heartbeat failed", "error", err)
			}
		}
	}
}

// worker long-polls the activity while poll is live and runs each task it receives on work.
func (r *Runtime) worker(poll, work context.Context) {
	backoff := time.Duration(0)
	for poll.Err() == nil {
		out, err := r.act.GetActivityTask(poll, &sfn.GetActivityTaskInput{ActivityArn: aws.String(r.cfg.ActivityARN), WorkerName: aws.String(r.cfg.ID)})
		if err != nil {
			if poll.Err() != nil {
				return
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), 5*time.Second)
			r.log.Warn("get activity task failed", "error", err, "retry_in", backoff)
			select {
			case <-poll.Done():
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if out.TaskToken == nil || *out.TaskToken == "" {
			continue
		}
		r.handle(work, *out.TaskToken, aws.ToString(out.Input))
	}
}

// errTaskGone is the cancellation cause when Step Functions no longer knows the task (timed out, or its
// execution ended): nothing may be sent for it any more.
var errTaskGone = errors.New("the activity task timed out or no longer exists")

// errStopping is the failure of a task cancelled by shutdown.
var errStopping = errors.New("runtime stopping")

// handle runs one activity task to its SendTaskSuccess or SendTaskFailure. The heartbeat goes on until the answer
// is delivered (or given up, see answer), so a slow or failing Send does not let the task time out.
func (r *Runtime) handle(work context.Context, token, input string) {
	var in statemachine.ActivityInput
	if err := json.Unmarshal([]byte(input), &in); err != nil || in.SessionID == "" || in.TurnID == "" {
		r.fail(work, token, statemachine.ErrorHarness, "the activity task input is not {session_id, turn_id, harness}")
		return
	}
	log := r.log.With("session_id", in.SessionID, "turn_id", in.TurnID)
	if in.Harness != "" && in.Harness != r.cfg.Kind {
		log.Warn("task for another harness kind", "harness", in.Harness)
		r.fail(work, token, statemachine.ErrorRuntimeIncapable, fmt.Sprintf("runtime %s hosts harness %q, not %q", r.cfg.ID, r.cfg.Kind, in.Harness))
		return
	}
	every := r.cfg.TaskHeartbeat
	if in.HeartbeatSeconds > 0 {
		every = min(every, max(time.Duration(in.HeartbeatSeconds)*time.Second/3, 100*time.Millisecond))
	}
	task, cancel := context.WithCancelCause(work)
	defer cancel(nil)
	beats, stopBeats := context.WithCancel(task)
	var beating sync.WaitGroup
	beating.Go(func() { r.heartbeat(beats, token, every, cancel) })
	defer beating.Wait()
	defer stopBeats()

	out, err := r.step(task, in)
	if errors.Is(context.Cause(task), errTaskGone) {
		log.Warn("task abandoned: Step Functions no longer knows it", "error", err)
		return
	}
	if err != nil {
		if work.Err() != nil {
			err = fmt.Errorf("%w: %w", errStopping, err)
		}
		name, cause := classify(err)
		log.Warn("task failed", "error_name", name, "error", err)
		r.answer(work, task, log, "send task failure", r.failure(token, name, cause))
		return
	}
	body, _ := json.Marshal(out)
	if r.answer(work, task, log, "send task success", func(ctx context.Context) error {
		_, err := r.act.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(string(body))})
		return err
	}) {
		log.Info("task done", "status", out.Status, "round", out.Round)
	}
}

// answer delivers a task's answer with send, retrying with backoff (answerBackoff doubling up to answerMaxBackoff)
// for at most answerBudget, each attempt bounded by sendTimeout on a context detached from shutdown. It stops at
// the first success, at an error that says the task can never be answered (TaskTimedOut, TaskDoesNotExist,
// InvalidToken, InvalidOutput), or when the task's heartbeat reports the task gone (task cancelled with
// errTaskGone). It reports whether the answer was delivered.
func (r *Runtime) answer(work, task context.Context, log *slog.Logger, op string, send func(context.Context) error) bool {
	deadline := time.Now().Add(answerBudget)
	wait := answerBackoff
	for attempt := 1; ; attempt++ {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(work), sendTimeout)
		err := send(sctx)
		cancel()
		switch {
		case err == nil:
			return true
		case answerFinal(err):
			log.Warn(op+" failed: the task can no longer be answered", "error", err)
			return false
		case errors.Is(context.Cause(task), errTaskGone):
			log.Warn(op+" failed and the task is gone", "error", err)
			return false
		case time.Now().Add(wait).After(deadline):
			log.Error(op+" failed: giving up", "error", err, "attempts", attempt)
			return false
		}
		log.Warn(op+" failed: retrying", "error", err, "attempt", attempt, "retry_in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-goneDone(task):
			t.Stop()
		}
		wait = min(2*wait, answerMaxBackoff)
	}
}

// goneDone returns a channel closed when task ends because Step Functions no longer knows it; nil (never ready)
// for any other end of task (shutdown does not stop an answer from being delivered).
func goneDone(task context.Context) <-chan struct{} {
	if task.Err() != nil && !errors.Is(context.Cause(task), errTaskGone) {
		return nil
	}
	return task.Done()
}

// answerFinal reports whether a SendTask* error means the answer can never be delivered, so retrying is useless.
func answerFinal(err error) bool {
	var timedOut *types.TaskTimedOut
	var missing *types.TaskDoesNotExist
	var invalid *types.InvalidToken
	var output *types.InvalidOutput
	return errors.As(err, &timedOut) || errors.As(err, &missing) || errors.As(err, &invalid) || errors.As(err, &output)
}

// step begins (or resumes) the turn and runs one harness step.
//
// It first decides, from a read-only PeekTurn, whether this runtime can serve the turn at all: the Session's model
// provider protocol must be hosted here and the turn's requires must be advertised. When not, it declines (an
// error classify maps to Baton.RuntimeIncapable) before anything is written, so another runtime takes the task
// from a clean state. A turn that is terminal or cancelled skips that decision: BeginRunFrom reports it not runnable.
func (r *Runtime) step(ctx context.Context, in statemachine.ActivityInput) (harness.Outcome, error) {
	peek, err := r.eng.PeekTurn(ctx, in.SessionID, in.TurnID)
	turn, sess := peek.Turn, peek.Session
	if err != nil {
		return harness.Outcome{}, fmt.Errorf("peek turn: %w", err)
	}
	cfg, modelErr := r.resolveModelKey(ctx, sess.ProjectID, turn.EffectiveConfig(sess))
	var model harness.Model
	if modelErr == nil {
		model, modelErr = r.cfg.Providers.Model(cfg)
	}
	if !turn.Status.Terminal() && !turn.CancelRequested {
		if errors.Is(modelErr, harness.ErrProtocolUnavailable) {
			return harness.Outcome{}, modelErr
		}
		if missing := profile.Missing(turn.Requires, r.cfg.Capabilities); len(missing) > 0 {
			return harness.Outcome{}, &incapableError{missing: missing}
		}
	}
	run, err := r.eng.BeginRunFrom(ctx, peek)
	if err != nil {
		return harness.Outcome{}, fmt.Errorf("begin run: %w", err)
	}
	// A task that fails before the harness runs still writes the run's held start or resume (as harness.Run's own
	// flush would), so the turn's events show it began before Settle ends it; nothing is left to the run's timer.
	fail := func(err error) (harness.Outcome, error) {
		_ = run.Flush(ctx)
		return harness.Outcome{}, err
	}
	if modelErr != nil {
		return fail(modelErr)
	}
	job := harness.JobOf(run)
	job.MCP = r.cfg.MCP
	job.Credentials = r.cfg.Credentials
	if job.Credentials == nil {
		if kr, ok := r.eng.(keyResolver); ok {
			// MCP header references resolve in the Session's own project only (docs/agentcore.md §6).
			job.Credentials = projectVault{kr: kr, projectID: sess.ProjectID}
		}
	}
	job.Logger = r.log.With("session_id", in.SessionID, "turn_id", in.TurnID)
	if r.cfg.Tools != nil {
		tools, release, err := r.cfg.Tools.Tools(ctx, in.SessionID, job.Config)
		if err != nil {
			return fail(&harness.ConfigError{Cause: err.Error(), Err: err})
		}
		defer release()
		job.Builtins = tools
	}
	return harness.Run(ctx, job, model)
}

// keyResolver resolves a token-vault API key of a project; *engine.Engine implements it (docs/agentcore.md §6).
type keyResolver interface {
	ResolveAPIKey(ctx context.Context, projectID, name string) (string, error)
}

// projectVault is the harness's CredentialResolver for one turn: a `${arn}` reference resolves to the key of that
// API-key credential provider in the Session's project, never another project's (docs/agentcore.md §6).
type projectVault struct {
	kr        keyResolver
	projectID string
}

// ResolveAPIKey implements harness.CredentialResolver. Errors name the reference, never a key.
func (v projectVault) ResolveAPIKey(ctx context.Context, arn string) (string, error) {
	ref, ok := agentcore.ParseCredentialProviderARN(arn)
	if !ok {
		return "", fmt.Errorf("%q is not an API-key credential provider ARN", arn)
	}
	key, err := v.kr.ResolveAPIKey(ctx, v.projectID, ref.Name)
	if err != nil {
		return "", fmt.Errorf("credential provider %s: %w", ref.Name, err)
	}
	return key, nil
}

var _ harness.CredentialResolver = projectVault{}

// resolveModelKey replaces the `${<apiKeyArn>}` reference an AgentCore model configuration leaves in the model
// provider's api_key (docs/agentcore.md §3.2) by the key stored in the project's token vault, at invocation time;
// the resolved key lives only in the returned copy, never in a snapshot or a log. A configuration without a
// reference is returned as is. Errors: an unparsable reference, a missing provider, or an engine that cannot
// resolve keys — the turn then fails like a model that cannot be built.
func (r *Runtime) resolveModelKey(ctx context.Context, projectID string, cfg agent.Config) (agent.Config, error) {
	if cfg.XBaton == nil || cfg.XBaton.ModelProvider == nil || !strings.Contains(cfg.XBaton.ModelProvider.APIKey, "${") {
		return cfg, nil
	}
	kr, ok := r.eng.(keyResolver)
	if !ok {
		return cfg, errors.New("model api_key: this runtime cannot resolve token-vault references")
	}
	vault := projectVault{kr: kr, projectID: projectID}
	key, err := agentcore.ExpandVaultReferences(cfg.XBaton.ModelProvider.APIKey, func(arn string) (string, error) {
		return vault.ResolveAPIKey(ctx, arn)
	})
	if err != nil {
		return cfg, fmt.Errorf("model api_key: %w", err)
	}
	x, p := *cfg.XBaton, *cfg.XBaton.ModelProvider
	p.APIKey = key
	x.ModelProvider = &p
	cfg.XBaton = &x
	return cfg, nil
}

// incapableError: the turn requires capabilities this runtime does not advertise (a rolling update, or a runtime
// started with a restricted BATON_RUNTIME_CAPABILITIES); the task fails with Baton.RuntimeIncapable, which the
// state machine retries so that another runtime takes it (docs/decisions.md "Capabilities").
type incapableError struct{ missing []string }

func (e *incapableError) Error() string {
	return "the runtime does not advertise " + strings.Join(e.missing, ", ")
}

// heartbeat sends SendTaskHeartbeat every interval until ctx ends; when Step Functions reports the task gone it
// cancels the task's work with errTaskGone.
func (r *Runtime) heartbeat(ctx context.Context, token string, every time.Duration, cancel context.CancelCauseFunc) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, err := r.act.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(token)})
			var timedOut *types.TaskTimedOut
			var missing *types.TaskDoesNotExist
			switch {
			case errors.As(err, &timedOut) || errors.As(err, &missing):
				cancel(errTaskGone)
				return
			case err != nil && ctx.Err() == nil:
				r.log.Warn("task heartbeat failed", "error", err)
			}
		}
	}
}

// fail answers a task that never started (bad input, another harness kind) with SendTaskFailure, retried like
// every answer (see answer).
func (r *Runtime) fail(work context.Context, token, name, cause string) {
	r.answer(work, work, r.log.With("error_name", name), "send task failure", r.failure(token, name, cause))
}

// failure returns the send of SendTaskFailure(token, name, cause), the cause cut to the Step Functions limit.
func (r *Runtime) failure(token, name, cause string) func(context.Context) error {
	if len(cause) > statemachine.MaxCauseBytes {
		cause = cause[:statemachine.MaxCauseBytes]
	}
	return func(ctx context.Context) error {
		_, err := r.act.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String(name), Cause: aws.String(cause)})
		return err
	}
}

// classify maps a step's error to the ASL error name and a cause that is safe to store and show: only the causes
// of the harness's typed errors are passed on; anything else gets a fixed cause (the detail is logged).
func classify(err error) (name, cause string) {
	var me *harness.ModelError
	var ce *harness.ConfigError
	var se *harness.StructuredOutputError
	switch {
	case errors.Is(err, engine.ErrTurnNotRunnable):
		return statemachine.ErrorTurnNotRunnable, "the turn was cancelled or has ended"
	case errors.As(err, new(*incapableError)):
		return statemachine.ErrorRuntimeIncapable, err.Error()
	case errors.Is(err, errStopping):
		return statemachine.ErrorHarness, "the runtime stopped before the step finished"
	case errors.As(err, &me):
		return statemachine.ErrorModel, me.Cause
	case errors.As(err, &se):
		return statemachine.ErrorStructuredOutputInvalid, se.Cause
	case errors.Is(err, harness.ErrProtocolUnavailable) && errors.As(err, &ce):
		return statemachine.ErrorRuntimeIncapable, ce.Cause
	case errors.As(err, &ce):
		return statemachine.ErrorHarness, ce.Cause
	default:
		return statemachine.ErrorHarness, "internal harness error"
	}
}
