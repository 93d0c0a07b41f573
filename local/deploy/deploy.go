// Package deploy is `make deploy` and `make destroy` (README "Deploy"): it deploys template.yaml to the caller's
// AWS account with the AWS CLI, Docker and the SAM CLI, and tears it down again.
//
// Deploy, in order:
//  1. reads the SAM config environment (samconfig.toml, `[<env>.deploy.parameters]`: stack_name and
//     parameter_overrides); the account-specific parameters without a template default (VpcSubnets, SecurityGroup)
//     are asked for on the first run and written into that environment's parameter_overrides, so later runs are
//     not interactive;
//  2. keeps the admin key in Secrets Manager (`baton/<stack>/admin-key`, generated once, never printed or written
//     to a file) and passes it to the stack as AdminKey;
//  3. builds the runtime image for the machine's own architecture (no emulation: the template's
//     RuntimeArchitecture follows it) and pushes it to an ECR repository `baton-runtime-<stack>` it creates if needed;
//  4. runs `sam build` and `sam deploy` with the SAM config's parameters plus RuntimeImage, RuntimeArchitecture and
//     AdminKey;
//  5. prints the stack's outputs and the command that prints the admin key.
//
// Destroy deletes the stack (`sam delete`), the ECR repository and the admin-key secret (with Secrets Manager's
// recovery window); the workspace file system is kept (DeletionPolicy Retain) and its id printed.
//
// Commands run through a Runner, so tests see exactly what would run; errors name the command that failed.
package deploy

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Runner runs one command with stdin and returns its standard output (its standard error goes to the user).
type Runner interface {
	Run(ctx context.Context, stdin string, name string, args ...string) (string, error)
}

// Options configure Deploy and Destroy.
type Options struct {
	// Root is the repository root (template.yaml, samconfig.toml, runtimes/baton/Dockerfile).
	Root string
	// Env is the SAM config environment; "" = "default".
	Env string
	// Region is the AWS region (AWS_REGION); "" = `aws configure get region`.
	Region string
	// Arch is the machine's architecture as Go names it (runtime.GOARCH): amd64 or arm64.
	Arch string
	// In answers the first run's questions; Out receives progress and the outputs.
	In  io.Reader
	Out io.Writer
	// Now stamps the image tag; nil = time.Now.
	Now func() time.Time
}

// Required are the template parameters without a default that Deploy asks for on the first run (the others it
// supplies itself: AdminKey, RuntimeImage, RuntimeArchitecture).
var Required = []Question{
	{"VpcSubnets", "Subnets of the runtime tasks, at least two in distinct Availability Zones (comma-separated subnet ids)"},
	{"SecurityGroup", "Security group of the runtime tasks and of the workspace file system (sg-…)"},
}

// Question is a parameter the first run asks for.
type Question struct{ Name, Prompt string }

// platforms maps Go architectures to Docker platforms and the template's RuntimeArchitecture.
var platforms = map[string][2]string{"amd64": {"linux/amd64", "X86_64"}, "arm64": {"linux/arm64", "ARM64"}}

// SecretName is the Secrets Manager secret that holds a stack's admin key.
func SecretName(stack string) string { return "baton/" + stack + "/admin-key" }

// RepositoryName is the ECR repository of a stack's runtime image.
func RepositoryName(stack string) string { return "baton-runtime-" + stack }

// Deploy deploys the stack (see the package documentation).
func Deploy(ctx context.Context, r Runner, o Options) error {
	o = defaults(o)
	plat, ok := platforms[o.Arch]
	if !ok {
		return fmt.Errorf("deploy: no runtime image for architecture %q (amd64 or arm64)", o.Arch)
	}
	cfgPath := filepath.Join(o.Root, "samconfig.toml")
	stack, overrides, err := ReadConfig(cfgPath, o.Env)
	if err != nil {
		return err
	}
	if err := askMissing(cfgPath, o, overrides); err != nil {
		return err
	}
	region := o.Region
	if region == "" {
		out, err := r.Run(ctx, "", "aws", "configure", "get", "region")
		if region = strings.TrimSpace(out); err != nil || region == "" {
			return fmt.Errorf("deploy: no AWS region: set AWS_REGION or run `aws configure` (%v)", err)
		}
	}
	account, err := run(ctx, r, "", "aws", "sts", "get-caller-identity", "--query", "Account", "--output", "text")
	if err != nil {
		return err
	}

	// The admin key: generated once into Secrets Manager, read back for the stack parameter.
	secret := SecretName(stack)
	if _, err := r.Run(ctx, "", "aws", "secretsmanager", "describe-secret", "--secret-id", secret); err != nil {
		key := make([]byte, 24)
		if _, err := rand.Read(key); err != nil {
			return err
		}
		if _, err := run(ctx, r, hex.EncodeToString(key), "aws", "secretsmanager", "create-secret", "--name", secret,
			"--description", "Admin API key of the Baton stack "+stack, "--secret-string", "file:///dev/stdin"); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "deploy: created the admin key in Secrets Manager (%s)\n", secret)
	}
	adminKey, err := run(ctx, r, "", "aws", "secretsmanager", "get-secret-value", "--secret-id", secret, "--query", "SecretString", "--output", "text")
	if err != nil {
		return err
	}

	// The runtime image, for this machine's architecture.
	repo := RepositoryName(stack)
	if _, err := r.Run(ctx, "", "aws", "ecr", "describe-repositories", "--repository-names", repo); err != nil {
		if _, err := run(ctx, r, "", "aws", "ecr", "create-repository", "--repository-name", repo, "--image-scanning-configuration", "scanOnPush=true"); err != nil {
			return err
		}
	}
	registry := fmt.Sprintf("%s.dkr.ecr.%s.amazonaws.com", account, region)
	version := "dev"
	if v, err := r.Run(ctx, "", "git", "-C", o.Root, "describe", "--always", "--dirty"); err == nil && strings.TrimSpace(v) != "" {
		version = strings.TrimSpace(v)
	}
	image := fmt.Sprintf("%s/%s:%s-%d", registry, repo, version, o.Now().Unix())
	password, err := run(ctx, r, "", "aws", "ecr", "get-login-password", "--region", region)
	if err != nil {
		return err
	}
	for _, c := range [][]string{
		{"docker", "login", "--username", "AWS", "--password-stdin", registry},
		{"docker", "build", "--platform", plat[0], "-f", filepath.Join(o.Root, "runtimes", "baton", "Dockerfile"),
			"--build-arg", "VERSION=" + version, "-t", image, o.Root},
		{"docker", "push", image},
	} {
		stdin := ""
		if c[1] == "login" {
			stdin = password
		}
		if _, err := run(ctx, r, stdin, c[0], c[1:]...); err != nil {
			return err
		}
	}

	// The stack.
	overrides["RuntimeImage"] = image
	overrides["RuntimeArchitecture"] = plat[1]
	overrides["AdminKey"] = adminKey
	if _, err := run(ctx, r, "", "sam", "build", "--config-env", o.Env, "--template-file", filepath.Join(o.Root, "template.yaml")); err != nil {
		return err
	}
	if _, err := run(ctx, r, "", "sam", "deploy", "--config-env", o.Env, "--config-file", cfgPath, "--stack-name", stack,
		"--parameter-overrides", FormatOverrides(overrides)); err != nil {
		return fmt.Errorf("%w (the admin key is not in this message; the other parameters are in %s)", err, cfgPath)
	}
	out, err := run(ctx, r, "", "aws", "cloudformation", "describe-stacks", "--stack-name", stack, "--query", "Stacks[0].Outputs", "--output", "json")
	if err != nil {
		return err
	}
	var outputs []struct{ OutputKey, OutputValue string }
	if err := json.Unmarshal([]byte(out), &outputs); err != nil {
		return fmt.Errorf("deploy: read the stack outputs: %w", err)
	}
	fmt.Fprintf(o.Out, "deploy: stack %s is deployed\n", stack)
	for _, op := range outputs {
		fmt.Fprintf(o.Out, "  %s = %s\n", op.OutputKey, op.OutputValue)
	}
	fmt.Fprintf(o.Out, "The admin key: aws secretsmanager get-secret-value --secret-id %s --query SecretString --output text\n", secret)
	return nil
}

// Destroy tears the stack down (see the package documentation).
func Destroy(ctx context.Context, r Runner, o Options) error {
	o = defaults(o)
	stack, _, err := ReadConfig(filepath.Join(o.Root, "samconfig.toml"), o.Env)
	if err != nil {
		return err
	}
	fs, _ := r.Run(ctx, "", "aws", "cloudformation", "describe-stacks", "--stack-name", stack,
		"--query", "Stacks[0].Outputs[?OutputKey=='WorkspaceFileSystemId'].OutputValue", "--output", "text")
	if _, err := run(ctx, r, "", "sam", "delete", "--stack-name", stack, "--config-env", o.Env, "--no-prompts"); err != nil {
		return err
	}
	if _, err := r.Run(ctx, "", "aws", "ecr", "delete-repository", "--repository-name", RepositoryName(stack), "--force"); err != nil {
		fmt.Fprintf(o.Out, "destroy: ECR repository %s not deleted (%v)\n", RepositoryName(stack), err)
	}
	if _, err := r.Run(ctx, "", "aws", "secretsmanager", "delete-secret", "--secret-id", SecretName(stack)); err != nil {
		fmt.Fprintf(o.Out, "destroy: secret %s not deleted (%v)\n", SecretName(stack), err)
	}
	fmt.Fprintf(o.Out, "destroy: stack %s deleted; the admin-key secret is scheduled for deletion (recoverable for 30 days)\n", stack)
	if fs = strings.TrimSpace(fs); fs != "" && fs != "None" {
		fmt.Fprintf(o.Out, "The workspace file system %s is kept (it holds the Sessions' files): aws efs delete-file-system --file-system-id %s\n", fs, fs)
	}
	return nil
}

func defaults(o Options) Options {
	if o.Env == "" {
		o.Env = "default"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.In == nil {
		o.In = strings.NewReader("")
	}
	return o
}

// run runs a command and names it in the error (never its stdin).
func run(ctx context.Context, r Runner, stdin, name string, args ...string) (string, error) {
	out, err := r.Run(ctx, stdin, name, args...)
	if err != nil {
		shown := append([]string{name}, args...)
		for i, a := range shown {
			if strings.HasPrefix(a, "AdminKey=") || strings.Contains(a, " AdminKey=") {
				shown[i] = "…"
			}
		}
		return "", fmt.Errorf("deploy: %s: %w", strings.Join(shown, " "), err)
	}
	return strings.TrimSpace(out), nil
}

// ReadConfig returns the stack name and parameter overrides of the SAM config environment env. Errors: the file
// cannot be read or parsed, or the environment has no deploy stack_name.
func ReadConfig(path, env string) (string, map[string]string, error) {
	var doc map[string]any
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return "", nil, fmt.Errorf("deploy: %s: %w", path, err)
	}
	params := table(table(table(doc, env), "deploy"), "parameters")
	stack, _ := params["stack_name"].(string)
	if stack == "" {
		return "", nil, fmt.Errorf("deploy: %s has no [%s.deploy.parameters] stack_name", path, env)
	}
	raw, _ := params["parameter_overrides"].(string)
	return stack, ParseOverrides(raw), nil
}

// table returns m[key] as a TOML table (nil when absent).
func table(m map[string]any, key string) map[string]any {
	t, _ := m[key].(map[string]any)
	return t
}

var overridePair = regexp.MustCompile(`([A-Za-z0-9]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)`)

// ParseOverrides reads SAM's `Key=Value Key2="a b"` parameter_overrides form.
func ParseOverrides(s string) map[string]string {
	out := map[string]string{}
	for _, m := range overridePair.FindAllStringSubmatch(s, -1) {
		v := m[2]
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[m[1]] = v
	}
	return out
}

// FormatOverrides writes overrides in SAM's form, sorted by name, quoting values with spaces.
func FormatOverrides(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		if strings.ContainsAny(v, " \"'") {
			v = `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// askMissing asks for the Required parameters the environment lacks and writes them into its parameter_overrides.
func askMissing(path string, o Options, overrides map[string]string) error {
	in := bufio.NewReader(o.In)
	changed := false
	for _, q := range Required {
		if overrides[q.Name] != "" {
			continue
		}
		fmt.Fprintf(o.Out, "%s [%s]: ", q.Prompt, q.Name)
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "" {
			return fmt.Errorf("deploy: %s is not in %s [%s.deploy.parameters] parameter_overrides; run `make deploy` in a terminal once to answer, or add it there (%v)", q.Name, path, o.Env, err)
		}
		overrides[q.Name] = line
		changed = true
	}
	if !changed {
		return nil
	}
	return writeOverrides(path, o.Env, overrides)
}

// writeOverrides replaces the parameter_overrides line of [<env>.deploy.parameters] (keeping every other line and
// comment of the file); the values it writes never include the admin key.
func writeOverrides(path, env string, overrides map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	section := "[" + env + ".deploy.parameters]"
	in, done := false, false
	line := "parameter_overrides = " + strconvQuote(FormatOverrides(overrides))
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if in && !done {
				lines = append(lines[:i], append([]string{line}, lines[i:]...)...)
				done = true
				break
			}
			in = t == section
			continue
		}
		if in && strings.HasPrefix(t, "parameter_overrides") {
			lines[i], done = line, true
			break
		}
	}
	if !done {
		if !in {
			lines = append(lines, section)
		}
		lines = append(lines, line)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// strconvQuote quotes s as a TOML basic string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
