package setup

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

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
}

// Local defaults: the names the local stack uses (docs/internals.md "Local ARNs and names").
const (
	DefaultTable           = "baton"
	DefaultStateMachineARN = "arn:aws:states:us-east-1:000000000000:stateMachine:TurnStateMachine"
	DefaultActivityARN     = "arn:aws:states:us-east-1:000000000000:activity:BatonActivity"
	DefaultAdminKey        = "baton-local-admin"
)

// ConfigFromEnv reads Config from BATON_* variables, with local defaults for unset ones.
func ConfigFromEnv() Config {
	return Config{
		Table:           env("BATON_TABLE", DefaultTable),
		StateMachineARN: env("BATON_STATE_MACHINE_ARN", DefaultStateMachineARN),
		ActivityARN:     env("BATON_ACTIVITY_ARN", DefaultActivityARN),
		HarnessKind:     env("BATON_HARNESS_KIND", "baton"),
		RuntimeID:       os.Getenv("BATON_RUNTIME_ID"),
		AdminKey:        env("BATON_ADMIN_KEY", DefaultAdminKey),
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
	return New(ConfigFromEnv(), awsCfg, nil), nil
}

// New builds Deps from explicit configuration. admission may be nil (admit everything).
func New(cfg Config, awsCfg aws.Config, admission engine.Admission) *Deps {
	awsCfg = awsCfg.Copy()
	awsCfg.APIOptions = append(awsCfg.APIOptions, metrics.Middleware)
	db := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		// DynamoDB Local's error bodies fail the checksum check; the results are correct either way
		// (spec/local-infra.md §2).
		o.DisableValidateResponseChecksum = true
	})
	sf := awssfn.NewFromConfig(awsCfg)
	store := dynamo.New(db, cfg.Table)
	orch := sfn.New(sf, cfg.StateMachineARN)
	eng := engine.New(engine.Options{Store: store, Orchestrator: orch, Admission: admission, Timeouts: cfg.Timeouts})
	return &Deps{Config: cfg, AWS: awsCfg, DynamoDB: db, SFN: sf, Store: store, Orchestrator: orch, Engine: eng}
}
