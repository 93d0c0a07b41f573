package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// MountPath is where a command sees its workspace, and the absolute path file_operations accepts for it
// (docs/tools.md "Workspace").
const MountPath = "/workspace"

// Manager opens the workspaces of the Sessions under one root directory (locally a folder of the stack's data
// directory, on AWS the EFS mount) and runs their commands in the sandbox it detected at creation.
type Manager struct {
	root    string
	limits  Limits
	sandbox sandbox
}

// NewManager returns a Manager rooted at dir (created with mode 0700 when missing) with limits (zero fields take
// their defaults). It detects the sandbox once: bubblewrap when `bwrap` is on PATH and can create its namespaces
// here, else ModeProcess with Reason saying why; log is told once, as a warning, when the fallback is taken (nil =
// slog.Default()). Errors: dir cannot be created or is not a directory.
func NewManager(dir string, limits Limits, log *slog.Logger) (*Manager, error) {
	if log == nil {
		log = slog.Default()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	m := &Manager{root: abs, limits: limits.withDefaults()}
	m.sandbox = detectSandbox(m.limits)
	if m.sandbox.mode != ModeBubblewrap {
		log.Warn("builtin tools run without a sandbox: commands of different Sessions are not isolated from each other (docs/tools.md \"Isolation\")",
			"reason", m.sandbox.reason)
	}
	return m, nil
}

// Root is the directory under which the workspaces live.
func (m *Manager) Root() string { return m.root }

// Limits are the Manager's limits, defaults filled in.
func (m *Manager) Limits() Limits { return m.limits }

// Mode is the sandbox in use: ModeBubblewrap or ModeProcess.
func (m *Manager) Mode() Mode { return m.sandbox.mode }

// Reason says why Mode is ModeProcess ("" under ModeBubblewrap).
func (m *Manager) Reason() string { return m.sandbox.reason }

// safeName is a session id used as a directory name unchanged.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// DirName is the directory name of the workspace of sessionID: "s-<id>" when the id is 1–128 characters of
// [A-Za-z0-9_-], otherwise "h-" and the hex SHA-256 of the id (never a path separator, ".", ".." or a collision
// between the two forms).
func DirName(sessionID string) string {
	if safeName.MatchString(sessionID) {
		return "s-" + sessionID
	}
	sum := sha256.Sum256([]byte(sessionID))
	return "h-" + hex.EncodeToString(sum[:])
}

// Open returns the workspace of sessionID, creating its directory (mode 0700) the first time; the files stay
// across calls, Turns and runtimes sharing the root. Close the Workspace when the activity task ends. Errors:
// ErrSessionID for "", or the directory cannot be created or opened.
func (m *Manager) Open(sessionID string) (*Workspace, error) {
	if sessionID == "" {
		return nil, ErrSessionID
	}
	name := DirName(sessionID)
	parent, err := os.OpenRoot(m.root)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	defer parent.Close()
	if err := parent.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &Workspace{dir: filepath.Join(m.root, name), root: r, limits: m.limits, sandbox: m.sandbox}, nil
}

// Workspace is the directory of one Session. Its methods may be called from one goroutine at a time.
type Workspace struct {
	dir     string
	root    *os.Root
	limits  Limits
	sandbox sandbox
}

// Dir is the workspace's directory on the host.
func (w *Workspace) Dir() string { return w.dir }

// Root is the workspace opened as an os.Root: every file access through it stays inside the workspace (".." and
// symlinks that leave it are refused).
func (w *Workspace) Root() *os.Root { return w.root }

// Limits are the limits of its Manager.
func (w *Workspace) Limits() Limits { return w.limits }

// Mode is the sandbox its commands run in.
func (w *Workspace) Mode() Mode { return w.sandbox.mode }

// Cwd is the working directory a command sees: MountPath in a sandbox, the host directory without one.
func (w *Workspace) Cwd() string {
	if w.sandbox.mode == ModeBubblewrap {
		return MountPath
	}
	return w.dir
}

// Close releases the workspace's directory handle; the files stay.
func (w *Workspace) Close() error { return w.root.Close() }

// Resolve maps a path a model named to a path relative to the workspace, for use with Root (docs/tools.md
// "Paths"): a relative path is taken from the workspace's top; an absolute path must be MountPath or below it
// (or, without a sandbox, the host directory or below it, the path commands see); "." is the top. Errors (ErrPath):
// an empty path, an absolute path elsewhere, a path whose ".." leaves the workspace. Symlinks are not resolved
// here: Root refuses at access time any that lead outside.
func (w *Workspace) Resolve(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: the path is empty", ErrPath)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: the path contains a NUL byte", ErrPath)
	}
	rel := p
	if strings.HasPrefix(p, "/") {
		clean := path.Clean(p)
		switch {
		case clean == MountPath:
			rel = "."
		case strings.HasPrefix(clean, MountPath+"/"):
			rel = strings.TrimPrefix(clean, MountPath+"/")
		case w.sandbox.mode != ModeBubblewrap && clean == filepath.ToSlash(w.dir):
			rel = "."
		case w.sandbox.mode != ModeBubblewrap && strings.HasPrefix(clean, filepath.ToSlash(w.dir)+"/"):
			rel = strings.TrimPrefix(clean, filepath.ToSlash(w.dir)+"/")
		default:
			return "", fmt.Errorf("%w: %q is outside the workspace %s", ErrPath, p, MountPath)
		}
	}
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%w: %q leaves the workspace", ErrPath, p)
	}
	return filepath.FromSlash(rel), nil
}

// Display is how a relative path (from Resolve) is shown to the model: under Cwd.
func (w *Workspace) Display(rel string) string {
	if rel == "." || rel == "" {
		return w.Cwd()
	}
	return path.Join(w.Cwd(), filepath.ToSlash(rel))
}

// Size returns the bytes the workspace's regular files hold, walking it without following symlinks; it stops
// counting once the sum passes stop (stop <= 0 = count everything). Errors: the walk fails at the top.
func (w *Workspace) Size(stop int64) (int64, error) {
	var sum int64
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // vanished or unreadable: not counted
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				sum += info.Size()
			}
		}
		if stop > 0 && sum > stop {
			return fs.SkipAll
		}
		return nil
	})
	return sum, err
}

// CheckSize returns an error wrapping ErrTooLarge, naming the limit, when the workspace holds more than
// Limits.MaxBytes plus extra bytes (the size of a pending write; 0 after a command).
func (w *Workspace) CheckSize(extra int64) error {
	n, err := w.Size(w.limits.MaxBytes)
	if err != nil {
		return fmt.Errorf("measure workspace: %w", err)
	}
	if n+extra > w.limits.MaxBytes {
		return fmt.Errorf("%w: the workspace would hold more than its limit of %d bytes; delete files to make room", ErrTooLarge, w.limits.MaxBytes)
	}
	return nil
}

// SnapshotLimit bounds the entries a Snapshot records.
const SnapshotLimit = 10000

// Snapshot records the size and modification time of up to SnapshotLimit regular files of a workspace, keyed by
// path relative to it (slash-separated).
type Snapshot map[string]fileStamp

type fileStamp struct {
	size  int64
	mtime time.Time
}

// Snapshot walks the workspace (symlinks not followed) and records its regular files.
func (w *Workspace) Snapshot() Snapshot {
	s := Snapshot{}
	_ = fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(s) >= SnapshotLimit {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				s[p] = fileStamp{size: info.Size(), mtime: info.ModTime()}
			}
		}
		return nil
	})
	return s
}

// Changed returns the paths (relative, slash-separated, sorted) of regular files that are in after but not in
// before, or whose size or modification time differ.
func Changed(before, after Snapshot) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b.size != a.size || !b.mtime.Equal(a.mtime) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
