package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/tests/stack"
)

// TestTheREADMEExamplesRunAgainstAStack builds examples/quickstart and examples/manualflow (the README's code) and
// runs each against the shared stack the way a user would, with OPENAI_BASE_URL and OPENAI_API_KEY: the
// quickstart's Sessions.Stream round trip prints the scripted answer; the manual flow answers the required action
// with a tool result from the live stream, resumes the stream with Last-Event-ID and cancels a second turn.
func TestTheREADMEExamplesRunAgainstAStack(t *testing.T) {
	t.Parallel()
	s := stack.Shared(t)
	root, err := stackproc.FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		example string
		want    []string
	}{
		{"quickstart", []string{`In Paris: {"city":"Paris","temp_c":21}`}},
		{"manualflow", []string{`[get_weather(map[city:Paris])]`, `In Paris: {"city":"Paris","temp_c":21}`, "second turn: cancelled"}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			bin := filepath.Join(t.TempDir(), tc.example)
			build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/"+tc.example)
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build ./examples/%s: %v\n%s", tc.example, err, out)
			}
			run := exec.CommandContext(ctx, bin)
			run.Env = append(os.Environ(), "OPENAI_BASE_URL="+s.BaseURL, "OPENAI_API_KEY="+s.APIKey)
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.example, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("%s printed:\n%s\nwant it to contain %q", tc.example, out, w)
				}
			}
		})
	}
}
