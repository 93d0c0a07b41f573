package architecture

import (
	"bytes"
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
	root := filepath.Join("..", "..")
	var copies []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
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
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte("Baton.")) {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && strings.Contains(s, "Baton.") && !strings.Contains(filepath.ToSlash(path), "shared/statemachine/") {
				copies = append(copies, path+": "+lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range copies {
		t.Errorf("ASL error name outside shared/statemachine: %s", c)
	}
}
