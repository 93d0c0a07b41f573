package container_test

import (
	"bufio"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"

	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

const (
	// dockerfilePath is the runtime's Dockerfile, relative to the repository root (its build context).
	dockerfilePath = "runtimes/baton/Dockerfile"
	// buildVersion is the VERSION build argument, passed as `docker build --build-arg VERSION=…` would; the
	// registration's version proves the RUN's -ldflags reached the binary.
	buildVersion = "container-test"
	// registrationTTL bounds a fresh heartbeat: 3 × the runtime's 10 s registration heartbeat
	// (shared/runtime DefaultRegisterEvery, RegistrationTTL).
	registrationTTL = 30 * time.Second
)

// distrolessUsers are the user and group names a USER instruction may name: root 0, and nonroot 65532 (the
// Dockerfile's final stage creates it with the uid and gid distroless images use).
var distrolessUsers = map[string]uint32{"root": 0, "nonroot": 65532}

// buildArgs stand in for BuildKit's automatic platform arguments (the host's, so the binary runs here) and the
// --build-arg values of the Dockerfile's own build command line.
var buildArgs = map[string]string{
	"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH, "TARGETPLATFORM": runtime.GOOS + "/" + runtime.GOARCH,
	"BUILDOS": runtime.GOOS, "BUILDARCH": runtime.GOARCH, "BUILDPLATFORM": runtime.GOOS + "/" + runtime.GOARCH,
	"VERSION": buildVersion,
}

// TestRuntimeImageBuildsAStaticBinaryThatRegistersAsNonRoot builds the baton runtime the way its Dockerfile's
// build stage does, proves the binary static, and runs it as the final stage's non-root user against the shared
// local stack until GET /admin/v1/runtimes lists it (issue 4, Deliver 8).
func TestRuntimeImageBuildsAStaticBinaryThatRegistersAsNonRoot(t *testing.T) {
	root, err := stackproc.FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	df := parseDockerfile(t, filepath.Join(root, dockerfilePath))

	// Multi-stage, and the final stage runs as a non-root user.
	if len(df.stages) < 2 {
		t.Fatalf("%s has %d FROM instructions; want a multi-stage build (≥ 2)", dockerfilePath, len(df.stages))
	}
	final := df.stages[len(df.stages)-1]
	cred := nonRootUser(t, final)

	// The RUN that builds the binary, expanded as the build stage sees it.
	build, run := goBuildRun(t, df)
	env, goArgs := expandRun(t, df, build, run)
	if got := env["GOARCH"]; got != "" && got != runtime.GOARCH {
		t.Fatalf("the RUN builds for GOARCH=%s; with TARGETARCH=%s it must build for the platform it runs on", got, runtime.GOARCH)
	}
	if got := env["GOOS"]; got != "" && got != runtime.GOOS {
		t.Fatalf("the RUN builds for GOOS=%s; this test runs the binary on %s", got, runtime.GOOS)
	}

	// The final stage ships exactly what the RUN writes.
	dir := nonRootDir(t)
	bin := filepath.Join(dir, "baton-runtime")
	imageOut := rewriteOutput(t, goArgs, bin)
	assertCopied(t, final, build.name, imageOut)

	goBuild(t, root, env, goArgs)
	assertStatic(t, bin)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}

	// As uid/gid 65532 against the shared local stack.
	s := stack.Shared(t)
	id := fmt.Sprintf("rt_container_%d", time.Now().UnixNano())
	p := stack.StartRuntime(t, s, stack.RuntimeOptions{ID: id, Binary: bin, Credential: cred})
	assertRunsAs(t, bin, cred)

	rt, ok := findRuntime(s.Runtimes(t), id)
	if !ok {
		t.Fatalf("GET /admin/v1/runtimes does not list %s", id)
	}
	if rt.Kind != "baton" {
		t.Errorf("runtime %s kind = %q; want %q", id, rt.Kind, "baton")
	}
	if rt.Version != buildVersion {
		t.Errorf("runtime %s version = %q; want %q (the RUN's -ldflags -X main.version=${VERSION})", id, rt.Version, buildVersion)
	}
	if age := time.Since(time.Unix(rt.HeartbeatAt, 0)); age > registrationTTL || age < -2*time.Second {
		t.Errorf("runtime %s heartbeat_at = %d is %s old; want a fresh heartbeat (within %s)", id, rt.HeartbeatAt, age.Round(time.Second), registrationTTL)
	}

	// SIGTERM: a graceful stop deregisters.
	p.Stop(t)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := findRuntime(s.Runtimes(t), id); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runtime %s is still listed 5 s after it stopped on SIGTERM", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// dockerfile is a parsed Dockerfile: the instructions before the first FROM and one stage per FROM.
type dockerfile struct {
	escape rune
	global []*parser.Node
	stages []stage
}

// stage is one FROM and the instructions after it; name is its lowercased `AS` name ("" without one).
type stage struct {
	name  string
	nodes []*parser.Node
}

// parseDockerfile parses path with BuildKit's parser and groups its instructions by stage.
func parseDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: parser warning: %s", path, w.Short)
	}
	df := dockerfile{escape: res.EscapeToken}
	for _, n := range res.AST.Children {
		if is(n, "from") {
			st := stage{}
			if args := words(n); len(args) == 3 && strings.EqualFold(args[1], "as") {
				st.name = strings.ToLower(args[2])
			}
			df.stages = append(df.stages, st)
			continue
		}
		if len(df.stages) == 0 {
			df.global = append(df.global, n)
			continue
		}
		last := &df.stages[len(df.stages)-1]
		last.nodes = append(last.nodes, n)
	}
	return df
}

// is reports whether n is the instruction named (lowercase) instr; Dockerfile instructions are case-insensitive.
func is(n *parser.Node, instr string) bool { return strings.EqualFold(n.Value, instr) }

// words returns an instruction's arguments (the Next chain of its node).
func words(n *parser.Node) []string {
	var out []string
	for a := n.Next; a != nil; a = a.Next {
		out = append(out, a.Value)
	}
	return out
}

// nonRootUser returns the credential of the stage's last USER instruction, failing when there is none or it
// names root (by name or id 0, as user or as group).
func nonRootUser(t *testing.T, st stage) *syscall.Credential {
	t.Helper()
	var user string
	for _, n := range st.nodes {
		if is(n, "user") {
			user = strings.Join(words(n), " ")
		}
	}
	if user == "" {
		t.Fatalf("the final stage sets no USER; the image would run as root")
	}
	name, group, _ := strings.Cut(user, ":")
	if group == "" {
		group = name
	}
	uid, gid := lookupID(t, name), lookupID(t, group)
	if uid == 0 || gid == 0 {
		t.Fatalf("the final stage's USER %q is root; want a non-root user", user)
	}
	return &syscall.Credential{Uid: uid, Gid: gid}
}

// lookupID resolves a USER part: a numeric id, or a name of distroless's /etc/passwd.
func lookupID(t *testing.T, s string) uint32 {
	t.Helper()
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(n)
	}
	id, ok := distrolessUsers[s]
	if !ok {
		t.Fatalf("USER names %q, which distroless's /etc/passwd does not have", s)
	}
	return id
}

// goBuildRun returns the one RUN instruction (and its stage) whose command runs `go build`.
func goBuildRun(t *testing.T, df dockerfile) (stage, *parser.Node) {
	t.Helper()
	var found []*parser.Node
	var in stage
	for _, st := range df.stages {
		for _, n := range st.nodes {
			if is(n, "run") && n.Next != nil && goBuildCommand.MatchString(n.Next.Value) {
				found, in = append(found, n), st
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d RUN instructions that run `go build`; want exactly 1", dockerfilePath, len(found))
	}
	if found[0].Attributes["json"] {
		t.Fatalf("the go build RUN is in exec form (%s); want the shell form with its env assignments", found[0].Original)
	}
	return in, found[0]
}

// goBuildCommand matches a shell command that runs `go build`.
var goBuildCommand = regexp.MustCompile(`(^|\s)go\s+build(\s|$)`)

// assignment matches a shell variable assignment word (NAME=value).
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// expandRun expands run's command with BuildKit's shell lexer in the scope the RUN sees (the stage's ARG and ENV
// instructions before it, build arguments over ARG defaults) and splits it into the leading environment
// assignments and the go command's arguments ("build", …). ENV values are part of the returned environment.
func expandRun(t *testing.T, df dockerfile, st stage, run *parser.Node) (map[string]string, []string) {
	t.Helper()
	lex := shell.NewLex(df.escape)
	globals := map[string]string{}
	for _, n := range df.global {
		if is(n, "arg") {
			for _, a := range words(n) {
				name, def, hasDef := strings.Cut(a, "=")
				if v, ok := buildArgs[name]; ok {
					globals[name] = v
				} else if hasDef {
					globals[name] = process(t, lex, def, globals)
				}
			}
		}
	}
	scope, env := map[string]string{}, map[string]string{}
	for _, n := range st.nodes {
		if n == run {
			break
		}
		switch strings.ToLower(n.Value) {
		case "arg":
			for _, a := range words(n) {
				name, def, hasDef := strings.Cut(a, "=")
				switch v, ok := buildArgs[name]; {
				case ok:
					scope[name] = v
				case hasDef:
					scope[name] = process(t, lex, def, scope)
				default:
					if g, ok := globals[name]; ok {
						scope[name] = g
					}
				}
			}
		case "env":
			w := words(n) // name, value, name, value, …
			for i := 0; i+1 < len(w); i += 2 {
				v := process(t, lex, w[i+1], scope)
				scope[w[i]], env[w[i]] = v, v
			}
		}
	}
	kv := make([]string, 0, len(scope))
	for k, v := range scope {
		kv = append(kv, k+"="+v)
	}
	cmd, err := expandWords(df.escape, run.Next.Value, shell.EnvsFromSlice(kv))
	if err != nil {
		t.Fatalf("expand %q: %v", run.Next.Value, err)
	}
	for _, w := range cmd {
		if slices.Contains([]string{"&&", "||", ";", "|", "&"}, w) {
			t.Fatalf("the go build RUN is a compound command (%q); want one `go build` this test can run as is", run.Next.Value)
		}
	}
	i := 0
	for ; i < len(cmd) && assignment.MatchString(cmd[i]); i++ {
		name, value, _ := strings.Cut(cmd[i], "=")
		env[name] = value
	}
	if len(cmd)-i < 2 || cmd[i] != "go" || cmd[i+1] != "build" {
		t.Fatalf("the RUN runs %q after its assignments; want `go build …`", cmd[i:])
	}
	t.Logf("RUN, expanded: env %v, go %q", env, cmd[i+1:])
	return env, cmd[i+1:]
}

// expandWords expands a shell-form command with BuildKit's shell lexer and splits it into words, quotes removed.
// BuildKit v0.34.2's Lex.ProcessWords loses the start of a word that holds a ${VAR:-default} expansion (the
// nested processStopOn resets the shared word buffer: GOARCH=${TARGETARCH:-amd64} splits as "amd64"), so this
// expands first with ProcessWord keeping quotes and escapes, then splits the result with ProcessWords, leaving
// any `$` in it as written.
func expandWords(escape rune, cmd string, env shell.EnvGetter) ([]string, error) {
	expand := shell.NewLex(escape)
	expand.RawQuotes, expand.RawEscapes = true, true
	expanded, _, err := expand.ProcessWord(cmd, env)
	if err != nil {
		return nil, err
	}
	split := shell.NewLex(escape)
	split.SkipUnsetEnv = true
	return split.ProcessWords(expanded, shell.EnvsFromSlice(nil))
}

// process expands one word (an ARG default or ENV value) with the variables in scope.
func process(t *testing.T, lex *shell.Lex, word string, scope map[string]string) string {
	t.Helper()
	kv := make([]string, 0, len(scope))
	for k, v := range scope {
		kv = append(kv, k+"="+v)
	}
	out, _, err := lex.ProcessWord(word, shell.EnvsFromSlice(kv))
	if err != nil {
		t.Fatalf("expand %q: %v", word, err)
	}
	return out
}

// rewriteOutput replaces the path of goArgs' one -o flag with out and returns the path the Dockerfile used.
func rewriteOutput(t *testing.T, goArgs []string, out string) string {
	t.Helper()
	var orig []string
	for i := 0; i < len(goArgs); i++ {
		switch {
		case goArgs[i] == "-o" && i+1 < len(goArgs):
			orig = append(orig, goArgs[i+1])
			goArgs[i+1] = out
			i++
		case strings.HasPrefix(goArgs[i], "-o="):
			orig = append(orig, strings.TrimPrefix(goArgs[i], "-o="))
			goArgs[i] = "-o=" + out
		}
	}
	if len(orig) != 1 {
		t.Fatalf("the go build RUN has %d -o flags (%q); want exactly 1", len(orig), goArgs)
	}
	return orig[0]
}

// assertCopied fails unless final COPYs path from the build stage (COPY --from=<build stage> path …).
func assertCopied(t *testing.T, final stage, buildStage, path string) {
	t.Helper()
	for _, n := range final.nodes {
		if !is(n, "copy") || !slices.ContainsFunc(n.Flags, func(f string) bool {
			return strings.EqualFold(f, "--from="+buildStage)
		}) {
			continue
		}
		if w := words(n); len(w) >= 2 && slices.Contains(w[:len(w)-1], path) {
			return
		}
	}
	t.Fatalf("the final stage does not COPY --from=%s %s (the go build RUN's output)", buildStage, path)
}

// nonRootDir returns a new temporary directory that other users may read and traverse, removed when the test
// ends (t.TempDir's parent is private to root).
func nonRootDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "baton-container-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goBuild runs `go <goArgs>` from the repository root (the Dockerfile's build context, COPY . . into WORKDIR)
// with env over the test's environment; a cold build cache (-trimpath has its own cache keys) takes minutes.
func goBuild(t *testing.T, root string, env map[string]string, goArgs []string) {
	t.Helper()
	// A guard against a hung build, not a performance bound: a cold build on a busy 2-core machine takes minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", goArgs...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(goArgs, " "), err, out)
	}
	t.Logf("go build took %s", time.Since(start).Round(time.Millisecond))
}

// assertStatic fails unless bin is an ELF executable with no program interpreter (PT_INTERP) and no shared
// library dependencies (DT_NEEDED).
func assertStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("open %s as ELF: %v", bin, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a PT_INTERP program header: it is dynamically linked", bin)
		}
	}
	needed, err := f.DynString(elf.DT_NEEDED)
	if err != nil {
		t.Fatalf("read DT_NEEDED of %s: %v", bin, err)
	}
	if len(needed) > 0 {
		t.Errorf("%s needs shared libraries %q; want none", bin, needed)
	}
}

// assertRunsAs fails unless a process running bin has the credential's real, effective, saved and filesystem
// uid and gid (/proc/<pid>/status).
func assertRunsAs(t *testing.T, bin string, cred *syscall.Credential) {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/exe")
	if err != nil {
		t.Fatal(err)
	}
	for _, exe := range procs {
		if target, err := os.Readlink(exe); err != nil || target != bin {
			continue
		}
		status := filepath.Join(filepath.Dir(exe), "status")
		ids := procIDs(t, status)
		want := map[string]string{"Uid": strings.Repeat(fmt.Sprint(cred.Uid)+" ", 4), "Gid": strings.Repeat(fmt.Sprint(cred.Gid)+" ", 4)}
		for k, w := range want {
			if got := ids[k]; got != strings.TrimSpace(w) {
				t.Errorf("%s: %s %q; want %q", status, k, got, strings.TrimSpace(w))
			}
		}
		return
	}
	t.Fatalf("no running process executes %s", bin)
}

// procIDs reads the Uid and Gid lines of a /proc/<pid>/status file (real, effective, saved, filesystem).
func procIDs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && (k == "Uid" || k == "Gid") {
			ids[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return ids
}

func findRuntime(rts []stack.RuntimeView, id string) (stack.RuntimeView, bool) {
	i := slices.IndexFunc(rts, func(r stack.RuntimeView) bool { return r.ID == id })
	if i < 0 {
		return stack.RuntimeView{}, false
	}
	return rts[i], true
}
