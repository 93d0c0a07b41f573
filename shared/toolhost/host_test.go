package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/codeinterpreter"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/profile"
	"github.com/baton-run/baton/shared/runtime"
	"github.com/baton-run/baton/shared/workspace"
	"github.com/baton-run/baton/shared/workspace/workspacetest"
)

var _ runtime.ToolHost = (*Host)(nil)

func keys(m map[string]harness.BuiltinTool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func config(builtin bool, tools ...string) agent.Config {
	cfg := agent.Config{Controls: &agent.Controls{BuiltinTools: builtin}}
	for _, t := range tools {
		cfg.Tools = append(cfg.Tools, json.RawMessage(t))
	}
	return cfg
}

func TestToolsOfASessionShareItsWorkspace(t *testing.T) {
	t.Parallel()
	m := workspacetest.NewManager(t, workspace.Limits{})
	h := New(m, nil)
	tools, release, err := h.Tools(context.Background(), "sess-1", config(true, `{"type":"agentcore_code_interpreter","name":"code"}`,
		`{"type":"function","name":"f"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"code", "file_operations", "shell"}, keys(tools)); diff != "" {
		t.Fatal(diff)
	}
	r, err := tools["code"].Call(context.Background(), json.RawMessage(`{"code":"open('from_code.txt','w').write('ok')"}`))
	if err != nil || r.IsError {
		t.Fatalf("%+v %v", r, err)
	}
	r, err = tools["shell"].Call(context.Background(), json.RawMessage(`{"command":"cat from_code.txt"}`))
	if err != nil || r.Output != "exit_code: 0\nstdout:\nok" {
		t.Fatalf("%+v %v", r, err)
	}
	release()
	// The next activity task of the Session (here through another Host on the same root) sees the file.
	tools, release, err = New(m, nil).Tools(context.Background(), "sess-1", config(true))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if r, _ := tools["file_operations"].Call(context.Background(), json.RawMessage(`{"command":"view","path":"from_code.txt"}`)); r.Output != "1: ok" {
		t.Fatalf("%+v", r)
	}
}

func TestAConfigurationWithoutBuiltinToolsOpensNoWorkspace(t *testing.T) {
	t.Parallel()
	m := workspacetest.NewManager(t, workspace.Limits{})
	tools, release, err := New(m, nil).Tools(context.Background(), "sess-1", config(false, `{"type":"function","name":"f"}`))
	if err != nil || len(tools) != 0 {
		t.Fatalf("%v %v", keys(tools), err)
	}
	release()
	if entries, err := os.ReadDir(m.Root()); err != nil || len(entries) != 0 {
		t.Fatalf("workspace root holds %v (%v)", entries, err)
	}
}

// closer is a Provider that records Close.
type closer struct {
	codeinterpreter.Provider
	closed *int
}

func (c closer) Close(context.Context) error { *c.closed++; return nil }

func TestAFactoryErrorClosesWhatWasMade(t *testing.T) {
	t.Parallel()
	m := workspacetest.NewManager(t, workspace.Limits{})
	closed := 0
	boom := errors.New("no interpreter")
	h := New(m, func(_ context.Context, _ string, d agent.HostedTool, ws *workspace.Workspace) (codeinterpreter.Provider, error) {
		if d.Name == "second" {
			return nil, boom
		}
		return closer{Provider: codeinterpreter.Local(ws), closed: &closed}, nil
	})
	_, _, err := h.Tools(context.Background(), "sess-1", config(false, `{"type":"agentcore_code_interpreter","name":"first"}`,
		`{"type":"agentcore_code_interpreter","name":"second"}`))
	if !errors.Is(err, boom) || closed != 1 {
		t.Fatalf("err %v, closed %d", err, closed)
	}
}

func TestCapabilitiesOnThisMachine(t *testing.T) {
	t.Parallel()
	got := New(workspacetest.NewManager(t, workspace.Limits{}), nil).Capabilities()
	if diff := cmp.Diff([]string{profile.CapBuiltinTools, profile.CapCodeInterpreter}, got); diff != "" {
		t.Fatal(diff)
	}
}
