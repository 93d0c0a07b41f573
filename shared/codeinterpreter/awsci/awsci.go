package awsci

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"

	"github.com/baton-run/baton/shared/codeinterpreter"
)

// DefaultIdentifier is the AgentCore built-in code interpreter, used when no codeInterpreterArn is declared.
const DefaultIdentifier = "aws.codeinterpreter.v1"

// DefaultMaxOutputBytes bounds each of an Execution's Stdout and Stderr when Options.MaxOutputBytes is 0 (64 KiB).
const DefaultMaxOutputBytes = 64 << 10

// truncatedMarker ends an output cut at the limit; %d is the number of bytes left out.
const truncatedMarker = "\n[output truncated: %d more bytes]"

// Errors of Execute.
var (
	// ErrUnsupportedLanguage: the language is not python, javascript or typescript.
	ErrUnsupportedLanguage = errors.New("the AgentCore Code Interpreter runs python, javascript and typescript only")
	// ErrClosed: Execute after Close.
	ErrClosed = errors.New("the code interpreter session is closed")
)

// Client is the part of the bedrockagentcore client the provider uses (*bac.Client satisfies it).
type Client interface {
	StartCodeInterpreterSession(ctx context.Context, in *bac.StartCodeInterpreterSessionInput, optFns ...func(*bac.Options)) (*bac.StartCodeInterpreterSessionOutput, error)
	InvokeCodeInterpreter(ctx context.Context, in *bac.InvokeCodeInterpreterInput, optFns ...func(*bac.Options)) (*bac.InvokeCodeInterpreterOutput, error)
	StopCodeInterpreterSession(ctx context.Context, in *bac.StopCodeInterpreterSessionInput, optFns ...func(*bac.Options)) (*bac.StopCodeInterpreterSessionOutput, error)
}

var _ Client = (*bac.Client)(nil)

// Options tune a Provider; every zero value has the meaning given.
type Options struct {
	// SessionName is the interpreter session's `name` (1–100 characters, e.g. the Baton Session id); "" sends none.
	SessionName string
	// SessionTimeoutSeconds is the interpreter session's `sessionTimeoutSeconds` (1–28 800); 0 sends none (the
	// service's default, 900 s).
	SessionTimeoutSeconds int32
	// MaxOutputBytes bounds each of Stdout and Stderr; 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
}

// Provider runs code in one AgentCore Code Interpreter session. It is safe for concurrent use; Executes of one
// Provider run one at a time (an interpreter session keeps state between them).
type Provider struct {
	client     Client
	identifier string
	opts       Options

	mu        sync.Mutex
	sessionID string
	closed    bool
}

var _ codeinterpreter.Provider = (*Provider)(nil)

// Identifier returns the code interpreter identifier of a declared codeInterpreterArn: its last path segment
// ("arn:aws:bedrock-agentcore:us-west-2:123456789012:code-interpreter-custom/my_ci-abc" → "my_ci-abc",
// "arn:aws:bedrock-agentcore:us-west-2:aws:code-interpreter/aws.codeinterpreter.v1" → "aws.codeinterpreter.v1"),
// or DefaultIdentifier for "".
func Identifier(codeInterpreterARN string) string {
	if codeInterpreterARN == "" {
		return DefaultIdentifier
	}
	if i := strings.LastIndexByte(codeInterpreterARN, '/'); i >= 0 {
		return codeInterpreterARN[i+1:]
	}
	return codeInterpreterARN
}

// New returns a Provider on client for the declared codeInterpreterARN ("" = the built-in interpreter). It
// starts nothing: the interpreter session starts on the first Execute.
func New(client Client, codeInterpreterARN string, opts Options) *Provider {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	return &Provider{client: client, identifier: Identifier(codeInterpreterARN), opts: opts}
}

// languages maps the tool's language names to the service's.
var languages = map[string]types.ProgrammingLanguage{
	"python":     types.ProgrammingLanguagePython,
	"javascript": types.ProgrammingLanguageJavascript,
	"typescript": types.ProgrammingLanguageTypescript,
}

// Execute runs code with executeCode and maps the stream's result events (docs/tools.md "Code interpreter on
// AWS"): structuredContent stdout, stderr and exitCode when present, otherwise the text content blocks as Stdout
// (as Stderr when isError); isError without an exit code gives ExitCode 1. Outputs of several result events are
// concatenated; each is cut at MaxOutputBytes with a marker. Files stays empty and TimedOut false (the service
// reports neither). The first Execute starts the interpreter session; a session the service no longer knows
// (ResourceNotFoundException before anything ran, e.g. after its timeout) is started again once. Errors:
// ErrUnsupportedLanguage, ErrClosed, the service's errors (synchronous HTTP errors and in-stream exceptions such
// as *types.ValidationException, wrapped) — code that fails is an Execution, not an error. The invocation is
// never retried by the SDK (a retried executeCode would run the code twice).
func (p *Provider) Execute(ctx context.Context, language, code string) (codeinterpreter.Execution, error) {
	lang, ok := languages[language]
	if !ok {
		return codeinterpreter.Execution{}, fmt.Errorf("%w: %q", ErrUnsupportedLanguage, language)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return codeinterpreter.Execution{}, ErrClosed
	}
	fresh := false
	if p.sessionID == "" {
		if err := p.start(ctx); err != nil {
			return codeinterpreter.Execution{}, err
		}
		fresh = true
	}
	out, err := p.invoke(ctx, lang, code)
	var gone *types.ResourceNotFoundException
	if err != nil && !fresh && errors.As(err, &gone) {
		p.sessionID = ""
		if err := p.start(ctx); err != nil {
			return codeinterpreter.Execution{}, err
		}
		out, err = p.invoke(ctx, lang, code)
	}
	if err != nil {
		return codeinterpreter.Execution{}, fmt.Errorf("InvokeCodeInterpreter %s executeCode: %w", p.identifier, err)
	}
	return p.read(out)
}

// start starts the interpreter session.
func (p *Provider) start(ctx context.Context) error {
	in := &bac.StartCodeInterpreterSessionInput{CodeInterpreterIdentifier: &p.identifier}
	if p.opts.SessionName != "" {
		in.Name = &p.opts.SessionName
	}
	if p.opts.SessionTimeoutSeconds > 0 {
		in.SessionTimeoutSeconds = &p.opts.SessionTimeoutSeconds
	}
	out, err := p.client.StartCodeInterpreterSession(ctx, in)
	if err != nil {
		return fmt.Errorf("StartCodeInterpreterSession %s: %w", p.identifier, err)
	}
	if out.SessionId == nil || *out.SessionId == "" {
		return fmt.Errorf("StartCodeInterpreterSession %s: the response has no sessionId", p.identifier)
	}
	p.sessionID = *out.SessionId
	return nil
}

// invoke sends executeCode without SDK retries.
func (p *Provider) invoke(ctx context.Context, lang types.ProgrammingLanguage, code string) (*bac.InvokeCodeInterpreterOutput, error) {
	return p.client.InvokeCodeInterpreter(ctx, &bac.InvokeCodeInterpreterInput{
		CodeInterpreterIdentifier: &p.identifier,
		SessionId:                 &p.sessionID,
		Name:                      types.ToolNameExecuteCode,
		Arguments:                 &types.ToolArguments{Code: &code, Language: lang},
	}, func(o *bac.Options) { o.RetryMaxAttempts = 1 })
}

// read drains the event stream into an Execution.
func (p *Provider) read(out *bac.InvokeCodeInterpreterOutput) (codeinterpreter.Execution, error) {
	stream := out.GetStream()
	defer stream.Close()
	var stdout, stderr strings.Builder
	var ex codeinterpreter.Execution
	exitSet, isError := false, false
	for ev := range stream.Events() {
		r, ok := ev.(*types.CodeInterpreterStreamOutputMemberResult)
		if !ok {
			continue
		}
		res := r.Value
		failed := res.IsError != nil && *res.IsError
		isError = isError || failed
		sc := res.StructuredContent
		if sc != nil && sc.ExitCode != nil {
			ex.ExitCode, exitSet = int(*sc.ExitCode), true
		}
		if sc != nil && (sc.Stdout != nil || sc.Stderr != nil) {
			if sc.Stdout != nil {
				stdout.WriteString(*sc.Stdout)
			}
			if sc.Stderr != nil {
				stderr.WriteString(*sc.Stderr)
			}
			continue
		}
		for _, c := range res.Content {
			if c.Type != types.ContentBlockTypeText || c.Text == nil {
				continue
			}
			if failed {
				stderr.WriteString(*c.Text)
			} else {
				stdout.WriteString(*c.Text)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return codeinterpreter.Execution{}, fmt.Errorf("InvokeCodeInterpreter %s executeCode stream: %w", p.identifier, err)
	}
	if isError && !exitSet {
		ex.ExitCode = 1
	}
	ex.Stdout = truncate(stdout.String(), p.opts.MaxOutputBytes)
	ex.Stderr = truncate(stderr.String(), p.opts.MaxOutputBytes)
	return ex, nil
}

// truncate cuts s to max bytes (at a UTF-8 boundary) and appends the marker.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf(truncatedMarker, len(s)-cut)
}

// Close stops the interpreter session, if one was started, and makes every later Execute fail with ErrClosed.
// A second Close does nothing. Errors: StopCodeInterpreterSession's (the session then ends at its timeout).
func (p *Provider) Close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.sessionID == "" {
		return nil
	}
	id := p.sessionID
	p.sessionID = ""
	if _, err := p.client.StopCodeInterpreterSession(ctx, &bac.StopCodeInterpreterSessionInput{
		CodeInterpreterIdentifier: &p.identifier, SessionId: &id}); err != nil {
		return fmt.Errorf("StopCodeInterpreterSession %s %s: %w", p.identifier, id, err)
	}
	return nil
}
