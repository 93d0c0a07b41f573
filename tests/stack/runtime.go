package stack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/baton-run/baton/local/stackproc"
)

// BatonActivityARN is the local Activity of the baton harness kind (docs/internals.md "Local ARNs and names").
const BatonActivityARN = "arn:aws:states:us-east-1:000000000000:activity:BatonActivity"

// RuntimeOptions configures a harness runtime process a test starts itself (besides the ones baton-local starts).
type RuntimeOptions struct {
	// ID is its BATON_RUNTIME_ID; "" = "rt_test_<pid>_<nanoseconds>".
	ID string
	// Binary is the runtime binary; "" = <repository root>/bin/baton-runtime.
	Binary string
	// Env is extra environment (KEY=VALUE), e.g. "BATON_RUNTIME_CAPABILITIES=streaming,durable_turns".
	Env []string
	// Credential, when set, runs the process as that user and group (e.g. uid/gid 65532, distroless nonroot).
	Credential *syscall.Credential
}

// RuntimeProcess is a runtime the test started: its own OS process in its own process group.
type RuntimeProcess struct {
	ID  string
	cmd *exec.Cmd
	log string

	exited chan struct{}
}

// StartRuntime starts a baton harness runtime against s with the environment baton-local gives its runtimes
// (AWS_ENDPOINT_URL_*, BATON_TABLE, BATON_ACTIVITY_ARN, BATON_HARNESS_KIND, BATON_RUNTIME_ID, …) and waits until
// GET /admin/v1/runtimes lists it. The process is killed when the test ends; its output is logged when the test
// failed.
func StartRuntime(t testing.TB, s *Stack, opts RuntimeOptions) *RuntimeProcess {
	t.Helper()
	bin := opts.Binary
	if bin == "" {
		root, err := stackproc.FindRoot()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(root, "bin", "baton-runtime")
	}
	if _, err := os.Stat(bin); err != nil {
		missing(t, fmt.Errorf("%w: %s", stackproc.ErrNoBinary, bin))
		t.Fatalf("runtime binary: %v", err)
	}
	id := opts.ID
	if id == "" {
		id = fmt.Sprintf("rt_test_%d_%d", os.Getpid(), time.Now().UnixNano())
	}
	logf, err := os.CreateTemp("", "baton-runtime-*.log")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(logf.Name(), 0o666)
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(),
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.DynamoDBURL, "AWS_ENDPOINT_URL_SFN=" + s.SFNURL, "AWS_ENDPOINT_URL_LAMBDA=" + s.LambdaURL,
		"BATON_TABLE=" + s.Table, "BATON_ACTIVITY_ARN=" + BatonActivityARN, "BATON_LOCAL_WAKE_URL=" + s.WakeURL(),
		"BATON_HARNESS_KIND=baton", "BATON_RUNTIME_ID=" + id, "BATON_WORKSPACE_ROOT=" + s.WorkspaceRoot,
	}
	cmd := exec.Command(bin)
	cmd.Env = append(env, opts.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: opts.Credential}
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", bin, err)
	}
	logf.Close()
	p := &RuntimeProcess{ID: id, cmd: cmd, log: logf.Name(), exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.Kill(t)
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			t.Logf("runtime %s output:\n%s", id, tail(string(b), 4000))
		}
		_ = os.Remove(p.log)
	})
	deadline := time.Now().Add(30 * time.Second)
	for !slices.ContainsFunc(s.Runtimes(t), func(r RuntimeView) bool { return r.ID == id }) {
		select {
		case <-p.exited:
			b, _ := os.ReadFile(p.log)
			t.Fatalf("runtime %s exited before it registered:\n%s", id, tail(string(b), 4000))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("runtime %s did not register within 30 s", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// Kill sends SIGKILL to the runtime's process group (a crashed container: no deregistration, no task failure) and
// waits until it is gone. Idempotent.
func (p *RuntimeProcess) Kill(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Errorf("runtime %s (pid %d) did not exit after SIGKILL", p.ID, p.cmd.Process.Pid)
	}
}

// Stop sends SIGTERM (a graceful shutdown: the runtime stops polling, finishes in-flight steps and deregisters) and
// waits until the process is gone.
func (p *RuntimeProcess) Stop(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(40 * time.Second):
		t.Errorf("runtime %s did not stop within 40 s of SIGTERM", p.ID)
		p.Kill(t)
	}
}

// RuntimeView is one entry of GET /admin/v1/runtimes.
type RuntimeView struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Capabilities []string `json:"capabilities"`
	Version      string   `json:"version"`
	HeartbeatAt  int64    `json:"heartbeat_at"`
}

// Runtimes lists the live runtimes through the admin API (GET /admin/v1/runtimes with the admin key).
func (s *Stack) Runtimes(t testing.TB) []RuntimeView {
	t.Helper()
	r := s.Do(t, http.MethodGet, "/admin/v1/runtimes", nil, map[string]string{"Authorization": "Bearer " + s.AdminKey, "OpenAI-Beta": ""})
	if r.Status != http.StatusOK {
		t.Fatalf("GET /admin/v1/runtimes: %d %s", r.Status, r.Body)
	}
	var body struct {
		Data []RuntimeView `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("decode runtimes %s: %v", r.Body, err)
	}
	return body.Data
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
