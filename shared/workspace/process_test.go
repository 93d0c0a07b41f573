package workspace

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// newProcessManager returns a Manager forced into ModeProcess, the fallback where bubblewrap cannot run.
func newProcessManager(t *testing.T, l Limits) *Manager {
	t.Helper()
	m, err := NewManager(t.TempDir(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.sandbox = sandbox{mode: ModeProcess, reason: "forced by the test", network: !m.limits.NoNetwork, memKB: m.limits.MemoryBytes / 1024}
	return m
}

func TestProcessModeStillClearsTheEnvironment(t *testing.T) {
	// Not parallel: it sets a canary in this process's environment.
	const canary = "canary-5be0-process-mode"
	t.Setenv("AWS_SECRET_ACCESS_KEY", canary)
	m := newProcessManager(t, Limits{})
	w := open(t, m, "sess-p")
	r := bash(t, w, `pwd; env`)
	if r.ExitCode != 0 || strings.Contains(r.Stdout.Data, canary) {
		t.Fatalf("%+v", r)
	}
	if !strings.HasPrefix(r.Stdout.Data, w.Dir()+"\n") || !strings.Contains(r.Stdout.Data, "HOME="+w.Dir()+"\n") || w.Cwd() != w.Dir() {
		t.Fatalf("working directory and HOME should be the workspace %s: %q", w.Dir(), r.Stdout.Data)
	}
}

func TestProcessModeKeepsTheLimits(t *testing.T) {
	t.Parallel()
	m := newProcessManager(t, Limits{CommandTimeout: time.Second, MemoryBytes: 256 << 20})
	w := open(t, m, "sess-p")
	marker := fmt.Sprintf("baton-process-probe-%d", time.Now().UnixNano())
	r := bash(t, w, fmt.Sprintf(`(exec -a %s sleep 1000) & echo started; sleep 1000`, marker))
	if !r.TimedOut || r.ExitCode != 137 || r.Stdout.Data != "started\n" {
		t.Fatalf("want killed at the limit: %+v", r)
	}
	for i := 0; processWithArg0(t, marker); i++ {
		if i == 200 {
			t.Fatalf("a process of the killed command is still running: %s", marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r, err := w.Run(context.Background(), Command{Args: []string{"bash", "-c", `yes | head -c 1000000; python3 -c 'bytearray(1 << 30)'`}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout.Total != 1000000 || len(r.Stdout.Data) != DefaultOutputBytes || !strings.Contains(r.Stderr.Data, "MemoryError") {
		t.Fatalf("total %d, kept %d, stderr %q", r.Stdout.Total, len(r.Stdout.Data), r.Stderr.Data)
	}
}

func TestCommandCannotSeeAnotherSessionsProcesses(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{CommandTimeout: 30 * time.Second})
	a, b := open(t, m, "sess-a"), open(t, m, "sess-b")
	marker := fmt.Sprintf("baton-b-process-%d", time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = b.Run(ctx, Command{Args: []string{"bash", "-c", fmt.Sprintf(`exec -a %s sleep 1000`, marker)}})
	}()
	for i := 0; !processWithArg0(t, marker); i++ {
		if i == 400 {
			t.Fatal("session B's process did not start")
		}
		time.Sleep(25 * time.Millisecond)
	}
	r := bash(t, a, `cat /proc/[0-9]*/cmdline | tr '\0' ' '; echo; echo done`)
	if strings.Contains(r.Stdout.Data, marker) || !strings.Contains(r.Stdout.Data, "cat /proc") || !strings.HasSuffix(r.Stdout.Data, "done\n") {
		t.Fatalf("session A sees: %q", r.Stdout.Data)
	}
	cancel()
	<-done
}
