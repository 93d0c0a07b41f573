package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/baton-run/baton/"

// modelStack is what runs a model: the harness loop and its model providers (package prefixes), their SDKs, the
// MCP client and the runtime worker. No Lambda function runs a model.
var modelStack = []string{
	module + "shared/harness",
	module + "shared/runtime",
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
	"github.com/modelcontextprotocol/go-sdk",
}

// admissionStack is what admits requests: request validation, the x_baton.script grammar, JSON Schema and the
// HTTP front door. The task functions (Park, Settle, Reconcile) admit nothing.
var admissionStack = []string{
	module + "shared/admission",
	module + "shared/script",
	module + "shared/httpapi",
	"github.com/santhosh-tekuri/jsonschema",
}

// linkRules: each Lambda function links only what it runs (docs/configuration.md "What each function links").
var linkRules = map[string][]string{
	"functions/park":      append(append([]string{}, modelStack...), admissionStack...),
	"functions/settle":    append(append([]string{}, modelStack...), admissionStack...),
	"functions/reconcile": append(append([]string{}, modelStack...), admissionStack...),
	"functions/api":       modelStack,
	"functions/stream":    modelStack,
}

// forbiddenDeps returns the dependencies of pkg (go list -deps) that start with one of the forbidden prefixes.
func forbiddenDeps(t *testing.T, pkg string, forbidden []string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var bad []string
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") || strings.HasPrefix(dep, f) && !strings.HasPrefix(f, module) {
				bad = append(bad, dep)
				break
			}
		}
	}
	return bad
}

func TestEachFunctionLinksOnlyWhatItRuns(t *testing.T) {
	t.Parallel()
	for fn, forbidden := range linkRules {
		t.Run(fn, func(t *testing.T) {
			t.Parallel()
			if bad := forbiddenDeps(t, module+fn, forbidden); len(bad) > 0 {
				t.Errorf("%s links %s", fn, strings.Join(bad, ", "))
			}
		})
	}
}

// TestTheLinkRuleCanFail proves the check sees real dependencies: the baton runtime does run the harness and its
// model providers, and the API does admit requests.
func TestTheLinkRuleCanFail(t *testing.T) {
	t.Parallel()
	bad := forbiddenDeps(t, module+"runtimes/baton", linkRules["functions/park"])
	for _, want := range []string{module + "shared/harness", module + "shared/harness/scripted", "github.com/openai/openai-go/v3"} {
		if !contains(bad, want) {
			t.Errorf("the rule did not report %s in runtimes/baton (reported %v)", want, bad)
		}
	}
	bad = forbiddenDeps(t, module+"functions/api", linkRules["functions/park"])
	if !contains(bad, module+"shared/admission") || !contains(bad, "github.com/santhosh-tekuri/jsonschema/v6") {
		t.Errorf("the park rule applied to the API did not report admission and jsonschema (reported %v)", bad)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestASLErrorNamesLiveOnlyInTheStateMachineContract: a "Baton.*" error name written as a string literal in
// non-test Go code anywhere but shared/statemachine is a second copy of the contract.
func TestASLErrorNamesLiveOnlyInTheStateMachineContract(t *testing.T) {
	t.Parallel()
	for path, f := range nonTestSources(t) {
		if strings.Contains(filepath.ToSlash(path), "shared/statemachine/") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, "Baton.") {
				t.Errorf("ASL error name outside shared/statemachine: %s: %s", path, lit.Value)
			}
			return true
		})
	}
}

// TestNoProcessChangesItsOwnEnvironment: configuration is passed as values (setup.Config) or, to a child process,
// in that child's environment; no non-test code calls os.Setenv, os.Unsetenv or os.Clearenv
// (docs/configuration.md).
func TestNoProcessChangesItsOwnEnvironment(t *testing.T) {
	t.Parallel()
	for path, f := range nonTestSources(t) {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" {
				switch sel.Sel.Name {
				case "Setenv", "Unsetenv", "Clearenv":
					t.Errorf("a process changes its own environment: %s: os.%s", path, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// nonTestSources parses every non-test Go file of the repository (outside node_modules, bin, testdata, …), keyed by
// path.
func nonTestSources(t *testing.T) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "bin", ".aws-sam", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go sources found; the walk is broken")
	}
	return files
}
