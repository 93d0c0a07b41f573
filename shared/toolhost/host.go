package toolhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/builtintools"
	"github.com/baton-run/baton/shared/codeinterpreter"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/workspace"
)

// CodeInterpreterFactory returns the Provider of a declared agentcore_code_interpreter tool for one activity task
// of a Session (the AWS provider on AWS); ws is the Session's workspace. The Host closes the Provider when the
// task ends.
type CodeInterpreterFactory func(ctx context.Context, sessionID string, decl agent.HostedTool, ws *workspace.Workspace) (codeinterpreter.Provider, error)

// Host supplies the builtin tools of each activity task from one workspace Manager.
type Host struct {
	m  *workspace.Manager
	ci CodeInterpreterFactory
}

// New returns a Host on m. ci provides declared code interpreters; nil means the local provider
// (codeinterpreter.Local on the Session's workspace) for every declaration.
func New(m *workspace.Manager, ci CodeInterpreterFactory) *Host {
	return &Host{m: m, ci: ci}
}

// Tools returns the tools of one activity task of a Session, keyed by name: `shell` and `file_operations` when
// cfg asks for builtin tools (controls.builtin_tools), and each declared agentcore_code_interpreter by its declared
// name. A configuration that needs none of them opens no workspace and returns an empty map. release closes the
// code interpreter providers and the workspace handle (the files stay). Errors: the workspace cannot be opened, a
// code interpreter provider cannot be made (providers made so far are closed).
func (h *Host) Tools(ctx context.Context, sessionID string, cfg agent.Config) (map[string]harness.BuiltinTool, func(), error) {
	builtin := cfg.Controls != nil && cfg.Controls.BuiltinTools
	var decls []agent.HostedTool
	for _, d := range cfg.HostedTools() {
		if d.Type == agent.ToolCodeInterpreter {
			decls = append(decls, d)
		}
	}
	tools := map[string]harness.BuiltinTool{}
	if !builtin && len(decls) == 0 {
		return tools, func() {}, nil
	}
	ws, err := h.m.Open(sessionID)
	if err != nil {
		return nil, nil, fmt.Errorf("open the workspace of session %s: %w", sessionID, err)
	}
	var providers []codeinterpreter.Provider
	release := func() {
		for _, p := range providers {
			_ = p.Close(context.WithoutCancel(ctx))
		}
		_ = ws.Close()
	}
	if builtin {
		for name, t := range builtintools.Tools(ws) {
			tools[name] = t
		}
	}
	for _, d := range decls {
		var p codeinterpreter.Provider = codeinterpreter.Local(ws)
		if h.ci != nil {
			if p, err = h.ci(ctx, sessionID, d, ws); err != nil {
				release()
				return nil, nil, fmt.Errorf("code interpreter %q: %w", d.Name, err)
			}
		}
		providers = append(providers, p)
		tools[d.Name] = codeinterpreter.Tool(p)
	}
	return tools, release, nil
}

// Capabilities are what this Host adds to the runtime's advertisement: profile.CapBuiltinTools when bash is in
// the sandbox's PATH, profile.CapCodeInterpreter when a factory is set or python3 or node is.
func (h *Host) Capabilities() []string {
	var caps []string
	if onSandboxPath("bash") {
		caps = append(caps, profile.CapBuiltinTools)
	}
	if h.ci != nil || onSandboxPath("python3") || onSandboxPath("node") {
		caps = append(caps, profile.CapCodeInterpreter)
	}
	return caps
}

// onSandboxPath reports whether an executable named name is in a directory of the sandbox's PATH.
func onSandboxPath(name string) bool {
	for _, dir := range strings.Split(workspace.CommandPath, ":") {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
