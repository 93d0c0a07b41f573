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

	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/codeinterpreter"
	"github.com/baton-run/baton/shared/codeinterpreter/awsci"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/gateway"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/anthropic"
	"github.com/baton-run/baton/shared/harness/bedrock"
	"github.com/baton-run/baton/shared/harness/mcp"
	"github.com/baton-run/baton/shared/harness/openai"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/shared/toolhost"
	"github.com/baton-run/baton/shared/workspace"
)

// harnessTools builds the runtime's builtin tools (docs/tools.md): the Session workspaces under
// BATON_WORKSPACE_ROOT (none when unset), the code interpreter of BATON_TOOL_PROVIDER (local: in the workspace's
// sandbox; aws: the AgentCore Code Interpreter), and the MCP connector with gateway support (BATON_GATEWAY_URLS;
// with aws also GetGateway), whose capability it returns in extra.
func harnessTools(ctx context.Context, deps *setup.Deps) (runtime.ToolHost, *mcp.Connector, []string, error) {
	aws := deps.Config.ToolProvider == setup.ToolProviderAWS
	urls, err := gateway.LoadURLs(os.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	resolver := gateway.StaticResolver{URLs: urls}
	if aws {
		if resolver, _, err = gateway.Configure(os.Getenv, deps.AWS); err != nil {
			return nil, nil, nil, err
		}
	}
	connector := &mcp.Connector{Gateways: resolver, Signer: gateway.Signer{Credentials: deps.AWS.Credentials}}
	extra := []string{profile.CapGateway}
	if deps.Config.WorkspaceRoot == "" {
		return nil, connector, extra, nil
	}
	limits, err := workspace.LimitsFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := workspace.NewManager(deps.Config.WorkspaceRoot, limits, slog.Default())
	if err != nil {
		return nil, nil, nil, err
	}
	var ci toolhost.CodeInterpreterFactory
	if aws {
		client := bedrockagentcore.NewFromConfig(deps.AWS)
		ci = func(_ context.Context, sessionID string, decl agent.HostedTool, _ *workspace.Workspace) (codeinterpreter.Provider, error) {
			return awsci.New(client, decl.ARN, awsci.Options{SessionName: sessionID}), nil
		}
	}
	return toolhost.New(m, ci), connector, extra, nil
}

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
	tools, connector, extra, err := harnessTools(ctx, deps)
	if err != nil {
		slog.Error("setup", "error", err)
		os.Exit(1)
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
		MCP:           connector, Tools: tools, ExtraCapabilities: extra,
	})
	if err == nil {
		err = rt.Run(ctx)
	}
	if err != nil {
		slog.Error("runtime", "error", err)
		os.Exit(1)
	}
}
