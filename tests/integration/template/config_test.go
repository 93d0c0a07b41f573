package template_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/shared/setup"
)

// components maps each function of template.yaml to the setup.Component its main.go loads.
var components = map[string]setup.Component{
	"ApiFunction":       setup.API,
	"StreamFunction":    setup.Stream,
	"ParkFunction":      setup.Park,
	"SettleFunction":    setup.Settle,
	"ReconcileFunction": setup.Reconcile,
}

// deployedAdminKey stands for the AdminKey parameter a deployment passes (MinLength 32, no default).
const deployedAdminKey = "0123456789abcdef0123456789abcdef"

func loadDeployed(t *testing.T) *template.Template {
	t.Helper()
	tpl, err := template.Load(filepath.Join(root, "template.yaml"), template.WithTableName("BatonTable", "baton"),
		template.WithParameter("AdminKey", deployedAdminKey))
	if err != nil {
		t.Fatalf("Load template.yaml: %v", err)
	}
	return tpl
}

// TestTheTemplateGivesEveryProcessTheConfigurationItRequires: the environment template.yaml gives each function
// and the runtime container passes setup.Load for that component, so a deployment starts without any default.
func TestTheTemplateGivesEveryProcessTheConfigurationItRequires(t *testing.T) {
	t.Parallel()
	tpl := loadDeployed(t)
	fns := tpl.Functions()
	if len(fns) != len(components) {
		t.Errorf("template has %d functions, the test knows %d", len(fns), len(components))
	}
	for _, f := range fns {
		t.Run(f.LogicalID, func(t *testing.T) {
			t.Parallel()
			c, ok := components[f.LogicalID]
			if !ok {
				t.Fatalf("no setup.Component known for %s", f.LogicalID)
			}
			if _, err := setup.Load(lambdaEnv(f.Env), c); err != nil {
				t.Errorf("%s: %v", f.LogicalID, err)
			}
		})
	}
	t.Run("BatonRuntimeTaskDefinition", func(t *testing.T) {
		t.Parallel()
		td, err := tpl.CloudFormation().GetECSTaskDefinitionWithName("BatonRuntimeTaskDefinition")
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, kv := range td.ContainerDefinitions[0].Environment {
			env[aws.ToString(kv.Name)] = aws.ToString(kv.Value)
		}
		if _, err := setup.Load(func(name string) string { return env[name] }, setup.Runtime); err != nil {
			t.Error(err)
		}
	})
}

// TestTheTemplateCheckCanFail: without the AdminKey parameter (no default), the ApiFunction's environment is
// refused, naming BATON_ADMIN_KEY.
func TestTheTemplateCheckCanFail(t *testing.T) {
	t.Parallel()
	f, err := load(t).Function("ApiFunction")
	if err != nil {
		t.Fatal(err)
	}
	_, err = setup.Load(lambdaEnv(f.Env), setup.API)
	var ce *setup.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Name != setup.EnvAdminKey {
		t.Errorf("Load(ApiFunction without AdminKey) = %v, want only BATON_ADMIN_KEY named", err)
	}
}

// lambdaEnv is a function's environment as Lambda runs it: the template's variables plus the ones the Lambda
// runtime sets itself (AWS_REGION).
func lambdaEnv(env map[string]string) func(string) string {
	return func(name string) string {
		if name == "AWS_REGION" {
			return "us-east-1"
		}
		return env[name]
	}
}
