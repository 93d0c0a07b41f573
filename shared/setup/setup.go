package setup

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/metrics"
	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/store/dynamo"
)

// Config is Baton's configuration (docs/internals.md "Processes and ports"). Timeouts are in seconds.
type Config struct {
	Table           string
	StateMachineARN string
	ActivityARN     string
	HarnessKind     string
	RuntimeID       string
	AdminKey        string
	Timeouts        engine.Timeouts
	// RuntimeShutdownGraceSeconds (runtime) bounds how long in-flight tasks may finish after SIGTERM before they are
	// failed (BATON_SHUTDOWN_GRACE_SECONDS; 0 = the runtime's default, 25 s, under ECS's 30 s stop timeout).
	RuntimeShutdownGraceSeconds int
	// RuntimeCapabilities (runtime) restricts what a runtime advertises: BATON_RUNTIME_CAPABILITIES, a
	// comma-separated list of spec/agents-api-rules.md §5.3 names; nil (unset) = everything its harness supports.
	// Meant for tests and rolling updates: a runtime never advertises what it does not serve.
	RuntimeCapabilities []string
	// SealKey is the AES-256-GCM key that seals AgentCore access-key secrets and token-vault API keys at rest
	// (BATON_SEAL_KEY: standard base64 of 32 bytes; docs/agentcore.md §6). On AWS it comes from a Secrets Manager
	// secret through the function's environment; the local stack uses DefaultSealKey. nil when BATON_SEAL_KEY is
	// malformed (Load fails then) or unset inside AWS Lambda or ECS: the operations that need it then fail with
	// engine.ErrNoSealKey, never seal with the well-known local key.
	SealKey []byte
	// AgentCore is the region and account AgentCore ARNs carry (BATON_AGENTCORE_REGION, default AWS_REGION or
	// us-east-1; BATON_AGENTCORE_ACCOUNT_ID, default 000000000000).
	AgentCore engine.AgentCoreIdentity
}

// Local defaults: the names the local stack uses (docs/internals.md "Local ARNs and names").
const (
	DefaultTable           = "baton"
	DefaultStateMachineARN = "arn:aws:states:us-east-1:000000000000:stateMachine:TurnStateMachine"
	DefaultActivityARN     = "arn:aws:states:us-east-1:000000000000:activity:BatonActivity"
	DefaultAdminKey        = "baton-local-admin"
	// DefaultSealKey is the local stack's sealing key (base64 of the 32 bytes "baton-local-seal-key-not-secret!"):
	// not a secret; a deployment sets BATON_SEAL_KEY.
	DefaultSealKey = "YmF0b24tbG9jYWwtc2VhbC1rZXktbm90LXNlY3JldCE="
)

// sealKeyFromEnv decodes BATON_SEAL_KEY. Unset, it is DefaultSealKey on the local stack and nil (no sealing: the
// AgentCore access-key and token-vault operations fail) inside AWS Lambda or ECS, so a deployment never seals with
// the well-known local key.
func sealKeyFromEnv() ([]byte, error) {
	v := os.Getenv("BATON_SEAL_KEY")
	if v == "" {
		if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" || os.Getenv("ECS_CONTAINER_METADATA_URI_V4") != "" {
			return nil, nil
		}
		v = DefaultSealKey
	}
	k, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(k) != engine.SealKeyBytes {
		return nil, fmt.Errorf("BATON_SEAL_KEY must be the standard base64 of %d bytes", engine.SealKeyBytes)
	}
	return k, nil
}

// ConfigFromEnv reads Config from BATON_* variables, with local defaults for unset ones.
func ConfigFromEnv() Config {
	sealKey, _ := sealKeyFromEnv()
	return Config{
		SealKey: sealKey,
		AgentCore: engine.AgentCoreIdentity{Region: env("BATON_AGENTCORE_REGION", env("AWS_REGION", "us-east-1")),
			AccountID: env("BATON_AGENTCORE_ACCOUNT_ID", "000000000000")},
		Table:                       env("BATON_TABLE", DefaultTable),
		StateMachineARN:             env("BATON_STATE_MACHINE_ARN", DefaultStateMachineARN),
		ActivityARN:                 env("BATON_ACTIVITY_ARN", DefaultActivityARN),
		HarnessKind:                 env("BATON_HARNESS_KIND", "baton"),
		RuntimeID:                   os.Getenv("BATON_RUNTIME_ID"),
		AdminKey:                    env("BATON_ADMIN_KEY", DefaultAdminKey),
		RuntimeCapabilities:         envList("BATON_RUNTIME_CAPABILITIES"),
		RuntimeShutdownGraceSeconds: envInt("BATON_SHUTDOWN_GRACE_SECONDS", 0),
		Timeouts: engine.Timeouts{
			RunSeconds:       envInt("BATON_RUN_TIMEOUT_SECONDS", engine.DefaultTimeouts.RunSeconds),
			HeartbeatSeconds: envInt("BATON_HEARTBEAT_SECONDS", engine.DefaultTimeouts.HeartbeatSeconds),
			AwaitSeconds:     envInt("BATON_AWAIT_TIMEOUT_SECONDS", engine.DefaultTimeouts.AwaitSeconds),
		},
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envList splits a comma-separated variable into its trimmed, non-empty entries; nil when unset or empty.
func envList(name string) []string {
	var out []string
	for _, s := range strings.Split(os.Getenv(name), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// Deps are the built components.
type Deps struct {
	Config       Config
	AWS          aws.Config
	DynamoDB     *dynamodb.Client
	SFN          *awssfn.Client
	Store        *dynamo.Store
	Orchestrator *sfn.Orchestrator
	Engine       *engine.Engine
}

// Load builds Deps from the environment and the AWS default configuration chain (which honours
// AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SFN). Every AWS request is counted by metrics.Middleware.
func Load(ctx context.Context) (*Deps, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	if _, err := sealKeyFromEnv(); err != nil {
		return nil, err
	}
	return New(ConfigFromEnv(), awsCfg, admission.Execution{}), nil
}

// New builds Deps from explicit configuration. adm is the Session admission port (admission.Execution{},
// Stage B of spec/agents-api-rules.md §3); nil admits every configuration. The engine always requires a live
// capable runtime before it opens a Turn (engine.Options.RequireLiveRuntime).
func New(cfg Config, awsCfg aws.Config, adm engine.Admission) *Deps {
	awsCfg = awsCfg.Copy()
	awsCfg.APIOptions = append(awsCfg.APIOptions, metrics.Middleware)
	db := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		// DynamoDB Local's error bodies fail the checksum check; the results are correct either way
		// (spec/local-infra.md §2).
		o.DisableValidateResponseChecksum = true
	})
	sf := awssfn.NewFromConfig(awsCfg)
	if adm != nil {
		// Configurations the AgentCore front door translated are admitted without its harness-run tool
		// declarations (docs/agentcore.md §3.8).
		adm = translate.Admission{Next: adm}
	}
	store := dynamo.New(db, cfg.Table)
	orch := sfn.New(sf, cfg.StateMachineARN)
	eng := engine.New(engine.Options{Store: store, Orchestrator: orch, Admission: adm, Timeouts: cfg.Timeouts, RequireLiveRuntime: true,
		AgentCore: cfg.AgentCore, SealKey: cfg.SealKey})
	return &Deps{Config: cfg, AWS: awsCfg, DynamoDB: db, SFN: sf, Store: store, Orchestrator: orch, Engine: eng}
}
