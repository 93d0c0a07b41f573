package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// newManager returns a Manager on a fresh directory and fails the test when bubblewrap cannot run here: `make test`
// installs it, so its absence is a broken machine, not a reason to skip.
func newManager(t *testing.T, l Limits) *Manager {
	t.Helper()
	m, err := NewManager(t.TempDir(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Mode() != ModeBubblewrap {
		t.Fatalf("the sandbox tests need bubblewrap: %s (install the Debian package bubblewrap; `make test` does as root)", m.Reason())
	}
	return m
}

func open(t *testing.T, m *Manager, id string) *Workspace {
	t.Helper()
	w, err := m.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func bash(t *testing.T, w *Workspace, script string) Result {
	t.Helper()
	r, err := w.Run(context.Background(), Command{Args: []string{"bash", "-c", script}})
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	return r
}

func TestDirNameIsOneSafeComponentPerSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, prefix string }{
		{"sess_01HZX", "s-"},
		{"a-B_9", "s-"},
		{"..", "h-"},
		{"a/b", "h-"},
		{"s-x/../..", "h-"},
		{strings.Repeat("x", 129), "h-"},
	} {
		n := DirName(tc.id)
		if !strings.HasPrefix(n, tc.prefix) || strings.ContainsAny(n, "/\\.") || filepath.Base(n) != n {
			t.Errorf("DirName(%q) = %q, want one component starting %q", tc.id, n, tc.prefix)
		}
	}
	if DirName("a/b") == DirName("a_b") || DirName("x") == DirName("y") {
		t.Error("distinct session ids share a directory")
	}
}

func TestLimitsFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Limits
		wantErr string
	}{
		{name: "unset keeps the defaults", env: nil, want: DefaultLimits()},
		{name: "every setting read", env: map[string]string{EnvCommandTimeoutSeconds: "5", EnvOutputBytes: "100",
			EnvMaxBytes: "4096", EnvMemoryBytes: "1048576", EnvNetwork: "false"},
			want: Limits{CommandTimeout: 5 * time.Second, OutputBytes: 100, MaxBytes: 4096, MemoryBytes: 1 << 20, NoNetwork: true}},
		{name: "zero timeout refused", env: map[string]string{EnvCommandTimeoutSeconds: "0"}, wantErr: EnvCommandTimeoutSeconds},
		{name: "text refused", env: map[string]string{EnvOutputBytes: "lots"}, wantErr: EnvOutputBytes},
		{name: "negative size refused", env: map[string]string{EnvMaxBytes: "-1"}, wantErr: EnvMaxBytes},
		{name: "bad boolean refused", env: map[string]string{EnvNetwork: "sometimes"}, wantErr: EnvNetwork},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := LimitsFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestResolveKeepsPathsInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{ModeBubblewrap, ModeProcess} {
		w := &Workspace{dir: "/data/ws/s-1", sandbox: sandbox{mode: mode}}
		for _, tc := range []struct {
			in, want string
			mode     Mode // "" = both
		}{
			{in: "a.txt", want: "a.txt"},
			{in: "./d/../a.txt", want: "a.txt"},
			{in: ".", want: "."},
			{in: "/workspace", want: "."},
			{in: "/workspace/", want: "."},
			{in: "/workspace/x/y", want: "x/y"},
			{in: "/workspace/x/../y", want: "y"},
			{in: "/data/ws/s-1/x", want: "x", mode: ModeProcess},
			{in: "/data/ws/s-1/x", want: "", mode: ModeBubblewrap},
			{in: "/workspace/../etc/passwd", want: ""},
			{in: "/etc/passwd", want: ""},
			{in: "/workspacefoo/a", want: ""},
			{in: "/data/ws/s-2/x", want: ""},
			{in: "../s-2/secret", want: ""},
			{in: "a/../../x", want: ""},
			{in: "..", want: ""},
			{in: "", want: ""},
			{in: "a\x00b", want: ""},
		} {
			if tc.mode != "" && tc.mode != mode {
				continue
			}
			got, err := w.Resolve(tc.in)
			if tc.want == "" {
				if !errors.Is(err, ErrPath) {
					t.Errorf("%s: Resolve(%q) = %q, %v; want ErrPath", mode, tc.in, got, err)
				}
				continue
			}
			if err != nil || got != filepath.FromSlash(tc.want) {
				t.Errorf("%s: Resolve(%q) = %q, %v; want %q", mode, tc.in, got, err, tc.want)
			}
		}
	}
}

func TestRootRefusesASymlinkOutOfTheWorkspace(t *testing.T) {
	t.Parallel()
	m, err := NewManager(t.TempDir(), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := open(t, m, "sess-a")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Dir(), "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside.txt", filepath.Join(w.Dir(), "in")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "inside.txt"), []byte("inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	rel, err := w.Resolve("/workspace/out/secret")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := w.Root().ReadFile(rel); err == nil {
		t.Fatalf("read through a symlink out of the workspace: %q", b)
	}
	if b, err := w.Root().ReadFile("in"); err != nil || string(b) != "inside" {
		t.Fatalf("a symlink inside the workspace: %q, %v", b, err)
	}
}

func TestSessionsGetTheirOwnPersistentWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	m, err := NewManager(root, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, m, "sess-a")
	if err := a.Root().WriteFile("kept.txt", []byte("turn 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another Manager on the same root (another runtime) sees the file; another Session does not.
	m2, err := NewManager(root, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := open(t, m2, "sess-a").Root().ReadFile("kept.txt"); err != nil || string(b) != "turn 1" {
		t.Fatalf("second runtime: %q, %v", b, err)
	}
	if _, err := open(t, m2, "sess-b").Root().ReadFile("kept.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("another Session read the file: %v", err)
	}
	// An id that is not a safe name still gets one directory directly under the root.
	odd := open(t, m, "../a/b")
	if filepath.Dir(odd.Dir()) != root || !strings.HasPrefix(filepath.Base(odd.Dir()), "h-") {
		t.Fatalf("directory of an odd id: %s", odd.Dir())
	}
	if _, err := m.Open(""); !errors.Is(err, ErrSessionID) {
		t.Fatalf("empty id: %v", err)
	}
}

func TestCommandRunsInTheWorkspaceWithAMinimalEnvironment(t *testing.T) {
	// Not parallel: it sets a canary in this process's environment, which the sandbox must not pass on.
	const canary = "canary-a3f9c1-not-for-commands"
	t.Setenv("AWS_SECRET_ACCESS_KEY", canary)
	t.Setenv("BATON_TEST_CANARY", canary)
	m := newManager(t, Limits{})
	w := open(t, m, "sess-env")
	r := bash(t, w, `pwd; echo ---env; env; echo ---init; tr '\0' '\n' < /proc/1/environ; echo ---self; cat /proc/self/environ | tr '\0' '\n'`)
	out := r.Stdout.Data
	if r.ExitCode != 0 {
		t.Fatalf("exit %d: %s%s", r.ExitCode, out, r.Stderr.Data)
	}
	if strings.Contains(out, canary) || strings.Contains(out, "AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("the runtime's environment is visible to the command:\n%s", out)
	}
	// Each section was read (so the absence above means something).
	for _, want := range []string{"/workspace\n---env\n", "HOME=/workspace", "---init\nPATH=" + CommandPath, "---self\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "HOME=/workspace") < 3 {
		t.Errorf("not every environment was read:\n%s", out)
	}
}

func TestCommandCannotReachAnotherSessionsWorkspace(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{})
	a, b := open(t, m, "sess-a"), open(t, m, "sess-b")
	const secret = "secret-of-b-7d1e"
	if err := b.Root().WriteFile("secret.txt", []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	// B itself reads it, by the paths A will try.
	if r := bash(t, b, "cat /workspace/secret.txt"); r.Stdout.Data != secret {
		t.Fatalf("B cannot read its own file: %+v", r)
	}
	r := bash(t, a, fmt.Sprintf(`cat %q; cat /workspace/../%s/secret.txt; cat %q/*/secret.txt; ls %q; ls -a / /workspace/..; echo done`,
		filepath.Join(b.Dir(), "secret.txt"), DirName("sess-b"), m.Root(), m.Root()))
	if strings.Contains(r.Stdout.Data, secret) || strings.Contains(r.Stderr.Data, secret) || strings.Contains(r.Stdout.Data, DirName("sess-b")) {
		t.Fatalf("session A read session B's file:\n%s\n%s", r.Stdout.Data, r.Stderr.Data)
	}
	if !strings.HasSuffix(r.Stdout.Data, "done\n") || !strings.Contains(r.Stderr.Data, "No such file or directory") {
		t.Fatalf("the probe did not run as written: %+v", r)
	}
}

func TestCommandCannotWriteOutsideItsWorkspace(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{})
	w := open(t, m, "sess-w")
	r := bash(t, w, `touch /usr/x 2>/dev/null && echo usr-writable; touch /x 2>/dev/null && echo root-writable; touch /etc/x 2>/dev/null && echo etc-writable; touch /tmp/x && echo tmp-ok; touch /workspace/x && echo ws-ok`)
	if r.Stdout.Data != "tmp-ok\nws-ok\n" {
		t.Fatalf("writable places: %q", r.Stdout.Data)
	}
}

func TestCommandIsKilledAtTheTimeLimit(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{CommandTimeout: time.Second})
	w := open(t, m, "sess-t")
	marker := fmt.Sprintf("baton-timeout-probe-%d", time.Now().UnixNano())
	r := bash(t, w, fmt.Sprintf(`(exec -a %s sleep 1000) & echo started; sleep 1000`, marker))
	if !r.TimedOut || r.ExitCode != 128+9 || r.Stdout.Data != "started\n" {
		t.Fatalf("want killed at the limit: %+v", r)
	}
	// The background child went with it (the PID namespace ends with its PID 1). The kernel reaps it
	// asynchronously, so wait for it to be gone rather than expecting it gone at once.
	for i := 0; processWithArg0(t, marker); i++ {
		if i == 200 {
			t.Fatalf("a process of the killed command is still running: %s", marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processWithArg0 reports whether a process whose argv[0] is arg0 runs on this machine.
func processWithArg0(t *testing.T, arg0 string) bool {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && strings.HasPrefix(string(b), arg0+"\x00") {
			return true
		}
	}
	return false
}

func TestRunCallerCancellationIsAnError(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{})
	w := open(t, m, "sess-c")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Run(ctx, Command{Args: []string{"true"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOutputIsCappedWhileReading(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{})
	w := open(t, m, "sess-o")
	r := bash(t, w, `yes | head -c 10000000; echo tail >&2`)
	if r.ExitCode != 0 || r.Stdout.Total != 10000000 || len(r.Stdout.Data) != DefaultOutputBytes {
		t.Fatalf("exit %d, total %d, kept %d", r.ExitCode, r.Stdout.Total, len(r.Stdout.Data))
	}
	out, errText := FitTwo(r.Stdout, r.Stderr, DefaultOutputBytes)
	if len(out)+len(errText) > DefaultOutputBytes {
		t.Fatalf("%d bytes returned, limit %d", len(out)+len(errText), DefaultOutputBytes)
	}
	kept := DefaultOutputBytes - len("tail\n") - markerRoom
	if !strings.HasSuffix(out, TruncationMarker(int64(10000000-kept))) || !strings.HasPrefix(out, "y\ny\n") || errText != "tail\n" {
		t.Fatalf("stdout ends %q, stderr %q", out[len(out)-80:], errText)
	}
}

func TestMemoryLimitStopsALargeAllocation(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{MemoryBytes: 256 << 20})
	w := open(t, m, "sess-m")
	r := bash(t, w, `python3 -c 'b = bytearray(1 << 30); print("allocated")'`)
	if r.ExitCode == 0 || strings.Contains(r.Stdout.Data, "allocated") || !strings.Contains(r.Stderr.Data, "MemoryError") {
		t.Fatalf("want MemoryError: %+v", r)
	}
	if r := bash(t, w, `python3 -c 'b = bytearray(1 << 20); print("allocated")'`); r.Stdout.Data != "allocated\n" {
		t.Fatalf("a small allocation failed: %+v", r)
	}
}

func TestNetworkSetting(t *testing.T) {
	t.Parallel()
	const list = `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`
	host, err := exec.Command("bash", "-c", list).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(host) == "lo\n" {
		t.Fatal("this machine has no network interface but loopback; the default case below would prove nothing")
	}
	// Default: the runtime's network.
	if r := bash(t, open(t, newManager(t, Limits{}), "sess-n"), list); r.Stdout.Data != string(host) {
		t.Errorf("default: interfaces %q, want the host's %q", r.Stdout.Data, host)
	}
	// NoNetwork: only loopback.
	if r := bash(t, open(t, newManager(t, Limits{NoNetwork: true}), "sess-n"), list); r.Stdout.Data != "lo\n" {
		t.Errorf("NoNetwork: interfaces %q (stderr %q)", r.Stdout.Data, r.Stderr.Data)
	}
}

func TestCheckSizeAndSnapshot(t *testing.T) {
	t.Parallel()
	m := newManager(t, Limits{MaxBytes: 1000})
	w := open(t, m, "sess-s")
	if err := w.Root().WriteFile("old.txt", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := w.Snapshot()
	r := bash(t, w, `mkdir -p d && head -c 600 /dev/zero > d/new.bin && echo changed >> old.txt && ln -s /etc/passwd link`)
	if r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if diff := cmp.Diff([]string{"d/new.bin", "old.txt"}, Changed(before, w.Snapshot())); diff != "" {
		t.Error(diff)
	}
	if err := w.CheckSize(0); err != nil {
		t.Fatalf("611 bytes under a 1000-byte limit: %v", err)
	}
	if err := w.CheckSize(400); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 400-byte write: %v, want ErrTooLarge", err)
	}
	bash(t, w, `head -c 600 /dev/zero > more.bin`)
	if err := w.CheckSize(0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("1211 bytes: %v, want ErrTooLarge", err)
	}
}

func TestFitTwoSharesTheBudget(t *testing.T) {
	t.Parallel()
	small := Stream{Data: "err\n", Total: 4}
	big := Stream{Data: strings.Repeat("é", 500), Total: 5000}
	a, b := FitTwo(big, small, 200)
	// stderr needs 4 bytes, so stdout gets 196: 132 bytes of text (66 runes) and the marker.
	if want := strings.Repeat("é", 66) + TruncationMarker(5000-132); a != want || b != "err\n" {
		t.Fatalf("got %q %q, want %q", a, b, want)
	}
	// An odd budget never splits a rune.
	if a, _ := FitTwo(big, small, 201); !strings.HasPrefix(a, strings.Repeat("é", 66)+"\n[…") {
		t.Fatalf("cut inside a rune: %q", a)
	}
	if a, b := FitTwo(Stream{Data: "x", Total: 1}, small, 200); a != "x" || b != "err\n" {
		t.Fatalf("untruncated: %q %q", a, b)
	}
}

func TestBackgroundProcessesEndWithTheCommand(t *testing.T) {
	t.Parallel()
	for _, m := range []*Manager{newManager(t, Limits{CommandTimeout: 60 * time.Second}), newProcessManager(t, Limits{CommandTimeout: 60 * time.Second})} {
		w := open(t, m, "sess-bg")
		marker := fmt.Sprintf("baton-bg-probe-%s-%d", m.Mode(), time.Now().UnixNano())
		r := bash(t, w, fmt.Sprintf(`(exec -a %s sleep 1000) > /dev/null 2>&1 & echo left`, marker))
		if r.TimedOut || r.ExitCode != 0 || r.Stdout.Data != "left\n" {
			t.Fatalf("%s: %+v", m.Mode(), r)
		}
		for i := 0; processWithArg0(t, marker); i++ {
			if i == 200 {
				t.Fatalf("%s: a background process outlived its command: %s", m.Mode(), marker)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
