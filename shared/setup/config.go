package setup

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
)

// Component is the process whose configuration Load reads: each requires only the settings it uses
// (docs/configuration.md).
type Component string

// The components of a deployment (template.yaml) and the runtime container.
const (
	// API is the ApiFunction: requires BATON_TABLE, BATON_STATE_MACHINE_ARNS and BATON_ADMIN_KEY; reads the turn
	// timeouts.
	API Component = "api"
	// Stream is the StreamFunction: requires BATON_TABLE and BATON_STATE_MACHINE_ARNS; BATON_ADMIN_KEY is optional
	// ("" = no admin routes); reads the turn timeouts.
	Stream Component = "stream"
	// Park is the ParkFunction: requires BATON_TABLE.
	Park Component = "park"
	// Settle is the SettleFunction: requires BATON_TABLE.
	Settle Component = "settle"
	// Reconcile is the ReconcileFunction: requires BATON_TABLE and BATON_STATE_MACHINE_ARNS; reads the turn
	// timeouts (it restarts turns).
	Reconcile Component = "reconcile"
	// Runtime is a harness runtime container: requires BATON_TABLE and BATON_ACTIVITY_ARN; reads
	// BATON_HARNESS_KIND, BATON_RUNTIME_ID, BATON_RUNTIME_CAPABILITIES and BATON_SHUTDOWN_GRACE_SECONDS.
	Runtime Component = "runtime"
)

// Names of the settings (environment variables) Load reads (docs/configuration.md).
const (
	EnvTable               = "BATON_TABLE"
	EnvStateMachineARNs    = "BATON_STATE_MACHINE_ARNS"
	EnvActivityARN         = "BATON_ACTIVITY_ARN"
	EnvHarnessKind         = "BATON_HARNESS_KIND"
	EnvRuntimeID           = "BATON_RUNTIME_ID"
	EnvRuntimeCapabilities = "BATON_RUNTIME_CAPABILITIES"
	EnvShutdownGrace       = "BATON_SHUTDOWN_GRACE_SECONDS"
	EnvAdminKey            = "BATON_ADMIN_KEY"
	EnvRunTimeout          = "BATON_RUN_TIMEOUT_SECONDS"
	EnvHeartbeat           = "BATON_HEARTBEAT_SECONDS"
	EnvAwaitTimeout        = "BATON_AWAIT_TIMEOUT_SECONDS"
	EnvSealKey             = "BATON_SEAL_KEY"
	EnvAgentCoreRegion     = "BATON_AGENTCORE_REGION"
	EnvAgentCoreAccountID  = "BATON_AGENTCORE_ACCOUNT_ID"
	// EnvWorkspaceRoot and EnvToolProvider configure the runtime's builtin tools (docs/tools.md).
	EnvWorkspaceRoot = "BATON_WORKSPACE_ROOT"
	EnvToolProvider  = "BATON_TOOL_PROVIDER"
	// EnvModelProvider is the deployment's default model provider protocol (engine.Options.DefaultModelProvider).
	EnvModelProvider = "BATON_MODEL_PROVIDER"
	// EnvLocalWakeURL (runtime, local stack only) is the launcher's wake endpoint the runtime reports its commits
	// to, so the launcher's event streams read a runtime's output at once (docs/configuration.md).
	EnvLocalWakeURL = "BATON_LOCAL_WAKE_URL"
	// EnvRegion is the SDK's region, the default of EnvAgentCoreRegion.
	EnvRegion = "AWS_REGION"
)

// Values of BATON_TOOL_PROVIDER (docs/tools.md).
const (
	ToolProviderLocal = "local"
	ToolProviderAWS   = "aws"
)

// DefaultSealKey is the local stack's sealing key (base64 of the 32 bytes "baton-local-seal-key-not-secret!"), which
// the launcher passes: not a secret. A deployment sets BATON_SEAL_KEY; Load has no default for it.
const DefaultSealKey = "YmF0b24tbG9jYWwtc2VhbC1rZXktbm90LXNlY3JldCE="

// DefaultHarnessKind is the harness kind a runtime hosts when BATON_HARNESS_KIND is unset (the only kind with a
// runtime today).
const DefaultHarnessKind = "baton"

// MinAdminKeyBytes is the shortest admin key Load accepts (template.yaml's AdminKey parameter has MinLength 32).
const MinAdminKeyBytes = 32

// Config is Baton's configuration (docs/configuration.md). Timeouts are in seconds. Deployed processes get it from
// Load; the local launcher fills it in directly with the local stack's names.
type Config struct {
	// WorkspaceRoot (runtime) is BATON_WORKSPACE_ROOT, the folder of the Session workspaces ("" = no builtin tools:
	// the runtime does not advertise them). ToolProvider (runtime) is BATON_TOOL_PROVIDER: ToolProviderLocal (the
	// default) or ToolProviderAWS, where the AgentCore code interpreter, browser and gateway tools run.
	WorkspaceRoot string
	ToolProvider  string
	// DefaultModelProvider (API, Stream) is BATON_MODEL_PROVIDER: the model provider protocol of Sessions whose
	// configuration selects none ("" = none; such Sessions are refused).
	DefaultModelProvider string
	// LocalWakeURL (runtime) is BATON_LOCAL_WAKE_URL: the local launcher's wake endpoint, an http URL ("" = none,
	// as on AWS, where event streams find a runtime's commits by polling).
	LocalWakeURL string
	// Table is the one DynamoDB table (BATON_TABLE).
	Table string
	// StateMachineARNs are the turn state machines, harness kind → state machine ARN (BATON_STATE_MACHINE_ARNS:
	// comma-separated kind=arn pairs, one state machine per harness kind, docs/configuration.md); nil in processes
	// that start no executions (Park, Settle, runtimes).
	StateMachineARNs map[string]string
	// ActivityARN (runtime) is the Activity of its harness kind (BATON_ACTIVITY_ARN).
	ActivityARN string
	// HarnessKind (runtime) is the kind it hosts (BATON_HARNESS_KIND, default DefaultHarnessKind).
	HarnessKind string
	// RuntimeID (runtime) is its id in the table (BATON_RUNTIME_ID); "" = a random rt_… id.
	RuntimeID string
	// AdminKey is the admin API's bearer key (BATON_ADMIN_KEY); "" disables the admin routes.
	AdminKey string
	// Timeouts go into every StartExecution input (BATON_RUN_TIMEOUT_SECONDS, BATON_HEARTBEAT_SECONDS,
	// BATON_AWAIT_TIMEOUT_SECONDS); unset ones take engine.DefaultTimeouts.
	Timeouts engine.Timeouts
	// RuntimeShutdownGraceSeconds (runtime) bounds how long in-flight tasks may finish after SIGTERM before they are
	// failed (BATON_SHUTDOWN_GRACE_SECONDS; 0 = the runtime's default, 25 s, under ECS's 30 s stop timeout).
	RuntimeShutdownGraceSeconds int
	// RuntimeCapabilities (runtime) restricts what a runtime advertises: BATON_RUNTIME_CAPABILITIES, a
	// comma-separated list of capability names; nil (unset) = everything its harness supports. Meant for tests and
	// rolling updates: a runtime never advertises what it does not serve.
	RuntimeCapabilities []string
	// SealKey (api, stream, runtime) is the AES-256-GCM key that seals AgentCore access-key secrets and token-vault
	// API keys at rest (BATON_SEAL_KEY: standard base64 of 32 bytes; docs/agentcore.md). nil when unset: the
	// operations that need it then fail with engine.ErrNoSealKey; never a well-known default.
	SealKey []byte
	// AgentCore (api, stream) is the region and account AgentCore ARNs carry (BATON_AGENTCORE_REGION, default
	// AWS_REGION; BATON_AGENTCORE_ACCOUNT_ID, 12 digits, required).
	AgentCore engine.AgentCoreIdentity
	// Endpoints override the service endpoints; the local launcher sets them. Empty fields leave endpoint
	// resolution to the AWS SDK (AWS_ENDPOINT_URL_*, then the regional endpoint).
	Endpoints Endpoints
}

// Endpoints are service endpoint URLs ("" = the SDK's resolution).
type Endpoints struct {
	DynamoDB string
	SFN      string
}

// Problem is one missing or malformed setting.
type Problem struct {
	// Name is the environment variable.
	Name string
	// Reason says what is wrong ("is required", "must be a positive integer, got \"x\"").
	Reason string
}

// ConfigError lists every missing or malformed setting Load found, in a fixed order (the order of the table in
// docs/configuration.md).
type ConfigError struct {
	Component Component
	Problems  []Problem
}

func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Name + " " + p.Reason
	}
	return fmt.Sprintf("configuration of %s: %s", e.Component, strings.Join(parts, "; "))
}

// tableName is DynamoDB's table name rule.
var tableName = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)

// accountID is a 12-digit AWS account id.
var accountID = regexp.MustCompile(`^[0-9]{12}$`)

// Load reads the configuration of component c through getenv (os.Getenv in a deployed process). Every setting c
// requires must be set; every setting c reads must be well formed. There are no local defaults: the only defaults
// are the product's own (engine.DefaultTimeouts, DefaultHarnessKind). Errors: a *ConfigError naming each missing or
// malformed setting at once, or an error for an unknown component.
func Load(getenv func(string) string, c Component) (Config, error) {
	var cfg Config
	var problems []Problem
	bad := func(name, reason string, args ...any) {
		problems = append(problems, Problem{Name: name, Reason: fmt.Sprintf(reason, args...)})
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	required := func(name string) string {
		v := get(name)
		if v == "" {
			bad(name, "is required")
		}
		return v
	}
	arn := func(name, resource string, need bool) string {
		v := get(name)
		if v == "" {
			if need {
				bad(name, "is required")
			}
			return ""
		}
		if !isStatesARN(v, resource) {
			bad(name, "must be a Step Functions %s ARN (arn:<partition>:states:<region>:<account>:%s:<name>), got %q", resource, resource, v)
		}
		return v
	}
	seconds := func(name string, def int) int {
		v := get(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			bad(name, "must be a positive integer of seconds, got %q", v)
			return def
		}
		return n
	}

	switch c {
	case API, Stream, Park, Settle, Reconcile, Runtime:
	default:
		return Config{}, fmt.Errorf("setup: unknown component %q", c)
	}
	cfg.Table = required(EnvTable)
	if cfg.Table != "" && !tableName.MatchString(cfg.Table) {
		bad(EnvTable, "must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -), got %q", cfg.Table)
	}
	startsTurns := c == API || c == Stream || c == Reconcile
	if startsTurns {
		machines, err := ParseStateMachineARNs(required(EnvStateMachineARNs))
		if err != nil {
			bad(EnvStateMachineARNs, "%v", err)
		}
		cfg.StateMachineARNs = machines
	}
	if c == Runtime {
		cfg.ActivityARN = arn(EnvActivityARN, "activity", true)
		cfg.HarnessKind = get(EnvHarnessKind)
		if cfg.HarnessKind == "" {
			cfg.HarnessKind = DefaultHarnessKind
		}
		cfg.RuntimeID = get(EnvRuntimeID)
		cfg.WorkspaceRoot = get(EnvWorkspaceRoot)
		if r := cfg.WorkspaceRoot; r != "" && !filepath.IsAbs(r) {
			bad(EnvWorkspaceRoot, "must be an absolute path, got %q", r)
		}
		cfg.ToolProvider = get(EnvToolProvider)
		switch cfg.ToolProvider {
		case "":
			cfg.ToolProvider = ToolProviderLocal
		case ToolProviderLocal, ToolProviderAWS:
		default:
			bad(EnvToolProvider, "must be %s or %s, got %q", ToolProviderLocal, ToolProviderAWS, cfg.ToolProvider)
		}
		cfg.RuntimeCapabilities = list(get(EnvRuntimeCapabilities))
		cfg.LocalWakeURL = get(EnvLocalWakeURL)
		if u := cfg.LocalWakeURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			bad(EnvLocalWakeURL, "must be an http(s) URL, got %q", u)
		}
		if v := get(EnvShutdownGrace); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				bad(EnvShutdownGrace, "must be a non-negative integer of seconds, got %q", v)
			}
			cfg.RuntimeShutdownGraceSeconds = max(n, 0)
		}
	}
	if c == API || c == Stream {
		cfg.AdminKey = get(EnvAdminKey)
		switch {
		case cfg.AdminKey == "" && c == API:
			bad(EnvAdminKey, "is required")
		case cfg.AdminKey != "" && len(cfg.AdminKey) < MinAdminKeyBytes:
			bad(EnvAdminKey, "must be at least %d bytes", MinAdminKeyBytes)
		}
	}
	if c == API || c == Stream || c == Runtime {
		if v := get(EnvSealKey); v != "" {
			k, err := base64.StdEncoding.DecodeString(v)
			if err != nil || len(k) != engine.SealKeyBytes {
				bad(EnvSealKey, "must be the standard base64 of %d bytes", engine.SealKeyBytes)
			} else {
				cfg.SealKey = k
			}
		}
	}
	if c == API || c == Stream {
		cfg.DefaultModelProvider = get(EnvModelProvider)
		if p := cfg.DefaultModelProvider; p != "" && !slices.Contains(agent.ModelProtocols[1:], p) {
			bad(EnvModelProvider, "must be one of %s, or empty for none, got %q", strings.Join(agent.ModelProtocols[1:], ", "), p)
		}
		cfg.AgentCore.Region = get(EnvAgentCoreRegion)
		if cfg.AgentCore.Region == "" {
			cfg.AgentCore.Region = get(EnvRegion)
		}
		if cfg.AgentCore.Region == "" {
			bad(EnvAgentCoreRegion, "is required (or %s)", EnvRegion)
		}
		cfg.AgentCore.AccountID = get(EnvAgentCoreAccountID)
		if !accountID.MatchString(cfg.AgentCore.AccountID) {
			bad(EnvAgentCoreAccountID, "must be the 12-digit AWS account id, got %q", cfg.AgentCore.AccountID)
		}
	}
	if startsTurns {
		d := engine.DefaultTimeouts
		cfg.Timeouts = engine.Timeouts{
			RunSeconds:       seconds(EnvRunTimeout, d.RunSeconds),
			HeartbeatSeconds: seconds(EnvHeartbeat, d.HeartbeatSeconds),
			AwaitSeconds:     seconds(EnvAwaitTimeout, d.AwaitSeconds),
		}
		if t := cfg.Timeouts; t.HeartbeatSeconds >= t.RunSeconds {
			bad(EnvHeartbeat, "must be below %s (%d), got %d", EnvRunTimeout, t.RunSeconds, t.HeartbeatSeconds)
		}
	}
	if len(problems) > 0 {
		return Config{}, &ConfigError{Component: c, Problems: problems}
	}
	return cfg, nil
}

// isStatesARN reports whether v is arn:<partition>:states:<region>:<account>:<resource>:<name> with every part
// non-empty.
func isStatesARN(v, resource string) bool {
	parts := strings.SplitN(v, ":", 7)
	if len(parts) != 7 || parts[0] != "arn" || parts[2] != "states" || parts[5] != resource {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
	}
	return true
}

// list splits a comma-separated value into its trimmed, non-empty entries; nil when empty.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ParseStateMachineARNs parses BATON_STATE_MACHINE_ARNS: comma-separated kind=arn pairs such as
// "baton=arn:aws:states:us-east-1:123456789012:stateMachine:BatonTurn,codex=…", harness kind → state machine ARN.
// "" is nil. Errors: a pair without "=", an empty or repeated kind, a value that is not a Step Functions
// stateMachine ARN.
func ParseStateMachineARNs(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		kind, arn, ok := strings.Cut(strings.TrimSpace(pair), "=")
		switch {
		case !ok || kind == "":
			return nil, fmt.Errorf("must be comma-separated kind=arn pairs, got %q", pair)
		case out[kind] != "":
			return nil, fmt.Errorf("names harness kind %q twice", kind)
		case !isStatesARN(arn, "stateMachine"):
			return nil, fmt.Errorf("harness kind %q: must be a Step Functions stateMachine ARN (arn:<partition>:states:<region>:<account>:stateMachine:<name>), got %q", kind, arn)
		}
		out[kind] = arn
	}
	return out, nil
}

// FormatStateMachineARNs is the BATON_STATE_MACHINE_ARNS value of machines (kind=arn pairs in sorted kind order).
func FormatStateMachineARNs(machines map[string]string) string {
	kinds := make([]string, 0, len(machines))
	for k := range machines {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	pairs := make([]string, len(kinds))
	for i, k := range kinds {
		pairs[i] = k + "=" + machines[k]
	}
	return strings.Join(pairs, ",")
}
