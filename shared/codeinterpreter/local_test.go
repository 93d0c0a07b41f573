package codeinterpreter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/builtintools"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/workspace"
	"github.com/baton-run/baton/shared/workspace/workspacetest"
)

func run(t *testing.T, tool harness.BuiltinTool, args any) harness.BuiltinResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tool.Call(context.Background(), raw)
	if err != nil {
		t.Fatalf("call %s: %v", raw, err)
	}
	return r
}

type args struct {
	Code     string `json:"code"`
	Language string `json:"language,omitempty"`
}

func TestProgramsRunAndReportTheirOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args args
		want harness.BuiltinResult
	}{
		{name: "python by default", args: args{Code: "import sys\nprint(sum(range(5)))\nprint('warn', file=sys.stderr)"},
			want: harness.BuiltinResult{Output: "exit_code: 0\nstdout:\n10\nstderr:\nwarn"}},
		{name: "javascript", args: args{Code: "console.log([1, 2].map(x => x * 2).join(','))", Language: "javascript"},
			want: harness.BuiltinResult{Output: "exit_code: 0\nstdout:\n2,4"}},
		{name: "a failing python program reaches the model with its stderr and status",
			args: args{Code: "print('before')\nraise ValueError('boom')", Language: "python"},
			want: harness.BuiltinResult{ExitCode: 1, Output: "exit_code: 1\nstdout:\nbefore\nstderr:\n" +
				"Traceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\nValueError: boom"}},
		{name: "a failing javascript program", args: args{Code: "console.error('bad input'); process.exit(4)", Language: "javascript"},
			want: harness.BuiltinResult{ExitCode: 4, Output: "exit_code: 4\nstderr:\nbad input"}},
		{name: "state does not persist between calls", args: args{Code: "print(x)"},
			want: harness.BuiltinResult{ExitCode: 1, Output: "exit_code: 1\nstderr:\nTraceback (most recent call last):\n" +
				"  File \"<stdin>\", line 1, in <module>\nNameError: name 'x' is not defined"}},
		{name: "typescript is refused, not faked", args: args{Code: "const x: number = 1", Language: "typescript"},
			want: harness.BuiltinResult{IsError: true, Output: "Error: unsupported language: TypeScript cannot run in the local " +
				"code interpreter (node 20 has no TypeScript runner); use javascript or python"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := workspacetest.Open(t, workspace.Limits{})
			tool := Tool(Local(w))
			if tc.name == "state does not persist between calls" {
				run(t, tool, args{Code: "x = 1"})
			}
			got := run(t, tool, tc.args)
			tc.want.Command = tc.args.Code
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestAProgramThatLoopsForeverIsKilledAtTheLimit(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{CommandTimeout: time.Second})
	for _, a := range []args{{Code: "print('start', flush=True)\nwhile True: pass"}, {Code: "console.log('start'); for (;;) {}", Language: "javascript"}} {
		r := run(t, Tool(Local(w)), a)
		if !r.IsError || r.ExitCode != 137 || r.Output != "Error: the program was killed at its time limit.\nexit_code: 137\nstdout:\nstart" {
			t.Errorf("%s: %+v", a.Language, r)
		}
	}
}

func TestFilesWrittenByAProgramAreReportedAndStayForTheShell(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	if err := w.Root().WriteFile("untouched.txt", []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, Tool(Local(w)), args{Code: "import os\nos.makedirs('out', exist_ok=True)\n" +
		"open('out/result.csv', 'w').write('a,b\\n1,2\\n')\nopen('notes.txt', 'w').write('n')\nprint(os.getcwd())"})
	if r.IsError || r.Output != "exit_code: 0\nstdout:\n/workspace\nfiles created or changed:\nnotes.txt\nout/result.csv" {
		t.Fatalf("%+v", r)
	}
	sh := run(t, builtintools.Shell(w), map[string]string{"command": "cat out/result.csv"})
	if sh.Output != "exit_code: 0\nstdout:\na,b\n1,2" {
		t.Fatalf("shell: %q", sh.Output)
	}
	// JavaScript sees the same files.
	js := run(t, Tool(Local(w)), args{Code: "const fs = require('fs'); console.log(fs.readFileSync('out/result.csv', 'utf8').trim().split('\\n').length)", Language: "javascript"})
	if js.Output != "exit_code: 0\nstdout:\n2" {
		t.Fatalf("javascript: %q", js.Output)
	}
}

func TestProgramOutputIsBounded(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{OutputBytes: 4096})
	r := run(t, Tool(Local(w)), args{Code: "import sys\nsys.stdout.write('x' * 10_000_000)"})
	if r.IsError || len(r.Output) > 4096 || !strings.Contains(r.Output, "bytes truncated]") {
		t.Fatalf("%d bytes, ends %q", len(r.Output), r.Output[max(0, len(r.Output)-80):])
	}
}

func TestLocalRefusesUnknownLanguages(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{})
	for _, lang := range []string{"typescript", "ruby"} {
		if _, err := Local(w).Execute(context.Background(), lang, "1"); !errors.Is(err, ErrUnsupportedLanguage) {
			t.Errorf("%s: %v", lang, err)
		}
	}
}

func TestDefinitionCompiles(t *testing.T) {
	t.Parallel()
	def := Tool(nil).Definition()
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
		t.Fatal(err)
	}
	for in, ok := range map[string]bool{`{"code":"1"}`: true, `{"code":"1","language":"javascript"}`: true,
		`{"code":"1","language":"ruby"}`: false, `{"language":"python"}`: false, `{"code":""}`: false} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err := s.Validate(v); (err == nil) != ok {
			t.Errorf("%s: valid = %v, want %v", in, err == nil, ok)
		}
	}
}

func TestExecutionOutputListsAtMostMaxListedFiles(t *testing.T) {
	t.Parallel()
	files := make([]string, MaxListedFiles+3)
	for i := range files {
		files[i] = "f"
	}
	out := ExecutionOutput(Execution{Files: files})
	listed := 0
	for _, line := range strings.Split(out, "\n") {
		if line == "f" {
			listed++
		}
	}
	if !strings.HasSuffix(out, "\nf\n[… 3 more]") || listed != MaxListedFiles || !strings.HasPrefix(out, "exit_code: 0\n(no output)\n") {
		t.Fatalf("%q", out)
	}
}

func TestAProgramThatFillsTheWorkspaceIsToldSo(t *testing.T) {
	t.Parallel()
	w := workspacetest.Open(t, workspace.Limits{MaxBytes: 1000})
	r := run(t, Tool(Local(w)), args{Code: "open('big.bin', 'wb').write(b'0' * 2000)"})
	want := "exit_code: 0\nstderr:\n[workspace size limit exceeded: the workspace would hold more than its limit of 1000 bytes; " +
		"delete files to make room]\nfiles created or changed:\nbig.bin"
	if r.IsError || r.Output != want {
		t.Fatalf("%+v", r)
	}
}
