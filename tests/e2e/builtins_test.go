package e2e_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// builtinsScript writes a file with file_operations, then `cat`s it with shell (exiting 3), then answers with what
// the shell printed (docs/scripted-model.md).
func builtinsScript() map[string]any {
	return map[string]any{
		"rules": []any{
			map[string]any{"when": map[string]any{"user_contains": "note"},
				"calls": []any{map[string]any{"name": "file_operations", "arguments": map[string]any{
					"command": "create", "path": "notes/hello.txt", "file_text": "hello from baton\n"}}}},
			map[string]any{"when": map[string]any{"after_tool": "file_operations"},
				"calls": []any{map[string]any{"name": "shell", "arguments": map[string]any{"command": "cat notes/hello.txt; exit 3"}}}},
			map[string]any{"when": map[string]any{"after_tool": "shell"},
				"reply": "Shell said: {{tool_output \"shell\"}}"},
		},
		"chunk_size": 16,
	}
}

// commandItem is a command_execution item as the Agents API shows it (docs/tools.md "Items").
type commandItem struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Command    string          `json:"command"`
	Cwd        string          `json:"cwd"`
	Output     string          `json:"output"`
	ExitCode   int             `json:"exit_code"`
	DurationMs *int64          `json:"duration_ms"`
	Status     string          `json:"status"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
}

// newBuiltinsSession creates an agent on the scripted model with builtinsScript (x_baton.builtin_tools as given)
// and an idle Session of it.
func newBuiltinsSession(t *testing.T, ctx context.Context, client openai.Client, builtins bool) string {
	t.Helper()
	xb := map[string]any{"model_provider": map[string]any{"protocol": "scripted"}, "script": builtinsScript()}
	if builtins {
		xb["builtin_tools"] = true
	}
	a, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "scripted", Instructions: openai.String("Use the workspace.")},
		option.WithJSONSet("x_baton", xb))
	if err != nil {
		t.Fatalf("create agent: %v", describe(err))
	}
	return newIdleSession(t, ctx, client, a.ID).ID
}

// runTurn posts text to the Session and returns the turn's window of events (turn.created … idle) once it ended.
func runTurn(t *testing.T, ctx context.Context, client openai.Client, sessionID, text string) []wireEvent {
	t.Helper()
	rec := record(t, ctx, client, sessionID)
	postEvents(t, ctx, client, sessionID, userMessage(text))
	end := rec.WaitFor(t, 0, "the turn's end", func(e wireEvent) bool {
		return e.Type == "agent.session.turn.completed" || e.Type == "agent.session.turn.failed" || e.Type == "agent.session.turn.cancelled"
	})
	rec.WaitFor(t, end, "agent.session.idle", isType("agent.session.idle"))
	events := rec.Snapshot()
	if events[end].Type != "agent.session.turn.completed" {
		t.Fatalf("turn ended with %s:\n%s", events[end].Type, dump(events))
	}
	return turnWindow(t, events, events[end].TurnID)
}

// TestBuiltinToolsRunInTheSessionWorkspace: with x_baton.builtin_tools the scripted model creates a file with
// file_operations and `cat`s it with shell; each call is a command_execution item (tool name, arguments, output,
// exit_code, status completed) in GET …/items and in the stream (item.added in_progress, then item.done completed
// with the same item), and the final answer echoes the shell's output (docs/tools.md "Builtin tools", "Items").
func TestBuiltinToolsRunInTheSessionWorkspace(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, client := stackClient(t)
	sid := newBuiltinsSession(t, ctx, client, true)
	window := runTurn(t, ctx, client, sid, "write a note and read it back")

	const shellOut = "exit_code: 3\nstdout:\nhello from baton"
	var final string
	for _, e := range window {
		if e.Type == "agent.session.turn.item.done" && e.Item != nil && e.Item.Type == "message" && e.Item.Phase == "final_answer" {
			final = e.Item.text()
		}
	}
	if final != "Shell said: "+shellOut {
		t.Errorf("final answer %q; want %q", final, "Shell said: "+shellOut)
	}

	// The items, in order.
	var cmds []commandItem
	var shapes []string
	for _, raw := range rawItems(t, ctx, client, sid) {
		var it commandItem
		if err := json.Unmarshal([]byte(raw), &it); err != nil {
			t.Fatalf("decode item %s: %v", raw, err)
		}
		shapes = append(shapes, it.Type)
		if it.Type == "command_execution" {
			cmds = append(cmds, it)
		}
	}
	if got, want := strings.Join(shapes, " "), "message command_execution command_execution message"; got != want {
		t.Fatalf("item types %q; want %q", got, want)
	}
	create, shell := cmds[0], cmds[1]
	var createArgs map[string]any
	if err := json.Unmarshal(create.Arguments, &createArgs); err != nil {
		t.Fatalf("file_operations arguments %s: %v", create.Arguments, err)
	}
	if create.Name != "file_operations" || createArgs["command"] != "create" || createArgs["path"] != "notes/hello.txt" ||
		createArgs["file_text"] != "hello from baton\n" || create.Status != "completed" || create.ExitCode != 0 ||
		!strings.HasPrefix(create.Output, "Created ") || !strings.Contains(create.Output, "hello.txt") || create.DurationMs == nil {
		t.Errorf("file_operations item %+v (arguments %s)", create, create.Arguments)
	}
	var shellArgs map[string]any
	if err := json.Unmarshal(shell.Arguments, &shellArgs); err != nil {
		t.Fatalf("shell arguments %s: %v", shell.Arguments, err)
	}
	if shell.Name != "shell" || shellArgs["command"] != "cat notes/hello.txt; exit 3" || shell.Command != "cat notes/hello.txt; exit 3" ||
		shell.Output != shellOut || shell.ExitCode != 3 || shell.Status != "completed" || shell.Cwd == "" || shell.DurationMs == nil {
		t.Errorf("shell item %+v (arguments %s)", shell, shell.Arguments)
	}

	// The stream: each command_execution item is added in_progress and done completed, the file written before the
	// shell runs.
	var seq []string
	for _, e := range window {
		if e.Item == nil || e.Item.Type != "command_execution" {
			continue
		}
		it := decode[struct {
			Item commandItem `json:"item"`
		}](t, e.raw).Item
		seq = append(seq, strings.TrimPrefix(e.Type, "agent.session.turn.")+"/"+it.Name+"/"+it.Status)
		if e.Type == "agent.session.turn.item.added" && it.Output != "" {
			t.Errorf("item.added carries output %q; want empty while in progress", it.Output)
		}
		if e.Type == "agent.session.turn.item.done" {
			want := create
			if it.Name == "shell" {
				want = shell
			}
			if it.ID != want.ID || it.Output != want.Output || it.ExitCode != want.ExitCode || it.Command != want.Command {
				t.Errorf("streamed item.done %+v; want the listed item %+v", it, want)
			}
		}
	}
	want := "item.added/file_operations/in_progress item.done/file_operations/completed item.added/shell/in_progress item.done/shell/completed"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("command_execution events:\n got %s\nwant %s\n%s", got, want, dump(window))
	}
}

// TestBuiltinToolsAreNotOfferedWithoutTheSetting: the same script on an agent without x_baton.builtin_tools — the
// calls are not run: no command_execution item, and the model reads the "not offered" error result (docs/tools.md
// "Calls of tools that were not offered").
func TestBuiltinToolsAreNotOfferedWithoutTheSetting(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, client := stackClient(t)
	sid := newBuiltinsSession(t, ctx, client, false)
	window := runTurn(t, ctx, client, sid, "write a note and read it back")

	var final string
	for _, e := range window {
		if e.Item != nil && e.Item.Type == "command_execution" {
			t.Errorf("a command_execution event without builtin_tools: %s", e.raw)
		}
		if e.Type == "agent.session.turn.item.done" && e.Item != nil && e.Item.Type == "message" && e.Item.Phase == "final_answer" {
			final = e.Item.text()
		}
	}
	if want := `Shell said: tool "shell" is not available: it was not offered in this request`; !strings.HasPrefix(final, want) {
		t.Errorf("final answer %q; want it to start with %q", final, want)
	}
	var shapes []string
	for _, raw := range rawItems(t, ctx, client, sid) {
		shapes = append(shapes, decode[wireItem](t, raw).Type)
	}
	if got, want := strings.Join(shapes, " "), "message message"; got != want {
		t.Errorf("item types %q; want %q (no item for a call that was not offered)", got, want)
	}
}
