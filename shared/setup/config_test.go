package setup_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/setup"
)

const (
	smARN    = "arn:aws:states:eu-west-1:123456789012:stateMachine:baton-turn-baton"
	codexARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:baton-turn-codex"
	smARNs   = "baton=" + smARN + ", codex=" + codexARN
	actARN   = "arn:aws:states:eu-west-1:123456789012:activity:BatonActivity"
	adminKey = "0123456789abcdef0123456789abcdef"
)

// machines is what smARNs parses to.
var machines = map[string]string{"baton": smARN, "codex": codexARN}

// env is a getenv over a fixed map (unset = "").
func env(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestLoadReadsEachComponentsSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    setup.Component
		env  map[string]string
		want setup.Config
	}{
		{
			name: "the API gets its table, state machine, admin key and the default timeouts",
			c:    setup.API,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs, "BATON_ADMIN_KEY": adminKey, "AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012"},
			want: setup.Config{Table: "baton-prod", StateMachineARNs: machines, AdminKey: adminKey, Timeouts: engine.DefaultTimeouts, AgentCore: engine.AgentCoreIdentity{Region: "eu-west-1", AccountID: "123456789012"}},
		},
		{
			name: "the API reads explicit timeouts",
			c:    setup.API,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs, "BATON_ADMIN_KEY": adminKey,
				"BATON_RUN_TIMEOUT_SECONDS": "600", "BATON_HEARTBEAT_SECONDS": "30", "BATON_AWAIT_TIMEOUT_SECONDS": "7200", "AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012",
				"BATON_AGENTCORE_REGION": "eu-central-1", "BATON_SEAL_KEY": setup.DefaultSealKey},
			want: setup.Config{Table: "baton-prod", StateMachineARNs: machines, AdminKey: adminKey,
				Timeouts:  engine.Timeouts{RunSeconds: 600, HeartbeatSeconds: 30, AwaitSeconds: 7200},
				AgentCore: engine.AgentCoreIdentity{Region: "eu-central-1", AccountID: "123456789012"},
				SealKey:   []byte("baton-local-seal-key-not-secret!")},
		},
		{
			name: "the stream function runs without an admin key",
			c:    setup.Stream,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs, "AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012"},
			want: setup.Config{Table: "baton-prod", StateMachineARNs: machines, Timeouts: engine.DefaultTimeouts, AgentCore: engine.AgentCoreIdentity{Region: "eu-west-1", AccountID: "123456789012"}},
		},
		{
			name: "park needs only the table and ignores settings it does not use",
			c:    setup.Park,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_RUN_TIMEOUT_SECONDS": "garbage", "BATON_ADMIN_KEY": "short"},
			want: setup.Config{Table: "baton-prod"},
		},
		{
			name: "settle needs only the table",
			c:    setup.Settle,
			env:  map[string]string{"BATON_TABLE": "baton-prod"},
			want: setup.Config{Table: "baton-prod"},
		},
		{
			name: "reconcile gets the state machine and the timeouts",
			c:    setup.Reconcile,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs},
			want: setup.Config{Table: "baton-prod", StateMachineARNs: machines, Timeouts: engine.DefaultTimeouts},
		},
		{
			name: "a runtime gets its activity, kind, id, capabilities and shutdown grace",
			c:    setup.Runtime,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": actARN, "BATON_HARNESS_KIND": "baton",
				"BATON_RUNTIME_ID": "rt_1", "BATON_RUNTIME_CAPABILITIES": " streaming, ,durable_turns ", "BATON_SHUTDOWN_GRACE_SECONDS": "25"},
			want: setup.Config{Table: "baton-prod", ActivityARN: actARN, HarnessKind: "baton", RuntimeID: "rt_1",
				RuntimeCapabilities: []string{"streaming", "durable_turns"}, RuntimeShutdownGraceSeconds: 25, ToolProvider: "local"},
		},
		{
			name: "a runtime reads its workspace root and tool provider",
			c:    setup.Runtime,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": actARN, "BATON_WORKSPACE_ROOT": "/var/lib/baton/workspaces",
				"BATON_TOOL_PROVIDER": "aws"},
			want: setup.Config{Table: "baton-prod", ActivityARN: actARN, HarnessKind: setup.DefaultHarnessKind,
				WorkspaceRoot: "/var/lib/baton/workspaces", ToolProvider: "aws"},
		},
		{
			name: "a runtime without a kind hosts the baton harness",
			c:    setup.Runtime,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": actARN},
			want: setup.Config{Table: "baton-prod", ActivityARN: actARN, HarnessKind: setup.DefaultHarnessKind, ToolProvider: "local"},
		},
		{
			name: "surrounding blanks are trimmed",
			c:    setup.Settle,
			env:  map[string]string{"BATON_TABLE": "  baton-prod\n"},
			want: setup.Config{Table: "baton-prod"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := setup.Load(env(tc.env), tc.c)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Load (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadNamesEveryMissingOrMalformedSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    setup.Component
		env  map[string]string
		want []setup.Problem
	}{
		{
			name: "an empty environment names every setting the API requires, with no local fallback",
			c:    setup.API,
			env:  nil,
			want: []setup.Problem{{"BATON_TABLE", "is required"}, {"BATON_STATE_MACHINE_ARNS", "is required"}, {"BATON_ADMIN_KEY", "is required"},
				{"BATON_AGENTCORE_REGION", "is required (or AWS_REGION)"}, {"BATON_AGENTCORE_ACCOUNT_ID", `must be the 12-digit AWS account id, got ""`}},
		},
		{
			name: "an empty environment names the table for park",
			c:    setup.Park,
			want: []setup.Problem{{"BATON_TABLE", "is required"}},
		},
		{
			name: "an empty environment names the table and activity for a runtime",
			c:    setup.Runtime,
			want: []setup.Problem{{"BATON_TABLE", "is required"}, {"BATON_ACTIVITY_ARN", "is required"}},
		},
		{
			name: "reconcile without a state machine is refused",
			c:    setup.Reconcile,
			env:  map[string]string{"BATON_TABLE": "baton-prod"},
			want: []setup.Problem{{"BATON_STATE_MACHINE_ARNS", "is required"}},
		},
		{
			name: "every malformed value is named at once",
			c:    setup.API,
			env: map[string]string{"BATON_TABLE": "a/b", "BATON_STATE_MACHINE_ARNS": "baton=" + actARN, "BATON_ADMIN_KEY": "baton-local-admin",
				"BATON_RUN_TIMEOUT_SECONDS": "1h", "BATON_HEARTBEAT_SECONDS": "0", "BATON_AWAIT_TIMEOUT_SECONDS": "-5",
				"BATON_SEAL_KEY": "c2hvcnQ=", "AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "12345"},
			want: []setup.Problem{
				{"BATON_TABLE", `must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -), got "a/b"`},
				{"BATON_STATE_MACHINE_ARNS", `harness kind "baton": must be a Step Functions stateMachine ARN (arn:<partition>:states:<region>:<account>:stateMachine:<name>), got "` + actARN + `"`},
				{"BATON_ADMIN_KEY", "must be at least 32 bytes"},
				{"BATON_SEAL_KEY", "must be the standard base64 of 32 bytes"},
				{"BATON_AGENTCORE_ACCOUNT_ID", `must be the 12-digit AWS account id, got "12345"`},
				{"BATON_RUN_TIMEOUT_SECONDS", `must be a positive integer of seconds, got "1h"`},
				{"BATON_HEARTBEAT_SECONDS", `must be a positive integer of seconds, got "0"`},
				{"BATON_AWAIT_TIMEOUT_SECONDS", `must be a positive integer of seconds, got "-5"`},
			},
		},
		{
			name: "a heartbeat timeout not below the run timeout is refused",
			c:    setup.Stream,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs,
				"BATON_RUN_TIMEOUT_SECONDS": "60", "BATON_HEARTBEAT_SECONDS": "60", "AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012"},
			want: []setup.Problem{{"BATON_HEARTBEAT_SECONDS", "must be below BATON_RUN_TIMEOUT_SECONDS (60), got 60"}},
		},
		{
			name: "an admin key given to the stream function must still be long enough",
			c:    setup.Stream,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs, "BATON_ADMIN_KEY": "short",
				"AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012"},
			want: []setup.Problem{{"BATON_ADMIN_KEY", "must be at least 32 bytes"}},
		},
		{
			name: "an ARN with an empty part or the wrong service is refused",
			c:    setup.Runtime,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": "arn:aws:lambda:eu-west-1:123456789012:activity:X",
				"BATON_SHUTDOWN_GRACE_SECONDS": "soon"},
			want: []setup.Problem{
				{"BATON_ACTIVITY_ARN", `must be a Step Functions activity ARN (arn:<partition>:states:<region>:<account>:activity:<name>), got "arn:aws:lambda:eu-west-1:123456789012:activity:X"`},
				{"BATON_SHUTDOWN_GRACE_SECONDS", `must be a non-negative integer of seconds, got "soon"`},
			},
		},
		{
			name: "a relative workspace root, an unknown tool provider and an unknown default model provider are refused",
			c:    setup.Runtime,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": actARN, "BATON_WORKSPACE_ROOT": "data/ws",
				"BATON_TOOL_PROVIDER": "gcp"},
			want: []setup.Problem{
				{"BATON_WORKSPACE_ROOT", `must be an absolute path, got "data/ws"`},
				{"BATON_TOOL_PROVIDER", `must be local or aws, got "gcp"`},
			},
		},
		{
			name: "a default model provider must be a real provider",
			c:    setup.Stream,
			env: map[string]string{"BATON_TABLE": "baton-prod", "BATON_STATE_MACHINE_ARNS": smARNs, "BATON_MODEL_PROVIDER": "scripted",
				"AWS_REGION": "eu-west-1", "BATON_AGENTCORE_ACCOUNT_ID": "123456789012"},
			want: []setup.Problem{{"BATON_MODEL_PROVIDER", `must be one of bedrock_converse, openai_responses, openai_chat, anthropic_messages, or empty for none, got "scripted"`}},
		},
		{
			name: "an activity ARN without an account is refused",
			c:    setup.Runtime,
			env:  map[string]string{"BATON_TABLE": "baton-prod", "BATON_ACTIVITY_ARN": "arn:aws:states:eu-west-1::activity:X"},
			want: []setup.Problem{
				{"BATON_ACTIVITY_ARN", `must be a Step Functions activity ARN (arn:<partition>:states:<region>:<account>:activity:<name>), got "arn:aws:states:eu-west-1::activity:X"`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := setup.Load(env(tc.env), tc.c)
			var ce *setup.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %+v, %v; want a *ConfigError", got, err)
			}
			if diff := cmp.Diff(tc.want, ce.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(setup.Config{}, got); diff != "" {
				t.Errorf("a failed Load returned a partial Config (-want +got):\n%s", diff)
			}
			for _, p := range tc.want {
				if !strings.Contains(err.Error(), p.Name+" "+p.Reason) {
					t.Errorf("error %q does not name %s", err, p.Name)
				}
			}
		})
	}
}

func TestLoadRefusesAnUnknownComponent(t *testing.T) {
	t.Parallel()
	_, err := setup.Load(env(map[string]string{"BATON_TABLE": "baton-prod"}), "batch")
	if err == nil || !strings.Contains(err.Error(), `unknown component "batch"`) {
		t.Errorf("Load(batch) error = %v, want unknown component", err)
	}
}

func TestStateMachineARNsParseAndFormat(t *testing.T) {
	t.Parallel()
	got, err := setup.ParseStateMachineARNs(smARNs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(machines, got); diff != "" {
		t.Errorf("ParseStateMachineARNs (-want +got):\n%s", diff)
	}
	if back := setup.FormatStateMachineARNs(got); back != "baton="+smARN+",codex="+codexARN {
		t.Errorf("FormatStateMachineARNs = %q", back)
	}
	for _, bad := range []string{"baton", "=" + smARN, "baton=" + smARN + ",baton=" + smARN, "baton=" + actARN} {
		if _, err := setup.ParseStateMachineARNs(bad); err == nil {
			t.Errorf("ParseStateMachineARNs(%q) accepted it", bad)
		}
	}
}
