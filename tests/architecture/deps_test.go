package architecture

import (
	"os/exec"
	"strings"
	"testing"
)

// domainPackages import no AWS SDK, no Lambda types and no HTTP front door: they are the engine's rules and
// records, reachable from every adapter (docs/internals.md "Dependency direction").
var domainPackages = []string{
	"github.com/baton-run/baton/shared/agent",
	"github.com/baton-run/baton/shared/session",
	"github.com/baton-run/baton/shared/engine",
	"github.com/baton-run/baton/shared/admission",
	"github.com/baton-run/baton/shared/agentcore",
	"github.com/baton-run/baton/shared/agentcore/handoff",
	"github.com/baton-run/baton/shared/agentcore/translate",
	"github.com/baton-run/baton/shared/harness",
	"github.com/baton-run/baton/shared/harness/scripted",
	"github.com/baton-run/baton/shared/script",
	"github.com/baton-run/baton/shared/statemachine",
	"github.com/baton-run/baton/shared/toolpattern",
}

var forbiddenPrefixes = []string{
	"github.com/aws/",
	"github.com/awslabs/",
	"github.com/baton-run/baton/shared/store",
	"github.com/baton-run/baton/shared/orchestration",
	"github.com/baton-run/baton/shared/httpapi",
	"github.com/baton-run/baton/shared/setup",
	"github.com/baton-run/baton/local",
}

func TestDomainPackagesImportNoAWSSDKOrAdapters(t *testing.T) {
	t.Parallel()
	for _, pkg := range domainPackages {
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, bad := range forbiddenPrefixes {
					if strings.HasPrefix(dep, bad) {
						t.Errorf("%s depends on %s; domain packages must not import %s…", pkg, dep, bad)
					}
				}
			}
		})
	}
}

// TestTheRuleCanFail proves the check sees a real dependency: the store adapter does import the AWS SDK.
func TestTheRuleCanFail(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/baton-run/baton/shared/store/dynamo").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "github.com/aws/aws-sdk-go-v2/service/dynamodb") {
		t.Fatal("expected shared/store/dynamo to depend on the DynamoDB client; the dependency listing is broken")
	}
}
