package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/deploy"
)

// recorder is a deploy.Runner that records each command (and its stdin) and answers from canned outputs keyed by
// the command's first words; missing marks commands that fail (a resource that does not exist yet).
type recorder struct {
	calls   []string
	stdins  map[string]string
	answers map[string]string
	missing map[string]bool
}

func (r *recorder) Run(_ context.Context, stdin, name string, args ...string) (string, error) {
	c := strings.Join(append([]string{name}, args...), " ")
	r.calls = append(r.calls, c)
	if stdin != "" {
		r.stdins[c] = stdin
	}
	for prefix, fail := range r.missing {
		if fail && strings.HasPrefix(c, prefix) {
			return "", errors.New("not found")
		}
	}
	for prefix, out := range r.answers {
		if strings.HasPrefix(c, prefix) {
			return out, nil
		}
	}
	return "", nil
}

func newRecorder() *recorder {
	return &recorder{stdins: map[string]string{}, missing: map[string]bool{}, answers: map[string]string{
		"aws sts get-caller-identity":         "123456789012\n",
		"aws secretsmanager get-secret-value": "0123456789abcdef0123456789abcdef0123456789abcdef\n",
		"aws ecr get-login-password":          "ecr-password\n",
		"git -C":                              "v1.2.3\n",
		"aws cloudformation describe-stacks --stack-name baton-dev --query Stacks[0].Outputs --output": `[{"OutputKey":"ApiUrl","OutputValue":"https://x.execute-api.eu-west-1.amazonaws.com/dev/v1"}]`,
	}}
}

const samconfig = `# comment kept
version = 0.1

[default.deploy.parameters]
stack_name = "baton-dev"
capabilities = "CAPABILITY_IAM"
parameter_overrides = "Stage=dev LogRetentionDays=14"

[prod.deploy.parameters]
stack_name = "baton-prod"
parameter_overrides = "Stage=prod VpcSubnets=subnet-1,subnet-2 SecurityGroup=sg-9"
`

func root(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "samconfig.toml"), []byte(samconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTheFirstDeployAsksOnceThenRunsFromSamconfig: the first run asks for the parameters without a default and
// saves them in samconfig.toml (never the admin key), creates the admin-key secret, builds the image for the
// machine's own architecture, and deploys with every parameter; the second run asks nothing and creates no secret.
func TestTheFirstDeployAsksOnceThenRunsFromSamconfig(t *testing.T) {
	dir := root(t)
	r := newRecorder()
	r.missing["aws secretsmanager describe-secret"] = true
	r.missing["aws ecr describe-repositories"] = true
	var out bytes.Buffer
	now := func() time.Time { return time.Unix(1700000000, 0) }
	o := deploy.Options{Root: dir, Region: "eu-west-1", Arch: "amd64", In: strings.NewReader("subnet-a,subnet-b\nsg-1\n"), Out: &out, Now: now}
	if err := deploy.Deploy(context.Background(), r, o); err != nil {
		t.Fatal(err)
	}
	image := "123456789012.dkr.ecr.eu-west-1.amazonaws.com/baton-runtime-baton-dev:v1.2.3-1700000000"
	want := []string{
		"aws sts get-caller-identity --query Account --output text",
		"aws secretsmanager describe-secret --secret-id baton/baton-dev/admin-key",
		"aws secretsmanager create-secret --name baton/baton-dev/admin-key --description Admin API key of the Baton stack baton-dev --secret-string file:///dev/stdin",
		"aws secretsmanager get-secret-value --secret-id baton/baton-dev/admin-key --query SecretString --output text",
		"aws ecr describe-repositories --repository-names baton-runtime-baton-dev",
		"aws ecr create-repository --repository-name baton-runtime-baton-dev --image-scanning-configuration scanOnPush=true",
		"git -C " + dir + " describe --always --dirty",
		"aws ecr get-login-password --region eu-west-1",
		"docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com",
		"docker build --platform linux/amd64 -f " + filepath.Join(dir, "runtimes/baton/Dockerfile") + " --build-arg VERSION=v1.2.3 -t " + image + " " + dir,
		"docker push " + image,
		"sam build --config-env default --template-file " + filepath.Join(dir, "template.yaml"),
		"sam deploy --config-env default --config-file " + filepath.Join(dir, "samconfig.toml") + " --stack-name baton-dev --parameter-overrides " +
			"AdminKey=0123456789abcdef0123456789abcdef0123456789abcdef LogRetentionDays=14 RuntimeArchitecture=X86_64 RuntimeImage=" + image +
			" SecurityGroup=sg-1 Stage=dev VpcSubnets=subnet-a,subnet-b",
		"aws cloudformation describe-stacks --stack-name baton-dev --query Stacks[0].Outputs --output json",
	}
	if diff := cmp.Diff(want, r.calls); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	// Secrets travel on stdin, never on a command line or in a file.
	if k := r.stdins[want[2]]; len(k) != 48 {
		t.Errorf("the generated admin key on create-secret's stdin = %q, want 48 hex characters", k)
	}
	if r.stdins[want[8]] != "ecr-password" {
		t.Errorf("docker login stdin = %q", r.stdins[want[8]])
	}
	saved, _ := os.ReadFile(filepath.Join(dir, "samconfig.toml"))
	if !strings.Contains(string(saved), `parameter_overrides = "LogRetentionDays=14 SecurityGroup=sg-1 Stage=dev VpcSubnets=subnet-a,subnet-b"`) ||
		!strings.Contains(string(saved), "# comment kept") || strings.Contains(string(saved), "AdminKey") {
		t.Errorf("samconfig.toml after the first run:\n%s", saved)
	}
	for _, w := range []string{"ApiUrl = https://x.execute-api.eu-west-1.amazonaws.com/dev/v1",
		"aws secretsmanager get-secret-value --secret-id baton/baton-dev/admin-key --query SecretString --output text"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}

	// The second run: nothing to ask, the secret and the repository exist.
	r2 := newRecorder()
	o.In, o.Arch = strings.NewReader(""), "arm64"
	if err := deploy.Deploy(context.Background(), r2, o); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(r2.calls, "\n")
	if strings.Contains(joined, "create-secret") || strings.Contains(joined, "create-repository") {
		t.Errorf("the second run created a secret or repository again:\n%s", joined)
	}
	if !strings.Contains(joined, "docker build --platform linux/arm64") || !strings.Contains(joined, "RuntimeArchitecture=ARM64") {
		t.Errorf("an arm64 machine builds arm64 without emulation and says so to the template:\n%s", joined)
	}
}

// TestADeployWithoutAnswersNamesWhatIsMissing: with no terminal input and no saved parameter, nothing runs and
// the error names the parameter and where to put it.
func TestADeployWithoutAnswersNamesWhatIsMissing(t *testing.T) {
	r := newRecorder()
	err := deploy.Deploy(context.Background(), r, deploy.Options{Root: root(t), Region: "eu-west-1", Arch: "amd64", Out: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "VpcSubnets is not in") || !strings.Contains(err.Error(), "[default.deploy.parameters]") {
		t.Fatalf("error = %v", err)
	}
	if len(r.calls) != 0 {
		t.Errorf("commands ran: %q", r.calls)
	}
}

// TestDestroyDeletesTheStackRepositoryAndSecretAndKeepsTheWorkspaces: the prod environment's stack is deleted with
// its image repository and admin-key secret; the retained workspace file system is named.
func TestDestroyDeletesTheStackRepositoryAndSecretAndKeepsTheWorkspaces(t *testing.T) {
	r := newRecorder()
	r.answers["aws cloudformation describe-stacks --stack-name baton-prod"] = "fs-0abc\n"
	var out bytes.Buffer
	if err := deploy.Destroy(context.Background(), r, deploy.Options{Root: root(t), Env: "prod", Out: &out}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"aws cloudformation describe-stacks --stack-name baton-prod --query Stacks[0].Outputs[?OutputKey=='WorkspaceFileSystemId'].OutputValue --output text",
		"sam delete --stack-name baton-prod --config-env prod --no-prompts",
		"aws ecr delete-repository --repository-name baton-runtime-baton-prod --force",
		"aws secretsmanager delete-secret --secret-id baton/baton-prod/admin-key",
	}
	if diff := cmp.Diff(want, r.calls); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), "aws efs delete-file-system --file-system-id fs-0abc") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestOverridesRoundTrip(t *testing.T) {
	m := deploy.ParseOverrides(`Stage=dev Name="a b" Empty= Q='x y'`)
	if diff := cmp.Diff(map[string]string{"Stage": "dev", "Name": "a b", "Empty": "", "Q": "x y"}, m); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
	if got := deploy.FormatOverrides(m); got != `Empty= Name="a b" Q="x y" Stage=dev` {
		t.Errorf("format = %s", got)
	}
}
