// Command baton-runtime is the runtime container of the `baton` harness (docs/decisions.md "Shape": runtimes/<kind>): it
// registers itself, long-polls the harness kind's Activity and runs each turn step with the baton harness.
// Configuration is the environment, read by setup.Load for setup.Runtime (docs/configuration.md: BATON_TABLE and
// BATON_ACTIVITY_ARN required; BATON_HARNESS_KIND, BATON_RUNTIME_ID, BATON_RUNTIME_CAPABILITIES,
// BATON_SHUTDOWN_GRACE_SECONDS, AWS_ENDPOINT_URL_*; model providers: docs/model-providers.md); it exits naming
// every missing or malformed setting. SIGTERM or SIGINT starts a graceful shutdown.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/anthropic"
	"github.com/baton-run/baton/shared/harness/bedrock"
	"github.com/baton-run/baton/shared/harness/openai"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/setup"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	deps, err := setup.FromEnvironment(ctx, setup.Runtime, nil)
	if err != nil {
		slog.Error("setup", "error", err)
		os.Exit(1)
	}
	id := deps.Config.RuntimeID
	if id == "" {
		id = engine.NewID("rt")
	}
	providers := harness.Providers{}
	scripted.Register(providers)
	bedrock.Register(providers, deps.AWS)
	openai.Register(providers, openai.OptionsFromEnv())
	anthropic.Register(providers, anthropic.OptionsFromEnv())
	rt, err := runtime.New(deps.Engine, deps.SFN, runtime.Config{
		ID: id, Kind: deps.Config.HarnessKind, ActivityARN: deps.Config.ActivityARN, Version: version, Providers: providers,
		Capabilities:  deps.Config.RuntimeCapabilities,
		ShutdownGrace: time.Duration(deps.Config.RuntimeShutdownGraceSeconds) * time.Second,
	})
	if err == nil {
		err = rt.Run(ctx)
	}
	if err != nil {
		slog.Error("runtime", "error", err)
		os.Exit(1)
	}
}
