package builtintools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/workspace"
	"github.com/baton-run/baton/shared/workspace/workspacetest"
)

func call(t *testing.T, tool harness.BuiltinTool, args string) harness.BuiltinResult {
	t.Helper()
	r, err := tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("call %s: %v", args, err)
	}
	return r
}

// files returns every regular file and symlink of a directory tree with its content (symlinks as "-> target").
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compile(t *testing.T, def harness.Tool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(def.Parameters))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:test", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:test")
	if err != nil {
		t.Fatalf("%s parameters do not compile: %v", def.Name, err)
	}
	return s
}

func TestDefinitionsCompileAndCheckArguments(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{CommandTimeout: 60 * time.Second})
	for _, tc := range []struct {
		tool harness.BuiltinTool
		args string
		ok   bool
	}{
		{Shell(w), `{"command":"ls"}`, true},
		{Shell(w), `{"command":"ls","timeout":60}`, true},
		{Shell(w), `{"command":"ls","timeout":61}`, false},
		{Shell(w), `{"command":"ls","timeout":1.5}`, false},
		{Shell(w), `{"command":""}`, false},
		{Shell(w), `{"cmd":"ls"}`, false},
		{FileOperations(w), `{"command":"view","path":"a","view_range":[1,-1]}`, true},
		{FileOperations(w), `{"command":"insert","path":"a","new_str":"x","insert_line":0}`, true},
		{FileOperations(w), `{"command":"undo_edit","path":"a"}`, false},
		{FileOperations(w), `{"command":"view"}`, false},
		{FileOperations(w), `{"command":"view","path":"a","view_range":[1]}`, false},
		{FileOperations(w), `{"command":"insert","path":"a","new_str":"x","insert_line":-1}`, false},
	} {
		def := tc.tool.Definition()
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := compile(t, def).Validate(v); (err == nil) != tc.ok {
			t.Errorf("%s %s: valid = %v, want %v (%v)", def.Name, tc.args, err == nil, tc.ok, err)
		}
	}
	// Both descriptions together stay compact (AgentCore budgets about 900 tokens for the two definitions).
	n := 0
	for _, tool := range Tools(w) {
		d := tool.Definition()
		n += len(d.Description) + len(d.Parameters)
	}
	if n > 2400 {
		t.Errorf("definitions take %d bytes", n)
	}
}

func TestFileOperations(t *testing.T) {
	t.Parallel()
	const abc = "one\ntwo\nthree\n"
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		files     map[string]string // before; a value "-> x" is a symlink to x
		args      string
		want      string // the result's Output
		wantError bool
		after     map[string]string // nil = unchanged
	}{
		{name: "view numbers a file's lines", files: map[string]string{"a.txt": abc},
			args: `{"command":"view","path":"a.txt"}`, want: "1: one\n2: two\n3: three"},
		{name: "view takes an absolute path under /workspace", files: map[string]string{"d/a.txt": abc},
			args: `{"command":"view","path":"/workspace/d/a.txt","view_range":[2,2]}`, want: "2: two"},
		{name: "view range to -1 ends at the last line", files: map[string]string{"a.txt": abc},
			args: `{"command":"view","path":"a.txt","view_range":[2,-1]}`, want: "2: two\n3: three"},
		{name: "view range end past the file is the last line", files: map[string]string{"a.txt": abc},
			args: `{"command":"view","path":"a.txt","view_range":[3,10]}`, want: "3: three"},
		{name: "view range start past the end is refused", files: map[string]string{"a.txt": abc},
			args: `{"command":"view","path":"a.txt","view_range":[5,6]}`, wantError: true,
			want: "Error: view_range start 5 is past the end of /workspace/a.txt (3 lines)"},
		{name: "view range backwards is refused", files: map[string]string{"a.txt": abc},
			args: `{"command":"view","path":"a.txt","view_range":[3,2]}`, wantError: true,
			want: "Error: view_range end 2 is before its start 3 (use -1 for the last line)"},
		{name: "view an empty file", files: map[string]string{"e.txt": ""},
			args: `{"command":"view","path":"e.txt"}`, want: "/workspace/e.txt is empty."},
		{name: "view lists a directory two levels deep",
			files: map[string]string{"top.txt": "", "d/x.txt": "", "d/sub/y.txt": "", "d/sub/deep/z.txt": ""},
			args:  `{"command":"view","path":"/workspace"}`, want: "/workspace (2 levels):\nd/\nd/sub/\nd/x.txt\ntop.txt"},
		{name: "view a missing file", args: `{"command":"view","path":"nope.txt"}`, wantError: true,
			want: "Error: /workspace/nope.txt does not exist"},
		{name: "view a binary file is refused", files: map[string]string{"b.bin": "a\x00b"},
			args: `{"command":"view","path":"b.bin"}`, wantError: true,
			want: "Error: /workspace/b.bin is a binary file (3 bytes); use shell to inspect it"},
		{name: "create makes parent directories", args: `{"command":"create","path":"new/dir/f.txt","file_text":"hi\n"}`,
			want: "Created /workspace/new/dir/f.txt (1 lines, 3 bytes).", after: map[string]string{"new/dir/f.txt": "hi\n"}},
		{name: "create overwrites", files: map[string]string{"a.txt": abc}, args: `{"command":"create","path":"a.txt","file_text":"x"}`,
			want: "Overwrote /workspace/a.txt (1 lines, 1 bytes).", after: map[string]string{"a.txt": "x"}},
		{name: "create needs file_text", args: `{"command":"create","path":"a.txt"}`, wantError: true,
			want: "Error: create needs `file_text`"},
		{name: "create on a directory is refused", files: map[string]string{"d/x": ""}, args: `{"command":"create","path":"d","file_text":"x"}`,
			wantError: true, want: "Error: /workspace/d is a directory"},
		{name: "str_replace replaces the one match", files: map[string]string{"a.txt": abc},
			args: `{"command":"str_replace","path":"a.txt","old_str":"two","new_str":"2\n2b"}`,
			want: "Edited /workspace/a.txt.\n1: one\n2: 2\n3: 2b\n4: three", after: map[string]string{"a.txt": "one\n2\n2b\nthree\n"}},
		{name: "str_replace with no match changes nothing", files: map[string]string{"a.txt": abc},
			args: `{"command":"str_replace","path":"a.txt","old_str":"four","new_str":"4"}`, wantError: true,
			want: "Error: old_str was not found in /workspace/a.txt; no change made"},
		{name: "str_replace with two matches names the count", files: map[string]string{"a.txt": "x\nx\n"},
			args: `{"command":"str_replace","path":"a.txt","old_str":"x","new_str":"y"}`, wantError: true,
			want: "Error: old_str occurs 2 times in /workspace/a.txt; it must occur exactly once (include more surrounding text); no change made"},
		{name: "str_replace needs new_str", files: map[string]string{"a.txt": abc},
			args: `{"command":"str_replace","path":"a.txt","old_str":"two"}`, wantError: true,
			want: "Error: str_replace needs `new_str` (\"\" deletes old_str)"},
		{name: "insert at line 0 puts text at the top", files: map[string]string{"a.txt": abc},
			args:  `{"command":"insert","path":"a.txt","new_str":"zero","insert_line":0}`,
			want:  "Inserted 1 lines after line 0 of /workspace/a.txt.\n1: zero\n2: one\n3: two\n4: three\n",
			after: map[string]string{"a.txt": "zero\none\ntwo\nthree\n"}},
		{name: "insert after line 2", files: map[string]string{"a.txt": abc},
			args:  `{"command":"insert","path":"a.txt","new_str":"2a\n2b\n","insert_line":2}`,
			want:  "Inserted 2 lines after line 2 of /workspace/a.txt.\n1: one\n2: two\n3: 2a\n4: 2b\n5: three",
			after: map[string]string{"a.txt": "one\ntwo\n2a\n2b\nthree\n"}},
		{name: "insert past the end appends", files: map[string]string{"a.txt": "one\ntwo"},
			args:  `{"command":"insert","path":"a.txt","new_str":"end","insert_line":99}`,
			want:  "Inserted 1 lines after line 2 of /workspace/a.txt.\n1: one\n2: two\n3: end",
			after: map[string]string{"a.txt": "one\ntwo\nend"}},
		{name: "insert into an empty file", files: map[string]string{"e.txt": ""},
			args: `{"command":"insert","path":"e.txt","new_str":"first","insert_line":0}`,
			want: "Inserted 1 lines after line 0 of /workspace/e.txt.\n1: first", after: map[string]string{"e.txt": "first\n"}},
		{name: "insert needs insert_line", files: map[string]string{"a.txt": abc},
			args: `{"command":"insert","path":"a.txt","new_str":"x"}`, wantError: true,
			want: "Error: insert needs `insert_line` (0 = at the top, N = after line N)"},
		{name: "dot-dot out of the workspace is refused", args: `{"command":"create","path":"../escape.txt","file_text":"x"}`,
			wantError: true, want: `Error: "../escape.txt" leaves the workspace`},
		{name: "an absolute path elsewhere is refused", args: `{"command":"view","path":"/etc/passwd"}`,
			wantError: true, want: `Error: "/etc/passwd" is outside the workspace /workspace`},
		{name: "reading through a symlink out of the workspace is refused", files: map[string]string{"out": "-> " + outside},
			args: `{"command":"view","path":"out/secret"}`, wantError: true,
			want: "Error: cannot view /workspace/out/secret: the path leaves the workspace (through .. or a symlink); only files under /workspace are reachable"},
		{name: "writing through a symlink out of the workspace is refused", files: map[string]string{"out": "-> " + outside},
			args: `{"command":"create","path":"out/evil.txt","file_text":"x"}`, wantError: true,
			want: "Error: cannot create the directories of /workspace/out/evil.txt: the path leaves the workspace (through .. or a symlink); only files under /workspace are reachable"},
		{name: "a symlinked file out of the workspace is refused", files: map[string]string{"link": "-> " + filepath.Join(outside, "secret")},
			args: `{"command":"str_replace","path":"link","old_str":"outside","new_str":"changed"}`, wantError: true,
			want: "Error: cannot read /workspace/link: the path leaves the workspace (through .. or a symlink); only files under /workspace are reachable"},
		{name: "a symlink inside the workspace is followed", files: map[string]string{"a.txt": abc, "l": "-> a.txt"},
			args: `{"command":"view","path":"l","view_range":[1,1]}`, want: "1: one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := workspacetest.Open(t, workspace.Limits{})
			for p, content := range tc.files {
				full := filepath.Join(w.Dir(), p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if target, ok := strings.CutPrefix(content, "-> "); ok {
					err = os.Symlink(target, full)
				} else {
					err = os.WriteFile(full, []byte(content), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			before := files(t, w.Dir())
			r := call(t, FileOperations(w), tc.args)
			if r.Output != strings.TrimSuffix(tc.want, "\n") || r.IsError != tc.wantError || r.Cwd != "/workspace" {
				t.Fatalf("got %+v\nwant output %q, is_error %v", r, tc.want, tc.wantError)
			}
			want := before
			if tc.after != nil {
				for p, c := range tc.after {
					want[p] = c
				}
			}
			if diff := cmp.Diff(want, files(t, w.Dir())); diff != "" {
				t.Errorf("workspace (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]string{"secret": "outside"}, files(t, outside)); diff != "" {
				t.Errorf("outside the workspace changed:\n%s", diff)
			}
		})
	}
}

func TestFileOperationsRefusesAWriteOverTheWorkspaceLimit(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{MaxBytes: 100})
	r := call(t, FileOperations(w), `{"command":"create","path":"big.txt","file_text":"`+strings.Repeat("x", 101)+`"}`)
	if !r.IsError || r.Output != "Error: /workspace/big.txt was not written: the workspace would hold more than its limit of 100 bytes; delete files to make room." {
		t.Fatalf("%+v", r)
	}
	if got := files(t, w.Dir()); len(got) != 0 {
		t.Fatalf("written: %v", got)
	}
	if r := call(t, FileOperations(w), `{"command":"create","path":"ok.txt","file_text":"`+strings.Repeat("x", 100)+`"}`); r.IsError {
		t.Fatalf("a write up to the limit: %+v", r)
	}
}

func TestFileOperationsViewIsCutAtTheOutputLimit(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{OutputBytes: 500})
	if err := w.Root().WriteFile("long.txt", []byte(strings.Repeat("0123456789\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := call(t, FileOperations(w), `{"command":"view","path":"long.txt"}`)
	if r.IsError || len(r.Output) > 500 || !strings.HasPrefix(r.Output, "1: 0123456789\n2: ") || !strings.Contains(r.Output, "bytes truncated]") {
		t.Fatalf("%d bytes: %q", len(r.Output), r.Output)
	}
}

func TestShellReportsExitCodeStdoutAndStderr(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	r := call(t, Shell(w), `{"command":"echo out; echo err >&2; pwd >&2; exit 3"}`)
	want := harness.BuiltinResult{Output: "exit_code: 3\nstdout:\nout\nstderr:\nerr\n/workspace", Command: "echo out; echo err >&2; pwd >&2; exit 3",
		Cwd: "/workspace", ExitCode: 3}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatal(diff)
	}
	if r := call(t, Shell(w), `{"command":"true"}`); r.Output != "exit_code: 0\n(no output)" || r.IsError {
		t.Fatalf("%+v", r)
	}
}

func TestShellSeesFilesOfFileOperationsAcrossCalls(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	if r := call(t, FileOperations(w), `{"command":"create","path":"src/hello.sh","file_text":"echo hello from $(basename $PWD)\n"}`); r.IsError {
		t.Fatal(r.Output)
	}
	if r := call(t, Shell(w), `{"command":"cd src && bash hello.sh > ../out.txt && cd /tmp"}`); r.ExitCode != 0 {
		t.Fatal(r.Output)
	}
	// A fresh shell: back in /workspace, the file of the last call is there.
	r := call(t, Shell(w), `{"command":"pwd; cat out.txt"}`)
	if r.Output != "exit_code: 0\nstdout:\n/workspace\nhello from src" {
		t.Fatalf("%q", r.Output)
	}
	if r := call(t, FileOperations(w), `{"command":"view","path":"out.txt"}`); r.Output != "1: hello from src" {
		t.Fatalf("%q", r.Output)
	}
}

func TestShellTimeoutKillsTheCommand(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{CommandTimeout: 30 * time.Second})
	r := call(t, Shell(w), `{"command":"echo started; sleep 1000; echo never","timeout":1}`)
	if !r.IsError || r.ExitCode != 137 || r.Output != "Error: the command was killed after 1s (time limit).\nexit_code: 137\nstdout:\nstarted" {
		t.Fatalf("%+v", r)
	}
}

func TestShellTimeoutIsCappedAtTheLimit(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{CommandTimeout: time.Second})
	// The harness validates arguments against the schema (maximum 1); called directly, a larger value is capped.
	r := call(t, Shell(w), `{"command":"sleep 1000","timeout":3600}`)
	if !r.IsError || !strings.HasPrefix(r.Output, "Error: the command was killed after 1s (time limit).") {
		t.Fatalf("%+v", r)
	}
}

func TestShellOutputIsTruncatedWithAMarker(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	r := call(t, Shell(w), `{"command":"yes | head -c 10000000"}`)
	if r.IsError || r.ExitCode != 0 || len(r.Output) > workspace.DefaultOutputBytes {
		t.Fatalf("is_error %v, exit %d, %d bytes", r.IsError, r.ExitCode, len(r.Output))
	}
	kept := workspace.DefaultOutputBytes - shellHeadroom - 64
	if !strings.HasPrefix(r.Output, "exit_code: 0\nstdout:\ny\ny\n") || !strings.HasSuffix(r.Output, strings.TrimSuffix(workspace.TruncationMarker(int64(10000000-kept)), "\n")) {
		t.Fatalf("ends with %q", r.Output[len(r.Output)-100:])
	}
}

func TestShellReportsAWorkspaceOverItsLimit(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{MaxBytes: 1000})
	r := call(t, Shell(w), `{"command":"head -c 2000 /dev/zero > big.bin; echo wrote"}`)
	if !r.IsError || r.ExitCode != 0 || r.Output != "Error: the workspace would hold more than its limit of 1000 bytes; delete files to make room.\nexit_code: 0\nstdout:\nwrote" {
		t.Fatalf("%+v", r)
	}
	if r := call(t, Shell(w), `{"command":"rm big.bin"}`); r.IsError {
		t.Fatalf("after deleting: %+v", r)
	}
}

func TestShellMissingCommandIsAnErrorResult(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	if r := call(t, Shell(w), `{}`); !r.IsError || !strings.Contains(r.Output, "`command`") {
		t.Fatalf("%+v", r)
	}
}

func TestToolsAreKeyedByTheHarnessNames(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	var names []string
	for n, tool := range Tools(w) {
		if tool.Definition().Name != n {
			t.Errorf("%s defines %s", n, tool.Definition().Name)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	want := append([]string(nil), harness.BuiltinToolNames...)
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Error(diff)
	}
}
