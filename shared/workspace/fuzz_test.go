package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: whatever path a model names, Resolve either refuses it with ErrPath or returns a clean relative
// path that stays inside the workspace.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "/workspace/x", "../x", "/workspace/../etc", "a/../../b", "/data/ws/s-1/x", "", ".", "//workspace//a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, mode := range []Mode{ModeBubblewrap, ModeProcess} {
			w := &Workspace{dir: "/data/ws/s-1", sandbox: sandbox{mode: mode}}
			rel, err := w.Resolve(p)
			if err != nil {
				if !errors.Is(err, ErrPath) {
					t.Fatalf("%s: Resolve(%q): %v is not ErrPath", mode, p, err)
				}
				continue
			}
			slash := filepath.ToSlash(rel)
			if filepath.IsAbs(rel) || slash == ".." || strings.HasPrefix(slash, "../") || filepath.Clean(rel) != rel || strings.ContainsRune(rel, 0) {
				t.Fatalf("%s: Resolve(%q) = %q escapes or is not clean", mode, p, rel)
			}
		}
	})
}
