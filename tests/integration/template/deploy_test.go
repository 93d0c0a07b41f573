package template_test

// Checks that template.yaml gives every deployed component what its code needs on AWS and nothing more: the
// environment each binary reads (shared/setup, the model providers) and the IAM actions each one calls
// (shared/store/dynamo, shared/orchestration/sfn, shared/runtime, shared/harness/bedrock). Resources built with
// !Sub from resource attributes resolve to "" locally (local/template), so resources are checked only where they
// come from !Ref / !GetAtt, and index access is checked by action.

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/runtime"
)

const (
	localTableARN = "arn:aws:dynamodb:us-east-1:000000000000:table/baton"
	localSMARN    = "arn:aws:states:us-east-1:000000000000:stateMachine:baton-local-turn-*" // every turn state machine of the stack
	testSecretARN = "arn:aws:secretsmanager:us-east-1:000000000000:secret:baton-providers-AbCdEf"
)

type statement struct {
	Sid       string
	Actions   []string
	Resources []string
}

// statementsOf collects every IAM statement (a map with "Effect") in v, whatever its nesting.
func statementsOf(t *testing.T, v any) []statement {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []statement
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["Effect"]; ok {
				if x["Effect"] != "Allow" {
					t.Errorf("statement %v: only Allow statements are expected", x)
				}
				sid, _ := x["Sid"].(string)
				out = append(out, statement{Sid: sid, Actions: stringsOf(x["Action"]), Resources: stringsOf(x["Resource"])})
				return
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			s, _ := e.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// actions returns the sorted, distinct actions of sts.
func actions(sts []statement) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range sts {
		for _, a := range s.Actions {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

// resourcesOf returns the resources of every statement that allows action.
func resourcesOf(sts []statement, action string) []string {
	var out []string
	for _, s := range sts {
		for _, a := range s.Actions {
			if a == action {
				out = append(out, s.Resources...)
			}
		}
	}
	return out
}

func functionStatements(t *testing.T, tpl *template.Template, id string) []statement {
	t.Helper()
	fn, err := tpl.CloudFormation().GetServerlessFunctionWithName(id)
	if err != nil {
		t.Fatal(err)
	}
	if fn.Policies == nil || fn.Policies.IAMPolicyDocumentArray == nil {
		t.Fatalf("%s: no inline policy statements", id)
	}
	var sts []statement
	for _, doc := range *fn.Policies.IAMPolicyDocumentArray {
		sts = append(sts, statementsOf(t, doc.Statement)...)
	}
	return sts
}

func roleStatements(t *testing.T, tpl *template.Template, id string) []statement {
	t.Helper()
	role, err := tpl.CloudFormation().GetIAMRoleWithName(id)
	if err != nil {
		t.Fatal(err)
	}
	var sts []statement
	for _, p := range role.Policies {
		sts = append(sts, statementsOf(t, p.PolicyDocument)...)
	}
	return sts
}

// taskTokenActions have no resource-level permissions in IAM: the statement must say "*".
var taskTokenActions = map[string]bool{"states:SendTaskSuccess": true, "states:SendTaskFailure": true, "states:SendTaskHeartbeat": true}

// TestFunctionPoliciesMatchTheCalls pins each function's actions to what its code calls. A missing action fails
// at runtime with AccessDenied (Park without PutItem could never store a task token); an extra one is a
// least-privilege regression. Store.Commit writes Puts only (PutItem / TransactWriteItems, which IAM authorizes
// per item as PutItem); UpdateItem is the AgentCore pause claim (ClaimPause/ReleasePause); DeleteItem is
// DeleteAgent; BatchGetItem is GetCalls/GetResults and the Session with its turn.
func TestFunctionPoliciesMatchTheCalls(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	tests := []struct {
		function string
		want     []string
	}{
		// JSON routes; DescribeExecution only for GET /readyz (an execution that never exists).
		{"ApiFunction", []string{"dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem",
			"dynamodb:Query", "dynamodb:UpdateItem", "states:DescribeExecution", "states:SendTaskSuccess", "states:StartExecution", "states:StopExecution"}},
		// Session create (starts the turn), the events tail, and InvokeHarness (a follow-up stores results, which
		// reads calls and results with BatchGetItem, and resumes the parked turn).
		{"StreamFunction", []string{"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query",
			"dynamodb:UpdateItem", "states:SendTaskSuccess", "states:StartExecution"}},
		{"ParkFunction", []string{"dynamodb:GetItem", "dynamodb:PutItem", "states:SendTaskSuccess"}},
		{"SettleFunction", []string{"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}},
		{"ReconcileFunction", []string{"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query",
			"states:DescribeExecution", "states:SendTaskSuccess", "states:StartExecution"}},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			t.Parallel()
			sts := functionStatements(t, tpl, tc.function)
			if diff := cmp.Diff(tc.want, actions(sts)); diff != "" {
				t.Errorf("%s IAM actions (-want +got):\n%s", tc.function, diff)
			}
			for _, s := range sts {
				for _, a := range s.Actions {
					star := len(s.Resources) == 1 && s.Resources[0] == "*"
					if taskTokenActions[a] != star {
						t.Errorf("%s statement %q: %s with resources %v (task-token actions need \"*\", every other action a scoped resource)",
							tc.function, s.Sid, a, s.Resources)
					}
				}
			}
			if got := resourcesOf(sts, "states:StartExecution"); len(got) > 0 && !cmp.Equal(got, []string{localSMARN}) {
				t.Errorf("%s StartExecution resources = %v, want the turn state machines only", tc.function, got)
			}
			if got := resourcesOf(sts, "dynamodb:GetItem"); !cmp.Equal(got, []string{localTableARN}) {
				t.Errorf("%s GetItem resources = %v, want the table only", tc.function, got)
			}
		})
	}
}

func TestStateMachineMayInvokeParkAndSettle(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	for _, id := range tpl.StateMachines() {
		sm, err := tpl.CloudFormation().GetServerlessStateMachineWithName(id)
		if err != nil {
			t.Fatal(err)
		}
		if sm.Policies == nil || sm.Policies.IAMPolicyDocumentArray == nil {
			t.Fatalf("%s: no inline policy statements", id)
		}
		var sts []statement
		for _, doc := range *sm.Policies.IAMPolicyDocumentArray {
			sts = append(sts, statementsOf(t, doc.Statement)...)
		}
		if diff := cmp.Diff([]string{"lambda:InvokeFunction"}, actions(sts)); diff != "" {
			t.Errorf("%s actions (-want +got):\n%s", id, diff)
		}
		want := []string{template.FunctionARN("ParkFunction"), template.FunctionARN("SettleFunction")}
		if diff := cmp.Diff(want, resourcesOf(sts, "lambda:InvokeFunction")); diff != "" {
			t.Errorf("%s lambda:InvokeFunction resources (-want +got):\n%s", id, diff)
		}
	}
}

func TestRuntimeTaskRoleMatchesTheCalls(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	sts := roleStatements(t, tpl, "BatonRuntimeTaskRole")
	want := []string{"bedrock-agentcore:ConnectBrowserAutomationStream", "bedrock-agentcore:GetGateway", "bedrock-agentcore:InvokeCodeInterpreter",
		"bedrock-agentcore:InvokeGateway", "bedrock-agentcore:StartBrowserSession", "bedrock-agentcore:StartCodeInterpreterSession",
		"bedrock-agentcore:StopBrowserSession", "bedrock-agentcore:StopCodeInterpreterSession",
		"bedrock:InvokeModelWithResponseStream", "dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem",
		"dynamodb:Query", "elasticfilesystem:ClientMount", "elasticfilesystem:ClientWrite",
		"states:GetActivityTask", "states:SendTaskFailure", "states:SendTaskHeartbeat", "states:SendTaskSuccess"}
	if diff := cmp.Diff(want, actions(sts)); diff != "" {
		t.Errorf("BatonRuntimeTaskRole actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{template.ActivityARN("BatonActivity")}, resourcesOf(sts, "states:GetActivityTask")); diff != "" {
		t.Errorf("GetActivityTask resources (-want +got): the runtime polls only its own kind's Activity:\n%s", diff)
	}
	for a := range taskTokenActions {
		if diff := cmp.Diff([]string{"*"}, resourcesOf(sts, a)); diff != "" {
			t.Errorf("%s resources (-want +got):\n%s", a, diff)
		}
	}
	if diff := cmp.Diff([]string{localTableARN}, resourcesOf(sts, "dynamodb:Query")); diff != "" {
		t.Errorf("runtime Query resources (-want +got): the runtime never queries gsi1:\n%s", diff)
	}
}

func TestFunctionTimeouts(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	tests := []struct {
		function string
		min, max int
	}{
		{"ApiFunction", 1, 29},         // API Gateway's non-streaming integration limit
		{"StreamFunction", 900, 900},   // streams last up to 14 min (httpapi.DefaultMaxStreamDuration)
		{"ReconcileFunction", 30, 300}, // runs every minute
	}
	for _, tc := range tests {
		fn, err := tpl.CloudFormation().GetServerlessFunctionWithName(tc.function)
		if err != nil {
			t.Fatal(err)
		}
		if fn.Timeout == nil || *fn.Timeout < tc.min || *fn.Timeout > tc.max {
			t.Errorf("%s Timeout = %v, want %d..%d", tc.function, fn.Timeout, tc.min, tc.max)
		}
	}
}

// TestTurnTimeoutsAreSharedAndDefaultToTheEngine: every function that starts turns puts the timeouts into the
// execution input, so they must come from one place (Globals) and default to the engine's.
func TestTurnTimeoutsAreSharedAndDefaultToTheEngine(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	want := map[string]string{
		"BATON_RUN_TIMEOUT_SECONDS":   strconv.Itoa(engine.DefaultTimeouts.RunSeconds),
		"BATON_HEARTBEAT_SECONDS":     strconv.Itoa(engine.DefaultTimeouts.HeartbeatSeconds),
		"BATON_AWAIT_TIMEOUT_SECONDS": strconv.Itoa(engine.DefaultTimeouts.AwaitSeconds),
	}
	for _, id := range []string{"ApiFunction", "StreamFunction", "ReconcileFunction"} {
		f, err := tpl.Function(id)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if f.Env[k] != v {
				t.Errorf("%s %s = %q, want %q", id, k, f.Env[k], v)
			}
		}
	}
}

func TestRuntimeContainerShutdownAndSecrets(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	td, err := tpl.CloudFormation().GetECSTaskDefinitionWithName("BatonRuntimeTaskDefinition")
	if err != nil {
		t.Fatal(err)
	}
	c := td.ContainerDefinitions[0]
	grace := int(runtime.DefaultShutdownGrace.Seconds())
	for _, kv := range c.Environment {
		if aws.ToString(kv.Name) == "BATON_SHUTDOWN_GRACE_SECONDS" {
			grace, _ = strconv.Atoi(aws.ToString(kv.Value))
		}
	}
	// After the grace the runtime fails what is left (one SendTaskFailure, up to 15 s) and deregisters.
	if c.StopTimeout == nil || *c.StopTimeout < grace+20 || *c.StopTimeout > 120 {
		t.Errorf("StopTimeout = %v, want between grace+20 (%d) and Fargate's 120", c.StopTimeout, grace+20)
	}
	if len(c.Secrets) != 0 {
		t.Errorf("without ModelProviderSecret the container has secrets %+v", c.Secrets)
	}
	if aws.ToString(td.TaskRoleArn) == aws.ToString(td.ExecutionRoleArn) {
		t.Errorf("task role and execution role are the same role %q", aws.ToString(td.TaskRoleArn))
	}
	if c.LogConfiguration == nil || c.LogConfiguration.LogDriver != "awslogs" {
		t.Errorf("log configuration = %+v, want awslogs", c.LogConfiguration)
	}
	if got := roleStatements(t, tpl, "RuntimeExecutionRole"); len(got) != 0 {
		t.Errorf("RuntimeExecutionRole without ModelProviderSecret has statements %+v", got)
	}

	// With a secret, ECS injects the variables the providers read (openai.OptionsFromEnv,
	// anthropic.OptionsFromEnv); the execution role (not the task role) may read it.
	withSecret, err := template.Load(filepath.Join(root, "template.yaml"), template.WithTableName("BatonTable", "baton"),
		template.WithParameter("ModelProviderSecret", testSecretARN))
	if err != nil {
		t.Fatal(err)
	}
	td, err = withSecret.CloudFormation().GetECSTaskDefinitionWithName("BatonRuntimeTaskDefinition")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range td.ContainerDefinitions[0].Secrets {
		got[s.Name] = s.ValueFrom
	}
	// ValueFrom comes from !Sub on a parameter; check the JSON key suffix, which is what ECS resolves.
	for _, name := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if v, ok := got[name]; !ok || !strings.HasSuffix(v, ":"+name+"::") {
			t.Errorf("secret %s = %q (present %v), want <ModelProviderSecret>:%s::", name, v, ok, name)
		}
	}
	exec := roleStatements(t, withSecret, "RuntimeExecutionRole")
	if diff := cmp.Diff([]string{"secretsmanager:GetSecretValue"}, actions(exec)); diff != "" {
		t.Errorf("RuntimeExecutionRole actions with a secret (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{testSecretARN}, resourcesOf(exec, "secretsmanager:GetSecretValue")); diff != "" {
		t.Errorf("GetSecretValue resources (-want +got):\n%s", diff)
	}
	for _, a := range actions(roleStatements(t, withSecret, "BatonRuntimeTaskRole")) {
		if strings.HasPrefix(a, "secretsmanager:") {
			t.Errorf("BatonRuntimeTaskRole has %s: the runtime never calls Secrets Manager", a)
		}
	}
}
