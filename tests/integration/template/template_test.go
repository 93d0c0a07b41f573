package template_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/shared/store/dynamo"
)

const root = "../../.."

func load(t *testing.T) *template.Template {
	t.Helper()
	tpl, err := template.Load(filepath.Join(root, "template.yaml"), template.WithTableName("BatonTable", "baton"))
	if err != nil {
		t.Fatalf("Load template.yaml: %v", err)
	}
	return tpl
}

// skipOrFail skips a test whose tool is missing, except under CI=true (docs/decisions.md §12).
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true does not skip)", args...)
	}
	t.Skipf(format, args...)
}

func TestFunctionsAreBuiltFromTheirCodeFolders(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	fns := tpl.Functions()
	var ids []string
	for _, f := range fns {
		ids = append(ids, f.LogicalID)
	}
	want := []string{"ApiFunction", "ParkFunction", "ReconcileFunction", "SettleFunction", "StreamFunction"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("functions (-want +got):\n%s", diff)
	}
	for _, f := range fns {
		t.Run(f.LogicalID, func(t *testing.T) {
			t.Parallel()
			st, err := os.Stat(f.CodeDir)
			if err != nil || !st.IsDir() {
				t.Fatalf("code folder %s: %v", f.CodeDir, err)
			}
			if mains, _ := filepath.Glob(filepath.Join(f.CodeDir, "*.go")); len(mains) == 0 {
				t.Errorf("code folder %s has no Go files", f.CodeDir)
			}
			type shape struct{ Runtime, Handler, Arch, BuildMethod, CodeURI string }
			fn, err := tpl.CloudFormation().GetServerlessFunctionWithName(f.LogicalID)
			if err != nil {
				t.Fatal(err)
			}
			got := shape{f.Runtime, f.Handler, strings.Join(f.Architectures, ","), f.BuildMethod, aws.ToString(fn.CodeUri.String)}
			if diff := cmp.Diff(shape{"provided.al2023", "bootstrap", "arm64", "makefile", "."}, got); diff != "" {
				t.Errorf("build shape (-want +got):\n%s", diff)
			}
			// sam build runs `make build-<LogicalId>` in CodeUri (the root).
			target := regexp.MustCompile(`(?m)^build-` + f.LogicalID + `:`)
			if !target.Match(makefile) {
				t.Errorf("Makefile has no build-%s target", f.LogicalID)
			}
			if !strings.Contains(string(makefile), "./"+filepath.ToSlash(mustRel(t, f.CodeDir))) {
				t.Errorf("Makefile does not build ./%s", mustRel(t, f.CodeDir))
			}
		})
	}
}

func mustRel(t *testing.T, dir string) string {
	t.Helper()
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(absRoot, dir)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestFunctionEnvironmentResolvesLocally(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	smARNs := "baton=arn:aws:states:us-east-1:000000000000:stateMachine:BatonTurnStateMachine," +
		"codex=arn:aws:states:us-east-1:000000000000:stateMachine:CodexTurnStateMachine," +
		"claude_sdk=arn:aws:states:us-east-1:000000000000:stateMachine:ClaudeSdkTurnStateMachine," +
		"mcode=arn:aws:states:us-east-1:000000000000:stateMachine:McodeTurnStateMachine"
	// Every function reads shared/setup's configuration, so every one gets the table and the turn timeouts
	// (Globals); BATON_ADMIN_KEY only where /admin/v1 is routed (the AdminKey parameter has no default, so it
	// resolves to "" locally); the state machine where turns are started. The SDK endpoint variables are declared
	// empty for every function, and BATON_AGENTCORE_REGION for api and stream, so that `sam local --env-vars` can set
	// them (local/sam-env.json).
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{"BATON_TABLE": "baton", "BATON_RUN_TIMEOUT_SECONDS": "3600", "BATON_HEARTBEAT_SECONDS": "60",
			"BATON_AWAIT_TIMEOUT_SECONDS": "86400", "AWS_ENDPOINT_URL_DYNAMODB": "", "AWS_ENDPOINT_URL_SFN": ""}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		function string
		want     map[string]string
	}{
		// BATON_SEAL_KEY is the SealKey parameter (empty by default); the AgentCore ARNs carry the account id.
		// BATON_MODEL_PROVIDER where Sessions are created (the DefaultModelProvider parameter, Bedrock by default).
		{"ApiFunction", with(map[string]string{"BATON_STATE_MACHINE_ARNS": smARNs, "BATON_ADMIN_KEY": "", "BATON_SEAL_KEY": "", "BATON_AGENTCORE_ACCOUNT_ID": "000000000000",
			"BATON_AGENTCORE_REGION": "", "BATON_MODEL_PROVIDER": "bedrock_converse"})},
		{"StreamFunction", with(map[string]string{"BATON_STATE_MACHINE_ARNS": smARNs, "BATON_SEAL_KEY": "", "BATON_AGENTCORE_ACCOUNT_ID": "000000000000",
			"BATON_AGENTCORE_REGION": "", "BATON_MODEL_PROVIDER": "bedrock_converse"})},
		{"ReconcileFunction", with(map[string]string{"BATON_STATE_MACHINE_ARNS": smARNs})},
		{"ParkFunction", with(nil)},
		{"SettleFunction", with(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			t.Parallel()
			f, err := tpl.Function(tc.function)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.Env); diff != "" {
				t.Errorf("environment (-want +got):\n%s", diff)
			}
		})
	}
	reconcile, _ := tpl.Function("ReconcileFunction")
	if diff := cmp.Diff([]string{"rate(1 minute)"}, reconcile.Schedules); diff != "" {
		t.Errorf("ReconcileFunction schedules (-want +got):\n%s", diff)
	}
}

func TestStateMachineSubstitutionsMatchPlaceholders(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	// One state machine per harness kind (docs/decisions.md §6), each tagged with its kind and running on that
	// kind's Activity.
	kinds := map[string]string{"BatonTurnStateMachine": "baton", "ClaudeSdkTurnStateMachine": "claude_sdk",
		"CodexTurnStateMachine": "codex", "McodeTurnStateMachine": "mcode"}
	if diff := cmp.Diff([]string{"BatonTurnStateMachine", "ClaudeSdkTurnStateMachine", "CodexTurnStateMachine", "McodeTurnStateMachine"}, tpl.StateMachines()); diff != "" {
		t.Fatalf("state machines (-want +got):\n%s", diff)
	}
	for _, id := range tpl.StateMachines() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			sm, err := tpl.StateMachine(id)
			if err != nil {
				t.Fatal(err)
			}
			def, err := os.ReadFile(sm.DefinitionPath)
			if err != nil {
				t.Fatal(err)
			}
			var subs []string
			for k := range sm.Substitutions {
				subs = append(subs, k)
			}
			sort.Strings(subs)
			if diff := cmp.Diff(template.Placeholders(string(def)), subs); diff != "" {
				t.Errorf("placeholders (-) vs DefinitionSubstitutions (+): every placeholder needs a substitution and every substitution must be used:\n%s", diff)
			}
			if _, err := tpl.Render(id); err != nil {
				t.Errorf("Render: %v", err)
			}
			activity := strings.TrimSuffix(id, "TurnStateMachine") + "Activity"
			want := map[string]string{
				"ActivityArn":       "arn:aws:states:us-east-1:000000000000:activity:" + activity,
				"ParkFunctionArn":   "arn:aws:lambda:us-east-1:000000000000:function:ParkFunction",
				"SettleFunctionArn": "arn:aws:lambda:us-east-1:000000000000:function:SettleFunction",
			}
			if diff := cmp.Diff(want, sm.Substitutions); diff != "" {
				t.Errorf("substitutions (-want +got; docs/internals.md):\n%s", diff)
			}
			if got := sm.Tags["baton:harness-kind"]; got != kinds[id] {
				t.Errorf("tag baton:harness-kind = %q, want %q", got, kinds[id])
			}
			if !strings.HasSuffix(sm.DefinitionPath, "statemachines/turn.asl.json") {
				t.Errorf("definition %s, want the one turn definition", sm.DefinitionPath)
			}
		})
	}
	if diff := cmp.Diff([]string{"BatonActivity", "ClaudeSdkActivity", "CodexActivity", "McodeActivity"}, tpl.Activities()); diff != "" {
		t.Errorf("activities (-want +got):\n%s", diff)
	}
}

func TestTableKeysAreTheStoreKeys(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	in, err := tpl.CreateTableInput("BatonTable", "baton")
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ Name, Type string }
	type index struct {
		Name       string
		Keys       []key
		Projection string
	}
	type table struct {
		Keys       []key
		Indexes    []index
		Attributes map[string]string
		Billing    string
		TTL        string
	}
	got := table{Attributes: map[string]string{}, Billing: string(in.BillingMode)}
	for _, k := range in.KeySchema {
		got.Keys = append(got.Keys, key{aws.ToString(k.AttributeName), string(k.KeyType)})
	}
	for _, g := range in.GlobalSecondaryIndexes {
		ix := index{Name: aws.ToString(g.IndexName), Projection: string(g.Projection.ProjectionType)}
		for _, k := range g.KeySchema {
			ix.Keys = append(ix.Keys, key{aws.ToString(k.AttributeName), string(k.KeyType)})
		}
		got.Indexes = append(got.Indexes, ix)
	}
	for _, a := range in.AttributeDefinitions {
		got.Attributes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	if got.TTL, err = tpl.TTLAttribute("BatonTable"); err != nil {
		t.Fatal(err)
	}
	want := table{
		Keys: []key{{dynamo.PartitionKey, "HASH"}, {dynamo.SortKey, "RANGE"}},
		Indexes: []index{{
			Name:       dynamo.GSI1Name,
			Keys:       []key{{dynamo.GSI1PartitionKey, "HASH"}, {dynamo.GSI1SortKey, "RANGE"}},
			Projection: "ALL",
		}},
		Attributes: map[string]string{
			dynamo.PartitionKey: "S", dynamo.SortKey: "S", dynamo.GSI1PartitionKey: "S", dynamo.GSI1SortKey: "S",
		},
		Billing: "PAY_PER_REQUEST",
		TTL:     dynamo.TTLAttribute,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table (-want store keys, +got template.yaml):\n%s", diff)
	}
}

func TestRuntimeTaskDefinition(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	td, err := tpl.CloudFormation().GetECSTaskDefinitionWithName("BatonRuntimeTaskDefinition")
	if err != nil {
		t.Fatal(err)
	}
	if len(td.ContainerDefinitions) != 1 {
		t.Fatalf("containers = %d, want 1", len(td.ContainerDefinitions))
	}
	env := map[string]string{}
	for _, kv := range td.ContainerDefinitions[0].Environment {
		env[aws.ToString(kv.Name)] = aws.ToString(kv.Value)
	}
	want := map[string]string{
		"BATON_TABLE":                  "baton",
		"BATON_ACTIVITY_ARN":           "arn:aws:states:us-east-1:000000000000:activity:BatonActivity",
		"BATON_HARNESS_KIND":           "baton",
		"BATON_SHUTDOWN_GRACE_SECONDS": "25",
		"BATON_SEAL_KEY":               "",
		"AWS_REGION":                   "us-east-1",
		"BATON_WORKSPACE_ROOT":         "/var/lib/baton/workspaces",
		"BATON_TOOL_PROVIDER":          "aws",
	}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("runtime container environment (-want +got):\n%s", diff)
	}
	// The workspaces live on EFS, mounted where BATON_WORKSPACE_ROOT points (docs/tools.md "Workspace").
	if len(td.Volumes) != 1 || td.Volumes[0].EFSVolumeConfiguration == nil || len(td.ContainerDefinitions[0].MountPoints) != 1 ||
		aws.ToString(td.ContainerDefinitions[0].MountPoints[0].ContainerPath) != env["BATON_WORKSPACE_ROOT"] ||
		aws.ToString(td.ContainerDefinitions[0].MountPoints[0].SourceVolume) != aws.ToString(td.Volumes[0].Name) {
		t.Errorf("volumes %+v, mount points %+v: want the EFS workspace volume mounted at BATON_WORKSPACE_ROOT", td.Volumes, td.ContainerDefinitions[0].MountPoints)
	}
	if rp := td.RuntimePlatform; rp == nil || aws.ToString(rp.CpuArchitecture) != "ARM64" {
		t.Errorf("runtime platform = %+v, want ARM64", rp)
	}
}

func TestCfnLintPasses(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		skipOrFail(t, "cfn-lint not installed")
	}
	cmd := exec.CommandContext(t.Context(), bin, "template.yaml")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cfn-lint template.yaml: %v\n%s", err, out)
	}
}

func TestASLValidatorPasses(t *testing.T) {
	t.Parallel()
	var bin string
	for _, dir := range []string{os.Getenv("BATON_NODE_MODULES"), filepath.Join(root, "tools", "node_modules"), filepath.Join(root, ".tools", "node_modules")} {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, ".bin", "asl-validator"); fileExists(p) {
			bin = p
			break
		}
	}
	if bin == "" {
		skipOrFail(t, "asl-validator not installed (run `make tools`)")
	}
	defs, err := filepath.Glob(filepath.Join(root, "statemachines", "*.asl.json"))
	if err != nil || len(defs) == 0 {
		t.Fatalf("no statemachines/*.asl.json (%v)", err)
	}
	for _, def := range defs {
		out, err := exec.CommandContext(t.Context(), bin, "--json-path", def).CombinedOutput()
		if err != nil {
			t.Errorf("asl-validator %s: %v\n%s", def, err, out)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
