package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// Mode is how commands are isolated (docs/tools.md "Isolation").
type Mode string

const (
	// ModeBubblewrap: each command runs under bubblewrap in new user, PID, IPC, UTS and mount namespaces (and a
	// new network namespace when Limits.NoNetwork is set), with the system read-only, only its Session's
	// workspace (at MountPath) and a fresh, private /tmp writable, no capabilities and a minimal environment.
	ModeBubblewrap Mode = "bubblewrap"
	// ModeProcess: bubblewrap is missing or cannot create namespaces here; each command is a plain process of the
	// runtime's user with a minimal environment, in its workspace directory. Nothing isolates Sessions from each
	// other or from the runtime's files.
	ModeProcess Mode = "process"
)

// CommandPath is the PATH commands get (in either Mode).
const CommandPath = "/usr/local/bin:/usr/bin:/bin"

// waitDelay bounds how long Run waits for output pipes after the process ended or was killed (a background child
// of a plain process may hold them open).
const waitDelay = 2 * time.Second

// sandbox is the detected isolation.
type sandbox struct {
	mode    Mode
	bwrap   string // bwrap's path under ModeBubblewrap
	reason  string // why ModeProcess
	network bool
	memKB   int64
}

// detectSandbox looks up bwrap and runs `true` under the namespaces Run uses; failing that it returns
// ModeProcess with the reason.
func detectSandbox(l Limits) sandbox {
	s := sandbox{mode: ModeProcess, network: !l.NoNetwork, memKB: l.MemoryBytes / 1024}
	if s.memKB < 1 {
		s.memKB = 1
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		s.reason = "bwrap (Debian package bubblewrap) is not installed"
		return s
	}
	dir, err := os.MkdirTemp("", "baton-bwrap-probe-")
	if err != nil {
		s.reason = "cannot create a probe directory: " + err.Error()
		return s
	}
	defer os.RemoveAll(dir)
	probe := sandbox{mode: ModeBubblewrap, bwrap: path, network: !l.NoNetwork, memKB: s.memKB}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	name, args, env, cwd := probe.argv(dir, []string{"true"})
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = env, cwd
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		s.reason = fmt.Sprintf("bwrap cannot create its namespaces here: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
		return s
	}
	return probe
}

// env is the environment commands get (nothing of the runtime's own).
func (s sandbox) env(home string) []string {
	return []string{"PATH=" + CommandPath, "HOME=" + home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
}

// argv returns the program, arguments, environment and host working directory that run argv for the workspace
// at dir: bash sets the memory limit, then execs argv; under ModeBubblewrap all of it inside bwrap.
func (s sandbox) argv(dir string, argv []string) (string, []string, []string, string) {
	inner := append([]string{"/bin/bash", "-c", `ulimit -v "$0" || exit 125; exec "$@"`, strconv.FormatInt(s.memKB, 10)}, argv...)
	if s.mode != ModeBubblewrap {
		return inner[0], inner[1:], s.env(dir), dir
	}
	args := []string{
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "workspace", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
		"--ro-bind", "/usr", "/usr",
	}
	if !s.network {
		args = append(args, "--unshare-net")
	}
	// Merged-/usr systems have /bin, /lib… as symlinks into /usr; others get them read-only.
	for _, top := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(top); err == nil {
			args = append(args, "--symlink", target, top)
		} else {
			args = append(args, "--ro-bind-try", top, top)
		}
	}
	// Only the parts of /etc that programs need to run, resolve names and verify TLS.
	for _, f := range []string{"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.cache",
		"/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
		"/etc/localtime", "/etc/passwd", "/etc/group", "/etc/mime.types"} {
		args = append(args, "--ro-bind-try", f, f)
	}
	args = append(args,
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
		"--bind", dir, MountPath, "--remount-ro", "/", "--chdir", MountPath, "--clearenv")
	for _, kv := range s.env(MountPath) {
		k, v, _ := cutEnv(kv)
		args = append(args, "--setenv", k, v)
	}
	args = append(args, "--")
	args = append(args, inner...)
	// bwrap itself starts with the same minimal environment: its PID 1 keeps the environment it was started
	// with, readable as /proc/1/environ inside the sandbox.
	return s.bwrap, args, s.env(MountPath), dir
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// Command is one process to run in a workspace's sandbox.
type Command struct {
	// Args is the argv inside the sandbox, e.g. ["bash", "-c", "ls"]; Args[0] is looked up on the sandbox's PATH
	// (/usr/local/bin:/usr/bin:/bin).
	Args []string
	// Stdin is the process's standard input (nil = empty).
	Stdin []byte
	// Timeout is its wall-time limit; zero, or more than Limits.CommandTimeout, means Limits.CommandTimeout.
	Timeout time.Duration
}

// Result is what a Command observed: its two output streams (each kept up to Limits.OutputBytes, the rest
// counted and discarded), its exit status (128+signal when a signal ended it), whether it was killed at its
// time limit, and how long it ran.
type Result struct {
	Stdout   Stream
	Stderr   Stream
	ExitCode int
	TimedOut bool
	Duration time.Duration
}

// Run runs c in the workspace's sandbox (Mode) with its working directory at the workspace's top, its memory
// limited to Limits.MemoryBytes and its whole process tree killed (SIGKILL) at the time limit. A non-zero exit is
// a Result, not an error. Errors: an empty Args, the process could not be started, or ctx ended (ctx.Err(); the
// process tree was killed).
func (w *Workspace) Run(ctx context.Context, c Command) (Result, error) {
	if len(c.Args) == 0 {
		return Result{}, errors.New("workspace: empty command")
	}
	timeout := c.Timeout
	if timeout <= 0 || timeout > w.limits.CommandTimeout {
		timeout = w.limits.CommandTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name, args, env, cwd := w.sandbox.argv(w.dir, c.Args)
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.Env, cmd.Dir = env, cwd
	cmd.Stdin = bytes.NewReader(c.Stdin)
	out := &capture{max: w.limits.OutputBytes}
	errOut := &capture{max: w.limits.OutputBytes}
	cmd.Stdout, cmd.Stderr = out, errOut
	// Its own process group, so a kill reaches every process it started (under bubblewrap, killing bwrap's PID 1
	// also ends every process of its PID namespace); killed too if the runtime dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var killed atomic.Bool // set when the time limit (or ctx) ended the command, not its own exit
	cmd.Cancel = func() error {
		killed.Store(true)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("start %s: %w", name, err)
	}
	waitErr := cmd.Wait()
	// Whatever still runs in the group (a background child of a plain process) goes too.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	res := Result{Stdout: out.stream(), Stderr: errOut.stream(), Duration: time.Since(start)}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.TimedOut = killed.Load()
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case errors.Is(waitErr, exec.ErrWaitDelay):
		if cmd.ProcessState != nil {
			res.ExitCode = cmd.ProcessState.ExitCode()
		}
	default:
		return res, fmt.Errorf("wait for %s: %w", name, waitErr)
	}
	return res, nil
}
