package codeinterpreter

import "context"

// Provider runs code for one Session (docs/tools.md "Code interpreter"): the local provider in the Session's
// sandboxed workspace, the AWS provider in an AgentCore Code Interpreter session. The model sees the same tool
// either way (Tool).
type Provider interface {
	// Execute runs code in language ("python", "javascript" or "typescript") and returns what it observed. A program
	// that fails is an Execution with its stderr and a non-zero ExitCode, not an error; an error means the code
	// could not be run at all (the provider is unreachable, the language is not supported here).
	Execute(ctx context.Context, language, code string) (Execution, error)
	// Close releases the provider's resources (an AWS session); the workspace's files stay.
	Close(ctx context.Context) error
}

// Execution is the outcome of one Execute: the program's standard output and error (each bounded by the provider's
// output limit, truncated with a marker), its exit status, the files it created or changed (paths relative to the
// workspace, sorted) and whether it was killed at the time limit (ExitCode is then the signal's status).
type Execution struct {
	Stdout   string
	Stderr   string
	ExitCode int
	Files    []string
	TimedOut bool
}
