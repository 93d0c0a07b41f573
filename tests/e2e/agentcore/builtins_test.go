package agentcore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	cptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"

	"github.com/baton-run/baton/shared/workspace"
	"github.com/baton-run/baton/tests/stack"
)

// The tests of this file drive the harness-run tools (docs/tools.md "Builtin tools", "Code interpreter", "Order of
// tool calls") through the AgentCore front door with the official Go clients. Each starts a stack of its own
// without launcher runtimes and the runtimes it needs, so it knows which runtime ran each turn and with which
// limits.

// call is a scripted model call: a tool name and its arguments (docs/scripted-model.md "Rule").
func call(name string, arguments map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": arguments}
}

// shellCall is a scripted `shell` call of command.
func shellCall(command string) map[string]any {
	return call("shell", map[string]any{"command": command})
}

// rule is a scripted rule answering a user message containing text with calls.
func rule(text string, calls ...map[string]any) map[string]any {
	cs := make([]any, len(calls))
	for i, c := range calls {
		cs[i] = c
	}
	return map[string]any{"when": map[string]any{"user_contains": text}, "calls": cs}
}

// toolStack starts a stack without launcher runtimes and one runtime of the test's own with env; it returns both.
func toolStack(t *testing.T, env ...string) (*stack.Stack, *stack.RuntimeProcess) {
	t.Helper()
	st := stack.Start(t, stack.Options{Runtimes: -1})
	if got := st.Runtimes(t); len(got) != 0 {
		t.Fatalf("a stack started with Runtimes -1 lists runtimes %+v", got)
	}
	rt := stack.StartRuntime(t, st, stack.RuntimeOptions{ID: fmt.Sprintf("rt_%s_%x", strings.ToLower(t.Name()[4:12]), time.Now().UnixNano()), Env: env})
	return st, rt
}

// wantCall requires c to be a server_tool_use of name with input equal (as JSON) to input, answered with status and
// exactly result.
func wantCall(t *testing.T, what string, c toolCall, name string, input map[string]any, status dptypes.HarnessToolUseStatus, result string) {
	t.Helper()
	wantCallLike(t, what, c, name, input, status)
	if c.Result != result {
		t.Errorf("%s: result\n got %q\nwant %q", what, c.Result, result)
	}
}

// wantCallLike is wantCall without the result text.
func wantCallLike(t *testing.T, what string, c toolCall, name string, input map[string]any, status dptypes.HarnessToolUseStatus) {
	t.Helper()
	if c.Name != name || c.Type != string(dptypes.HarnessToolUseTypeServerToolUse) {
		t.Errorf("%s: toolUse %q of type %q; want %q of type server_tool_use", what, c.Name, c.Type, name)
	}
	var got any
	if err := json.Unmarshal([]byte(c.Input), &got); err != nil {
		t.Errorf("%s: input %q is not JSON: %v", what, c.Input, err)
	}
	want, _ := json.Marshal(input)
	var wantV any
	_ = json.Unmarshal(want, &wantV)
	if !reflect.DeepEqual(got, wantV) {
		t.Errorf("%s: input %s; want %s", what, c.Input, want)
	}
	if !c.HasResult || c.Status != string(status) {
		t.Errorf("%s: toolResult present %v, status %q; want status %q", what, c.HasResult, c.Status, status)
	}
}

// workspaceDir is the host directory of a Session's workspace (docs/tools.md "Workspace").
func workspaceDir(st *stack.Stack, sessionID string) string {
	return filepath.Join(st.WorkspaceRoot, workspace.DirName(sessionID))
}

// runtimeIDs lists the ids of the live runtimes of st.
func runtimeIDs(t *testing.T, st *stack.Stack) []string {
	t.Helper()
	var ids []string
	for _, r := range st.Runtimes(t) {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// itemsInOrder lists a Session's items oldest first through the Agents API.
func itemsInOrder(t *testing.T, f *fixture, session string) []map[string]any {
	t.Helper()
	r := f.agentsKey(t).Do(t, http.MethodGet, "/v1/agents/sessions/"+session+"/items?limit=100&order=asc", nil, nil)
	var items struct {
		Data []map[string]any `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &items) != nil {
		t.Fatalf("GET items: %d %s", r.Status, r.Body)
	}
	return items.Data
}

// mustInvoke invokes and fails the test on an error.
func mustInvoke(t *testing.T, f *fixture, sid string, msgs ...dptypes.HarnessMessage) []frame {
	t.Helper()
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: msgs})
	if err != nil {
		t.Fatalf("InvokeHarness: %v (frames %s)", err, shape(frames))
	}
	return frames
}

// TestBuiltinsWriteRunAndReadThenAnotherRuntimeSeesTheFile: file_operations creates hello.py and shell runs it on
// runtime one; both calls stream as server_tool_use blocks with their original names and inputs and the observed
// results. Runtime one then stops (it deregisters and exits) and runtime two — the only live runtime — takes the
// second turn of the same runtimeSessionId, whose `cat out.txt` reads the file the first turn wrote.
func TestBuiltinsWriteRunAndReadThenAnotherRuntimeSeesTheFile(t *testing.T) {
	t.Parallel()
	st, one := toolStack(t)
	create := map[string]any{"command": "create", "path": "hello.py", "file_text": "print('hello from baton')\n"}
	run := map[string]any{"command": "python3 hello.py > out.txt; cat out.txt"}
	script := map[string]any{"rules": []any{
		rule("write and run", call("file_operations", create), call("shell", run)),
		rule("read it back", shellCall("cat out.txt")),
		map[string]any{"when": map[string]any{"after_tool": "shell"}, "reply": "Saw: {{tool_output \"shell\"}}"},
	}}
	f := newScriptedFixture(t, st, "runs", script)
	sid := newSessionID(t)

	if got := runtimeIDs(t, st); !slices.Equal(got, []string{one.ID}) {
		t.Fatalf("runtimes before turn 1 %v; want only %s", got, one.ID)
	}
	frames := mustInvoke(t, f, sid, userText("write and run hello.py"))
	cs := toolCalls(frames)
	if len(cs) != 2 {
		t.Fatalf("turn 1 calls %+v (%s); want file_operations and shell", cs, shape(frames))
	}
	wantCall(t, "turn 1 file_operations", cs[0], "file_operations", create, dptypes.HarnessToolUseStatusSuccess, "Created /workspace/hello.py (1 lines, 26 bytes).")
	wantCall(t, "turn 1 shell", cs[1], "shell", run, dptypes.HarnessToolUseStatusSuccess, "exit_code: 0\nstdout:\nhello from baton")
	if got, want := texts(frames), "Saw: exit_code: 0\nstdout:\nhello from baton"; got != want || lastStop(frames) != "end_turn" {
		t.Fatalf("turn 1 reply %q (%s); want %q ending end_turn", got, shape(frames), want)
	}
	session := onlySession(t, f.agentsKey(t))
	b, err := os.ReadFile(filepath.Join(workspaceDir(st, session), "out.txt"))
	if err != nil || string(b) != "hello from baton\n" {
		t.Fatalf("out.txt in the Session's workspace on the host: %q, %v", b, err)
	}

	one.Stop(t) // graceful: it stops polling, deregisters and exits; it can run nothing more
	if got := runtimeIDs(t, st); len(got) != 0 {
		t.Fatalf("runtimes after runtime one stopped %v; want none", got)
	}
	two := stack.StartRuntime(t, st, stack.RuntimeOptions{ID: strings.Replace(one.ID, "rt_", "rt2_", 1)})
	if got := runtimeIDs(t, st); !slices.Equal(got, []string{two.ID}) {
		t.Fatalf("runtimes before turn 2 %v; want only %s", got, two.ID)
	}
	frames = mustInvoke(t, f, sid, userText("read it back"))
	cs = toolCalls(frames)
	if len(cs) != 1 {
		t.Fatalf("turn 2 calls %+v (%s); want one shell", cs, shape(frames))
	}
	wantCall(t, "turn 2 shell", cs[0], "shell", map[string]any{"command": "cat out.txt"}, dptypes.HarnessToolUseStatusSuccess, "exit_code: 0\nstdout:\nhello from baton")
	if got, want := texts(frames), "Saw: exit_code: 0\nstdout:\nhello from baton"; got != want {
		t.Fatalf("turn 2 reply %q; want %q", got, want)
	}
	if got := onlySession(t, f.agentsKey(t)); got != session {
		t.Fatalf("turn 2 ran in session %s; want %s", got, session)
	}
	if got := runtimeIDs(t, st); !slices.Equal(got, []string{two.ID}) {
		t.Fatalf("runtimes after turn 2 %v; want only %s", got, two.ID)
	}
	// The Session's history holds each call as a command_execution item with its original name, input and result.
	var got []string
	for _, it := range itemsInOrder(t, f, session) {
		if it["type"] == "command_execution" {
			args, _ := json.Marshal(it["arguments"])
			got = append(got, fmt.Sprintf("%v %v %s → %q", it["status"], it["name"], args, it["output"]))
		}
	}
	want := []string{
		`completed file_operations {"command":"create","file_text":"print('hello from baton')\n","path":"hello.py"} → "Created /workspace/hello.py (1 lines, 26 bytes)."`,
		`completed shell {"command":"python3 hello.py \u003e out.txt; cat out.txt"} → "exit_code: 0\nstdout:\nhello from baton"`,
		`completed shell {"command":"cat out.txt"} → "exit_code: 0\nstdout:\nhello from baton"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("command_execution items\n got %q\nwant %q", got, want)
	}
	// Each runtime's own log names the activity tasks it ran: one each, both of this Session.
	for _, rt := range []*stack.RuntimeProcess{one, two} {
		if n := strings.Count(rt.Log(), "INFO task done runtime_id="+rt.ID+" kind=baton session_id="+session+" "); n != 1 {
			t.Errorf("runtime %s ran %d activity tasks of the Session; want 1:\n%s", rt.ID, n, rt.Log())
		}
	}
}

// truncatedRe is the output limit's marker (docs/tools.md "Limits").
var truncatedRe = regexp.MustCompile(`\n\[… (\d+) bytes truncated\]`)

// TestBuiltinsIsolateSessionsAndHoldTheirLimits: on one runtime (command time limit 2 s) session B writes a secret;
// session A's commands cannot see B's workspace (by `..`, a glob, the host path or a search of the file system),
// see none of the runtime's environment, cannot escape with file_operations through `../x` or a symlink made by
// shell, are killed at the time limit and have 10 MB of output truncated with the marker; afterwards the same
// runtime serves a normal turn.
func TestBuiltinsIsolateSessionsAndHoldTheirLimits(t *testing.T) {
	t.Parallel()
	st, rt := toolStack(t, "BATON_TOOL_COMMAND_TIMEOUT_SECONDS=2")
	findCmd := "find / -path /proc -prune -o -path /usr -prune -o -name secret -print 2>/dev/null; echo searched"
	escape := fmt.Sprintf("baton-escape-%x", time.Now().UnixNano())
	script := map[string]any{"rules": []any{
		rule("keep a secret", shellCall("echo topsecret-B > secret; cat secret")),
		map[string]any{"when": map[string]any{"user_matches": `snoop (?P<host>\S+)`}, "calls": []any{
			shellCall("ls -a /workspace/.."),                                                                        // 0
			shellCall("cat /workspace/../*/secret"),                                                                 // 1
			shellCall("cat {{.Match.host}}/secret; ls {{.Match.host}}"),                                             // 2
			shellCall(findCmd),                                                                                      // 3
			shellCall("cat /proc/1/environ; echo; env"),                                                             // 4
			call("file_operations", map[string]any{"command": "view", "path": "../x"}),                              // 5
			shellCall("ln -s / out && echo linked"),                                                                 // 6
			call("file_operations", map[string]any{"command": "view", "path": "out/etc/passwd"}),                    // 7
			call("file_operations", map[string]any{"command": "create", "path": "out/" + escape, "file_text": "x"}), // 8
			shellCall("sleep 30; echo woke"),                                                                        // 9
			shellCall(`head -c 10000000 /dev/zero | tr '\0' a`),                                                     // 10
		}},
		rule("still there", shellCall("echo fine; ls")),
	}}
	f := newScriptedFixture(t, st, "iso", script)

	sidB := newSessionID(t) + "b"
	frames := mustInvoke(t, f, sidB, userText("keep a secret"))
	if cs := toolCalls(frames); len(cs) != 1 || cs[0].Result != "exit_code: 0\nstdout:\ntopsecret-B" {
		t.Fatalf("session B's write: %+v (%s)", cs, shape(frames))
	}
	sessionB := onlySession(t, f.agentsKey(t))
	hostB := workspaceDir(st, sessionB)
	if b, err := os.ReadFile(filepath.Join(hostB, "secret")); err != nil || string(b) != "topsecret-B\n" {
		t.Fatalf("B's secret on the host: %q, %v", b, err)
	}

	sidA := newSessionID(t) + "a"
	frames = mustInvoke(t, f, sidA, userText("snoop "+hostB))
	cs := toolCalls(frames)
	if len(cs) != 11 {
		t.Fatalf("session A's calls: %d (%s); want 11", len(cs), shape(frames))
	}
	for i, c := range cs {
		if i == 2 {
			continue // its errors repeat the host path it was given
		}
		if strings.Contains(c.Result, "topsecret") || strings.Contains(c.Result, sessionB) || strings.Contains(c.Result, st.WorkspaceRoot) {
			t.Errorf("call %d (%s) shows B's workspace: %q", i, c.Input, c.Result)
		}
	}
	ok := dptypes.HarnessToolUseStatusSuccess
	failed := dptypes.HarnessToolUseStatusError
	// The sandbox's root holds no workspace but /workspace.
	wantCallLike(t, "ls ..", cs[0], "shell", map[string]any{"command": "ls -a /workspace/.."}, ok)
	entries := strings.Split(strings.TrimPrefix(cs[0].Result, "exit_code: 0\nstdout:\n"), "\n")
	system := []string{".", "..", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev", "proc", "tmp", "workspace"}
	if !slices.Contains(entries, "workspace") || slices.ContainsFunc(entries, func(e string) bool { return !slices.Contains(system, e) }) {
		t.Errorf("ls -a /workspace/..: %q; want the sandbox root: system directories and /workspace only", cs[0].Result)
	}
	wantCall(t, "glob", cs[1], "shell", map[string]any{"command": "cat /workspace/../*/secret"}, ok,
		"exit_code: 1\nstderr:\ncat: '/workspace/../*/secret': No such file or directory")
	hostCmd := "cat " + hostB + "/secret; ls " + hostB
	wantCall(t, "host path", cs[2], "shell", map[string]any{"command": hostCmd}, ok,
		fmt.Sprintf("exit_code: 2\nstderr:\ncat: %[1]s/secret: No such file or directory\nls: cannot access '%[1]s': No such file or directory", hostB))
	wantCall(t, "find", cs[3], "shell", map[string]any{"command": findCmd}, ok,
		"exit_code: 0\nstdout:\nsearched")
	wantCallLike(t, "environment", cs[4], "shell", map[string]any{"command": "cat /proc/1/environ; echo; env"}, ok)
	for _, v := range []string{"BATON_", "AWS_", "SECRET", "baton-local", st.Table, st.DynamoDBURL} {
		if strings.Contains(cs[4].Result, v) {
			t.Errorf("the command's environment shows %q: %q", v, cs[4].Result)
		}
	}
	if !strings.Contains(cs[4].Result, "HOME=/workspace") {
		t.Errorf("the command's environment %q; want HOME=/workspace", cs[4].Result)
	}
	wantCall(t, "../x", cs[5], "file_operations", map[string]any{"command": "view", "path": "../x"}, failed,
		`Error: "../x" leaves the workspace`)
	wantCall(t, "ln", cs[6], "shell", map[string]any{"command": "ln -s / out && echo linked"}, ok, "exit_code: 0\nstdout:\nlinked")
	wantCall(t, "symlink view", cs[7], "file_operations", map[string]any{"command": "view", "path": "out/etc/passwd"}, failed,
		"Error: cannot view /workspace/out/etc/passwd: the path leaves the workspace (through .. or a symlink); only files under /workspace are reachable")
	wantCallLike(t, "symlink create", cs[8], "file_operations", map[string]any{"command": "create", "path": "out/" + escape, "file_text": "x"}, failed)
	if !strings.HasPrefix(cs[8].Result, "Error: ") || !strings.Contains(cs[8].Result, "leaves the workspace") {
		t.Errorf("create through the symlink: %q; want a refusal", cs[8].Result)
	}
	if _, err := os.Lstat("/" + escape); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("create through the symlink wrote /%s on the host: %v", escape, err)
	}
	wantCallLike(t, "sleep", cs[9], "shell", map[string]any{"command": "sleep 30; echo woke"}, failed)
	if !strings.HasPrefix(cs[9].Result, "Error: the command was killed after 2s (time limit).\nexit_code: ") || strings.Contains(cs[9].Result, "woke") {
		t.Errorf("sleep 30 under a 2 s limit: %q", cs[9].Result)
	}
	wantCallLike(t, "10 MB", cs[10], "shell", map[string]any{"command": `head -c 10000000 /dev/zero | tr '\0' a`}, ok)
	m := truncatedRe.FindStringSubmatch(cs[10].Result)
	if m == nil || len(cs[10].Result) > 30000 || !strings.HasPrefix(cs[10].Result, "exit_code: 0\nstdout:\naaaa") {
		t.Fatalf("10 MB of output: %d bytes starting %q; want at most 30000 with the marker", len(cs[10].Result), cs[10].Result[:min(40, len(cs[10].Result))])
	}
	cut, _ := strconv.Atoi(m[1])
	stdout := strings.TrimPrefix(cs[10].Result[:strings.Index(cs[10].Result, m[0])], "exit_code: 0\nstdout:\n")
	if kept := strings.Count(stdout, "a"); kept != len(stdout) || kept+cut != 10000000 {
		t.Errorf("10 MB of output: %d bytes kept + %d cut = %d; want 10000000", kept, cut, kept+cut)
	}
	if lastStop(frames) != "end_turn" {
		t.Errorf("session A's turn ended %q (%s)", lastStop(frames), shape(frames))
	}

	// The runtime is unharmed: still the live runtime, and it serves a normal turn of A.
	if got := runtimeIDs(t, st); !slices.Equal(got, []string{rt.ID}) {
		t.Fatalf("runtimes after the limits %v; want %s", got, rt.ID)
	}
	frames = mustInvoke(t, f, sidA, userText("still there?"))
	cs = toolCalls(frames)
	if len(cs) != 1 {
		t.Fatalf("normal turn: %+v (%s)", cs, shape(frames))
	}
	wantCall(t, "normal turn", cs[0], "shell", map[string]any{"command": "echo fine; ls"}, ok, "exit_code: 0\nstdout:\nfine\nout")
	if lastStop(frames) != "end_turn" {
		t.Errorf("normal turn ended %q", lastStop(frames))
	}
}

// codeTool is a declared agentcore_code_interpreter named code.
func codeTool() cptypes.HarnessTool {
	return cptypes.HarnessTool{Type: cptypes.HarnessToolTypeAgentcoreCodeInterpreter, Name: aws.String("code"),
		Config: &cptypes.HarnessToolConfigurationMemberAgentCoreCodeInterpreter{Value: cptypes.HarnessAgentCoreCodeInterpreterConfig{}}}
}

// TestTheCodeInterpreterRunsPythonAndJavaScriptInTheWorkspace: a declared agentcore_code_interpreter `code` runs a
// Python and a JavaScript program (their stdout reaches the model, which echoes it in its reply), a failing program
// (stderr and exit status reach the model), an endless loop (killed at the 2 s limit) and a program writing a file
// that `shell` then reads.
func TestTheCodeInterpreterRunsPythonAndJavaScriptInTheWorkspace(t *testing.T) {
	t.Parallel()
	st, _ := toolStack(t, "BATON_TOOL_COMMAND_TIMEOUT_SECONDS=2")
	py := map[string]any{"code": "print(6 * 7)", "language": "python"}
	js := map[string]any{"code": "console.log(['java', 'script'].join('-'))", "language": "javascript"}
	bad := map[string]any{"code": "import sys\nprint('before')\nsys.stderr.write('broken\\n')\nsys.exit(3)", "language": "python"}
	loop := map[string]any{"code": "while True:\n    pass", "language": "python"}
	write := map[string]any{"code": "with open('data.txt', 'w') as f:\n    f.write('written by python')", "language": "python"}
	script := map[string]any{"rules": []any{
		rule("run programs", call("code", py), call("code", js), call("code", bad), call("code", loop), call("code", write), shellCall("cat data.txt")),
		map[string]any{"when": map[string]any{"after_tool": "*"},
			"reply": "{{range .Tools}}[{{.Index}} {{.Name}} error={{.IsError}}]\n{{.Output}}\n{{end}}"},
	}}
	f := newScriptedFixture(t, st, "code", script, codeTool())
	frames := mustInvoke(t, f, newSessionID(t), userText("run programs"))
	cs := toolCalls(frames)
	if len(cs) != 6 {
		t.Fatalf("calls %+v (%s); want 6", cs, shape(frames))
	}
	ok := dptypes.HarnessToolUseStatusSuccess
	results := []string{
		"exit_code: 0\nstdout:\n42",
		"exit_code: 0\nstdout:\njava-script",
		"exit_code: 3\nstdout:\nbefore\nstderr:\nbroken",
		"", // the loop: checked below
		"exit_code: 0\n(no output)\nfiles created or changed:\ndata.txt",
		"exit_code: 0\nstdout:\nwritten by python",
	}
	wantCall(t, "python", cs[0], "code", py, ok, results[0])
	wantCall(t, "javascript", cs[1], "code", js, ok, results[1])
	wantCall(t, "failing", cs[2], "code", bad, ok, results[2])
	wantCallLike(t, "loop", cs[3], "code", loop, dptypes.HarnessToolUseStatusError)
	if !strings.HasPrefix(cs[3].Result, "Error: the program was killed at its time limit.\nexit_code: ") {
		t.Errorf("loop: %q; want it killed at the time limit", cs[3].Result)
	}
	results[3] = cs[3].Result
	wantCall(t, "write", cs[4], "code", write, ok, results[4])
	wantCall(t, "shell reads", cs[5], "shell", map[string]any{"command": "cat data.txt"}, ok, results[5])

	var want strings.Builder
	for i, r := range results {
		name := "code"
		if i == 5 {
			name = "shell"
		}
		fmt.Fprintf(&want, "[%d %s error=%v]\n%s\n", i+1, name, i == 3, r)
	}
	if got := texts(frames); got != want.String() || lastStop(frames) != "end_turn" {
		t.Errorf("reply\n got %q\nwant %q (%s)", got, want.String(), shape(frames))
	}
}

// TestHarnessToolsAroundAnInlineCallRunInModelOrder: one model response [shell A, inline get_weather B, shell C]
// runs A, pauses on B with C not run (no toolUse block of C, its file absent), and runs C only after B's result
// arrives; a shell call of a later turn sees both files. The Session's items show the same order.
func TestHarnessToolsAroundAnInlineCallRunInModelOrder(t *testing.T) {
	t.Parallel()
	st, _ := toolStack(t)
	a := map[string]any{"command": "echo A > a.txt; echo ranA"}
	c := map[string]any{"command": "echo C > c.txt; echo ranC"}
	check := map[string]any{"command": "cat a.txt c.txt"}
	script := map[string]any{"rules": []any{
		rule("in order", call("shell", a), call("get_weather", map[string]any{"city": "Paris"}), call("shell", c)),
		rule("check", call("shell", check)),
		map[string]any{"when": map[string]any{"after_tool": "*"}, "reply": "Seen:{{range .Tools}} {{.Output}};{{end}}"},
	}}
	f := newScriptedFixture(t, st, "order", script, weatherTool())
	sid := newSessionID(t)
	frames := mustInvoke(t, f, sid, userText("in order"))
	cs := toolCalls(frames)
	if len(cs) != 2 || lastStop(frames) != "tool_use" {
		t.Fatalf("first invoke: %+v (%s); want A run and a pause on B", cs, shape(frames))
	}
	wantCall(t, "A", cs[0], "shell", a, dptypes.HarnessToolUseStatusSuccess, "exit_code: 0\nstdout:\nranA")
	if cs[1].Name != "get_weather" || cs[1].Type != string(dptypes.HarnessToolUseTypeToolUse) || cs[1].HasResult {
		t.Fatalf("B: %+v; want the inline get_weather handed over without a result", cs[1])
	}
	session := onlySession(t, f.agentsKey(t))
	dir := workspaceDir(st, session)
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "A\n" {
		t.Fatalf("A's file at the pause: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("C's file exists at the pause (%v): C ran before B's result", err)
	}

	b := cs[1].ID
	frames = mustInvoke(t, f, sid, toolResults(b, "sunny"))
	cs = toolCalls(frames)
	if len(cs) != 2 {
		t.Fatalf("follow-up: %+v (%s); want B's result, then C", cs, shape(frames))
	}
	if cs[0].ID != b || cs[0].Name != "" || cs[0].Result != "sunny" {
		t.Errorf("follow-up starts with %+v; want B's toolResult", cs[0])
	}
	wantCall(t, "C", cs[1], "shell", c, dptypes.HarnessToolUseStatusSuccess, "exit_code: 0\nstdout:\nranC")
	if got, want := texts(frames), "Seen: exit_code: 0\nstdout:\nranA; sunny; exit_code: 0\nstdout:\nranC;"; got != want || lastStop(frames) != "end_turn" {
		t.Fatalf("reply %q (%s); want %q", got, shape(frames), want)
	}

	// A later turn's shell call sees both files.
	frames = mustInvoke(t, f, sid, userText("check"))
	cs = toolCalls(frames)
	if len(cs) != 1 {
		t.Fatalf("check: %+v (%s)", cs, shape(frames))
	}
	wantCall(t, "check", cs[0], "shell", check, dptypes.HarnessToolUseStatusSuccess, "exit_code: 0\nstdout:\nA\nC")

	var order []string
	for _, it := range itemsInOrder(t, f, session) {
		typ, _ := it["type"].(string)
		switch typ {
		case "command_execution":
			order = append(order, typ+":"+fmt.Sprint(it["command"]))
		case "function_call", "function_call_output":
			order = append(order, typ)
		}
	}
	want := []string{"command_execution:" + a["command"].(string), "function_call", "function_call_output",
		"command_execution:" + c["command"].(string), "command_execution:" + check["command"].(string)}
	if !slices.Equal(order, want) {
		t.Errorf("items in order\n got %q\nwant %q", order, want)
	}
}
