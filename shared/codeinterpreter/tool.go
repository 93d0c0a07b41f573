package codeinterpreter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-run/baton/shared/harness"
)

// Languages the tool accepts; DefaultLanguage when the model names none.
const (
	LanguagePython     = "python"
	LanguageJavaScript = "javascript"
	LanguageTypeScript = "typescript"
	DefaultLanguage    = LanguagePython
)

// MaxListedFiles bounds the files a result names.
const MaxListedFiles = 100

// tool is the model-facing code interpreter on one Provider.
type tool struct{ p Provider }

// Tool returns the model-facing agentcore_code_interpreter tool on p (docs/tools.md "Code interpreter"): arguments
// `{"code": string (required), "language": "python"|"javascript"|"typescript" (optional, default "python")}`;
// each call runs the program in a fresh process, so variables do not persist between calls while files do. The
// result's Output is the exit code, stdout, stderr and the files the program created or changed (ExecutionOutput);
// ExitCode and Command (the program) are set. IsError is set when the provider could not run the program (its
// error text is the output) or the program was killed at the time limit; a failing program alone is not an error
// (the model reads its exit code and stderr). Call returns an error only when ctx ended. The harness sets the
// declared name.
func Tool(p Provider) harness.BuiltinTool { return tool{p: p} }

var _ harness.BuiltinTool = tool{}

// Definition is the model-facing definition.
func (t tool) Definition() harness.Tool {
	return harness.Tool{
		Name: "agentcore_code_interpreter",
		Description: "Run a Python (default), JavaScript or TypeScript program in a sandbox. The working directory is the " +
			"session's workspace: files written there persist; variables do not (each call is a fresh process). Returns " +
			"the exit code, stdout, stderr and the files the program created or changed.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"code":{"type":"string","minLength":1,"description":"The program's source."},` +
			`"language":{"type":"string","enum":["python","javascript","typescript"],"description":"Default python."}},` +
			`"required":["code"],"additionalProperties":false}`),
	}
}

// Call runs the program.
func (t tool) Call(ctx context.Context, arguments json.RawMessage) (harness.BuiltinResult, error) {
	var a struct {
		Code     string `json:"code"`
		Language string `json:"language"`
	}
	if err := json.Unmarshal(arguments, &a); err != nil || a.Code == "" {
		return harness.BuiltinResult{Output: "Error: `code` (a non-empty string) is required.", IsError: true}, nil
	}
	if a.Language == "" {
		a.Language = DefaultLanguage
	}
	res := harness.BuiltinResult{Command: a.Code}
	e, err := t.p.Execute(ctx, a.Language, a.Code)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return harness.BuiltinResult{}, ctxErr
	}
	if err != nil {
		res.Output, res.IsError = "Error: "+err.Error(), true
		return res, nil
	}
	res.ExitCode, res.IsError = e.ExitCode, e.TimedOut
	res.Output = ExecutionOutput(e)
	return res, nil
}

// ExecutionOutput renders an Execution as the model reads it (docs/tools.md "Code interpreter"):
//
//	[Error: the program was killed at its time limit.]
//	exit_code: N
//	stdout:
//	<stdout>
//	stderr:
//	<stderr>
//	files created or changed:
//	<path, one a line, at most MaxListedFiles, then "[… N more]">
//
// Empty sections are left out; with no output at all "(no output)" stands for both streams.
func ExecutionOutput(e Execution) string {
	var b strings.Builder
	if e.TimedOut {
		b.WriteString("Error: the program was killed at its time limit.\n")
	}
	fmt.Fprintf(&b, "exit_code: %d\n", e.ExitCode)
	if e.Stdout != "" {
		b.WriteString("stdout:\n" + withNewline(e.Stdout))
	}
	if e.Stderr != "" {
		b.WriteString("stderr:\n" + withNewline(e.Stderr))
	}
	if e.Stdout == "" && e.Stderr == "" {
		b.WriteString("(no output)\n")
	}
	if len(e.Files) > 0 {
		b.WriteString("files created or changed:\n")
		for i, f := range e.Files {
			if i == MaxListedFiles {
				fmt.Fprintf(&b, "[… %d more]\n", len(e.Files)-MaxListedFiles)
				break
			}
			b.WriteString(f + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
