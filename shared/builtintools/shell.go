package builtintools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/workspace"
)

// ShellName and FileOperationsName are the tools' documented names (harness.BuiltinToolNames).
const (
	ShellName          = "shell"
	FileOperationsName = "file_operations"
)

// Tools returns both default tools for one Session's workspace, keyed by name, as harness.Job.Builtins takes them.
func Tools(ws *workspace.Workspace) map[string]harness.BuiltinTool {
	return map[string]harness.BuiltinTool{ShellName: Shell(ws), FileOperationsName: FileOperations(ws)}
}

// shellTool runs one bash command per call in a fresh sandboxed shell.
type shellTool struct{ ws *workspace.Workspace }

// Shell returns the `shell` tool of a workspace (docs/tools.md "shell"): arguments `{"command": string (required),
// "timeout": integer seconds ≥ 1 (optional; capped at the workspace's command time limit, which is also the
// default)}`; it runs `bash -c <command>` in a fresh sandboxed shell whose working directory is the workspace
// (/workspace), so files persist across calls and the working directory and environment do not. The result's
// Output is a text rendering of the exit code, stdout and stderr within the output limit (ShellOutput);
// ExitCode, Command (the command) and Cwd are set. IsError is set when the command was killed at its time limit,
// when it left the workspace over its size limit, or when it could not be started; a non-zero exit alone is not
// an error. Call returns an error only when ctx ended.
func Shell(ws *workspace.Workspace) harness.BuiltinTool { return shellTool{ws: ws} }

var _ harness.BuiltinTool = shellTool{}

// Definition is the model-facing definition.
func (t shellTool) Definition() harness.Tool {
	l := t.ws.Limits()
	secs := int64(l.CommandTimeout / time.Second)
	return harness.Tool{
		Name: ShellName,
		Description: fmt.Sprintf("Run a bash command in a fresh shell in %s, the session's workspace: files there persist "+
			"across calls and turns; the working directory and environment do not (use `cd dir && …`). Returns the exit "+
			"code, stdout and stderr, together cut to %d bytes. The command is killed after `timeout` seconds (default "+
			"and maximum %d).", t.ws.Cwd(), l.OutputBytes, secs),
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"command":{"type":"string","minLength":1,"description":"The bash command to run."},`+
			`"timeout":{"type":"integer","minimum":1,"maximum":%d,"description":"Seconds before the command is killed."}},`+
			`"required":["command"],"additionalProperties":false}`, secs)),
	}
}

// Call runs the command.
func (t shellTool) Call(ctx context.Context, arguments json.RawMessage) (harness.BuiltinResult, error) {
	var a struct {
		Command string `json:"command"`
		Timeout *int64 `json:"timeout"`
	}
	cwd := t.ws.Cwd()
	if err := json.Unmarshal(arguments, &a); err != nil || a.Command == "" {
		return harness.BuiltinResult{Output: "Error: `command` (a non-empty string) is required.", Cwd: cwd, IsError: true}, nil
	}
	limit := t.ws.Limits().CommandTimeout
	timeout := limit
	if a.Timeout != nil && *a.Timeout > 0 && time.Duration(*a.Timeout)*time.Second < limit {
		timeout = time.Duration(*a.Timeout) * time.Second
	}
	res := harness.BuiltinResult{Command: a.Command, Cwd: cwd}
	r, err := t.ws.Run(ctx, workspace.Command{Args: []string{"bash", "-c", a.Command}, Timeout: timeout})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return harness.BuiltinResult{}, ctxErr
	}
	if err != nil {
		res.Output, res.IsError = "Error: the command could not be started: "+err.Error(), true
		return res, nil
	}
	res.ExitCode = r.ExitCode
	var notes []string
	if r.TimedOut {
		res.IsError = true
		notes = append(notes, fmt.Sprintf("Error: the command was killed after %s (time limit).", timeout))
	}
	if err := t.ws.CheckSize(0); err != nil {
		res.IsError = true
		notes = append(notes, "Error: "+sizeMessage(err))
	}
	res.Output = ShellOutput(r, t.ws.Limits().OutputBytes, notes)
	return res, nil
}

// sizeMessage is the model-facing text of a CheckSize error.
func sizeMessage(err error) string {
	if errors.Is(err, workspace.ErrTooLarge) {
		return strings.TrimPrefix(err.Error(), workspace.ErrTooLarge.Error()+": ") + "."
	}
	return err.Error()
}

// shellHeadroom is what ShellOutput keeps for its own lines out of the output limit.
const shellHeadroom = 256

// ShellOutput renders a command's result as the model reads it, in at most limit bytes (docs/tools.md "shell"):
//
//	[notes, one per line]
//	exit_code: N
//	stdout:
//	<stdout>
//	stderr:
//	<stderr>
//
// An empty stream is left out; with both empty the last line is "(no output)". Streams share the budget (FitTwo)
// and cut ones end with the truncation marker.
func ShellOutput(r workspace.Result, limit int, notes []string) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	fmt.Fprintf(&b, "exit_code: %d\n", r.ExitCode)
	budget := limit - shellHeadroom
	if budget < 0 {
		budget = 0
	}
	out, errText := workspace.FitTwo(r.Stdout, r.Stderr, budget)
	if r.Stdout.Total > 0 {
		b.WriteString("stdout:\n" + withNewline(out))
	}
	if r.Stderr.Total > 0 {
		b.WriteString("stderr:\n" + withNewline(errText))
	}
	if r.Stdout.Total == 0 && r.Stderr.Total == 0 {
		b.WriteString("(no output)\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
