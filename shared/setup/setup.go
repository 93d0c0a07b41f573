package setup

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/metrics"
	"github.com/baton-run/baton/shared/metrics/emf"
	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/store/dynamo"
)

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

// FromEnvironment is how a deployed process starts: Load(os.Getenv, c), the AWS SDK's default configuration chain
// (region, credentials, AWS_ENDPOINT_URL_*), then New. adm is the Session admission port: admission.Execution{}
// in the processes that create Sessions (API, Stream), nil elsewhere, so the task functions do not link admission.
// Errors: the *ConfigError of Load, or the AWS configuration's error.
func FromEnvironment(ctx context.Context, c Component, adm engine.Admission) (*Deps, error) {
	cfg, err := Load(os.Getenv, c)
	if err != nil {
		return nil, err
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	return New(cfg, awsCfg, adm), nil
}

// New builds Deps from explicit configuration: DynamoDB and Step Functions clients from awsCfg (cfg.Endpoints
// override their endpoints), the store on cfg.Table, the orchestrator on cfg.StateMachineARNs and the engine. adm
// is the Session admission port (admission.Execution{}, docs/internals.md); nil admits every configuration. The
// engine always requires a live capable runtime before it opens a Turn (engine.Options.RequireLiveRuntime). Every
// AWS request is counted by metrics.Middleware. The engine's measurements are written to stdout as CloudWatch
// embedded metric format lines (package metrics/emf, docs/operations.md §3).
func New(cfg Config, awsCfg aws.Config, adm engine.Admission) *Deps {
	awsCfg = awsCfg.Copy()
	awsCfg.APIOptions = append(awsCfg.APIOptions, metrics.Middleware)
	db := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		// DynamoDB Local's error bodies fail the checksum check; the results are correct either way.
		o.DisableValidateResponseChecksum = true
		if cfg.Endpoints.DynamoDB != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoints.DynamoDB)
		}
	})
	sf := awssfn.NewFromConfig(awsCfg, func(o *awssfn.Options) {
		if cfg.Endpoints.SFN != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoints.SFN)
		}
	})
	store := dynamo.New(db, cfg.Table)
	orch := sfn.New(sf, cfg.StateMachineARNs)
	eng := engine.New(engine.Options{Store: store, Orchestrator: orch, Admission: adm, Timeouts: cfg.Timeouts, RequireLiveRuntime: true,
		AgentCore: cfg.AgentCore, SealKey: cfg.SealKey, DefaultModelProvider: cfg.DefaultModelProvider,
		Metrics: emf.New(os.Stdout, nil), CommitListener: localWake(cfg.LocalWakeURL)})
	return &Deps{Config: cfg, AWS: awsCfg, DynamoDB: db, SFN: sf, Store: store, Orchestrator: orch, Engine: eng}
}
