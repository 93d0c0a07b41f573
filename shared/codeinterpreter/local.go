package codeinterpreter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-run/baton/shared/workspace"
)

// ErrUnsupportedLanguage: the provider cannot run programs of the language asked for.
var ErrUnsupportedLanguage = errors.New("unsupported language")

// localHeadroom is the part of the output limit Local leaves to the tool's own lines and the file list.
const localHeadroom = 2048

// LocalProvider runs programs in one Session's workspace sandbox (docs/tools.md "Code interpreter").
type LocalProvider struct {
	ws *workspace.Workspace
}

// Local returns the local Provider on a Session's workspace: each Execute is a fresh `python3` or `node` process
// reading the program on its standard input, in the workspace's sandbox (working directory /workspace), under the
// workspace's Limits (wall time CommandTimeout, memory MemoryBytes, stdout and stderr together within OutputBytes
// less 2048 bytes for the rest of the result). Files the program creates or changes (size or modification time,
// at most workspace.SnapshotLimit files compared) are reported and stay in the workspace. No interpreter state
// persists between calls. TypeScript is refused with ErrUnsupportedLanguage: the machines Baton runs on have
// node 20, which cannot run TypeScript without a compiler.
func Local(ws *workspace.Workspace) *LocalProvider { return &LocalProvider{ws: ws} }

var _ Provider = (*LocalProvider)(nil)

// Execute runs code. Errors: ErrUnsupportedLanguage (typescript, or a language Tool does not offer), the
// interpreter could not be started, or ctx ended.
func (p *LocalProvider) Execute(ctx context.Context, language, code string) (Execution, error) {
	var args []string
	switch language {
	case LanguagePython, "":
		args = []string{"python3", "-"}
	case LanguageJavaScript:
		args = []string{"node", "-"}
	case LanguageTypeScript:
		return Execution{}, fmt.Errorf("%w: TypeScript cannot run in the local code interpreter (node 20 has no TypeScript runner); use javascript or python", ErrUnsupportedLanguage)
	default:
		return Execution{}, fmt.Errorf("%w: %q (use python or javascript)", ErrUnsupportedLanguage, language)
	}
	before := p.ws.Snapshot()
	r, err := p.ws.Run(ctx, workspace.Command{Args: args, Stdin: []byte(code)})
	if err != nil {
		return Execution{}, err
	}
	budget := max(p.ws.Limits().OutputBytes-localHeadroom, 0)
	stdout, stderr := workspace.FitTwo(r.Stdout, r.Stderr, budget)
	if err := p.ws.CheckSize(0); err != nil && errors.Is(err, workspace.ErrTooLarge) {
		if stderr != "" && !strings.HasSuffix(stderr, "\n") {
			stderr += "\n"
		}
		stderr += "[" + err.Error() + "]\n"
	}
	return Execution{Stdout: stdout, Stderr: stderr, ExitCode: r.ExitCode, TimedOut: r.TimedOut,
		Files: workspace.Changed(before, p.ws.Snapshot())}, nil
}

// Close does nothing: the workspace's files stay and no process outlives an Execute.
func (p *LocalProvider) Close(context.Context) error { return nil }
