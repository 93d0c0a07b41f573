package workspacetest

import (
	"testing"

	"github.com/baton-run/baton/shared/workspace"
)

// NewManager returns a workspace.Manager rooted at a fresh t.TempDir() with limits (zero fields take their defaults).
// It fails the test when bubblewrap cannot run here: `make test` installs it, so its absence is a broken machine,
// not a reason to skip.
func NewManager(t testing.TB, limits workspace.Limits) *workspace.Manager {
	t.Helper()
	m, err := workspace.NewManager(t.TempDir(), limits, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Mode() != workspace.ModeBubblewrap {
		t.Fatalf("%s needs bubblewrap: %s (install the Debian package bubblewrap; `make test` does as root)", t.Name(), m.Reason())
	}
	return m
}

// Open returns the workspace of the Session "sess-test" of a NewManager with limits, closed when the test ends.
func Open(t testing.TB, limits workspace.Limits) *workspace.Workspace {
	t.Helper()
	w, err := NewManager(t, limits).Open("sess-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}
