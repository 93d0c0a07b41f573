package template_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/setup"
)

// samEnvFile is the env-vars file of `sam local` (README "sam local").
const samEnvFile = "local/sam-env.json"

// localStackEndpoints are the AWS SDK endpoint variables a function needs to reach `make local`'s DynamoDB Local and
// Step Functions endpoint (docs/configuration.md: the SDK reads them, not setup.Load).
var localStackEndpoints = []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SFN"}

// setByLambda are variables setup.Load reads that the Lambda runtime (and `sam local`) sets itself; a template may
// not declare them (reserved keys).
var setByLambda = []string{setup.EnvRegion}

// notDeployed are variables a function's setup.Load reads that template.yaml deliberately leaves unset for it: the
// StreamFunction runs without BATON_ADMIN_KEY (no admin routes there).
var notDeployed = map[string][]string{"StreamFunction": {setup.EnvAdminKey}}

// readsOf lists, sorted, every variable setup.Load reads for component c: it runs Load with a getenv that records
// each name and answers "" (so every fallback is read too, e.g. AWS_REGION after BATON_AGENTCORE_REGION).
func readsOf(t *testing.T, c setup.Component) []string {
	t.Helper()
	seen := map[string]bool{}
	_, _ = setup.Load(func(name string) string { seen[name] = true; return "" }, c)
	if len(seen) == 0 {
		t.Fatalf("setup.Load(%s) read nothing", c)
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func loadSAMEnv(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, samEnvFile))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s is not SAM's env-vars format {\"<LogicalId>\": {\"VAR\": \"value\"}}: %v", samEnvFile, err)
	}
	return env
}

// TestTheSAMEnvFileNamesExactlyWhatEachFunctionReads: for every function of template.yaml, local/sam-env.json
// names exactly the variables its setup.Load reads (less AWS_REGION, which Lambda sets, and what the deployment
// deliberately leaves unset) plus the local stack's AWS_ENDPOINT_URL_*; with them (and AWS_REGION) Load accepts the
// configuration; and every one is declared in the function's template environment, because `sam local` silently
// drops env-vars entries the template does not declare.
func TestTheSAMEnvFileNamesExactlyWhatEachFunctionReads(t *testing.T) {
	t.Parallel()
	env := loadSAMEnv(t)
	tpl := loadDeployed(t)
	fns := tpl.Functions()
	var ids []string
	for _, f := range fns {
		ids = append(ids, f.LogicalID)
	}
	var fileIDs []string
	for id := range env {
		fileIDs = append(fileIDs, id)
	}
	sort.Strings(ids)
	sort.Strings(fileIDs)
	if diff := cmp.Diff(ids, fileIDs); diff != "" {
		t.Errorf("functions of %s vs template.yaml (-template +file):\n%s", samEnvFile, diff)
	}
	for _, f := range fns {
		t.Run(f.LogicalID, func(t *testing.T) {
			c, ok := components[f.LogicalID]
			if !ok {
				t.Fatalf("no setup.Component known for %s", f.LogicalID)
			}
			var want []string
			for _, n := range readsOf(t, c) {
				if !slices.Contains(setByLambda, n) && !slices.Contains(notDeployed[f.LogicalID], n) {
					want = append(want, n)
				}
			}
			want = append(want, localStackEndpoints...)
			sort.Strings(want)
			var got []string
			for n := range env[f.LogicalID] {
				got = append(got, n)
			}
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s[%s] (-read by the function +in the file):\n%s", samEnvFile, f.LogicalID, diff)
			}
			for _, n := range got {
				if _, declared := f.Env[n]; !declared {
					t.Errorf("%s[%s] sets %s, which template.yaml does not declare for it: sam local would ignore it", samEnvFile, f.LogicalID, n)
				}
			}
			vars := env[f.LogicalID]
			if _, err := setup.Load(func(n string) string {
				if n == setup.EnvRegion {
					return "us-east-1"
				}
				return vars[n]
			}, c); err != nil {
				t.Errorf("setup.Load with %s[%s]: %v", samEnvFile, f.LogicalID, err)
			}
		})
	}
}

// TestTheSAMEnvCheckCanFail: the recorded reads of the API name BATON_ADMIN_KEY and the AgentCore settings, and a
// file entry the template does not declare is caught (the rule the test above applies).
func TestTheSAMEnvCheckCanFail(t *testing.T) {
	t.Parallel()
	reads := readsOf(t, setup.API)
	for _, n := range []string{setup.EnvTable, setup.EnvAdminKey, setup.EnvAgentCoreAccountID, setup.EnvAgentCoreRegion, setup.EnvRegion} {
		if !slices.Contains(reads, n) {
			t.Errorf("readsOf(api) = %v, misses %s", reads, n)
		}
	}
	if slices.Contains(readsOf(t, setup.Park), setup.EnvStateMachineARNs) {
		t.Error("readsOf(park) names BATON_STATE_MACHINE_ARNS, which park does not read")
	}
	f, err := loadDeployed(t).Function("ParkFunction")
	if err != nil {
		t.Fatal(err)
	}
	if _, declared := f.Env[setup.EnvAdminKey]; declared {
		t.Error("ParkFunction declares BATON_ADMIN_KEY; the declared-variable check would not catch an extra entry")
	}
}
