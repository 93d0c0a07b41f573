package toolpattern_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/toolpattern"
)

var (
	shell          = toolpattern.Tool{Kind: toolpattern.Builtin, Name: "shell"}
	fileOperations = toolpattern.Tool{Kind: toolpattern.Builtin, Name: "file_operations"}
	fileRead       = toolpattern.Tool{Kind: toolpattern.Builtin, Name: "file_read"}
	getWeather     = toolpattern.Tool{Kind: toolpattern.Function, Name: "get_weather"}
	fileLookalike  = toolpattern.Tool{Kind: toolpattern.Function, Name: "file_report"}
	gitStatus      = toolpattern.Tool{Kind: toolpattern.MCP, Server: "git", Name: "git_status"}
	gitReadFile    = toolpattern.Tool{Kind: toolpattern.MCP, Server: "git", Name: "read_file"}
	gitWrite       = toolpattern.Tool{Kind: toolpattern.MCP, Server: "git", Name: "write_file"}
	repoStatus     = toolpattern.Tool{Kind: toolpattern.MCP, Server: "repo-mcp", Name: "status"}
	docsStatus     = toolpattern.Tool{Kind: toolpattern.MCP, Server: "docs-mcp", Name: "status"}
	docsSearch     = toolpattern.Tool{Kind: toolpattern.MCP, Server: "docs-mcp", Name: "search"}
	gitShell       = toolpattern.Tool{Kind: toolpattern.MCP, Server: "git", Name: "shell"}
	builtinServer  = toolpattern.Tool{Kind: toolpattern.MCP, Server: "builtin", Name: "shell"}
	dottedMCP      = toolpattern.Tool{Kind: toolpattern.MCP, Server: "my.server", Name: "a.b/c d"}
	all            = []toolpattern.Tool{shell, fileOperations, fileRead, getWeather, fileLookalike, gitStatus, gitReadFile,
		gitWrite, repoStatus, docsStatus, docsSearch, gitShell, builtinServer, dottedMCP}
)

func names(ts []toolpattern.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Server+"/"+t.Name)
	}
	return out
}

// TestSeedPatternTable has one row per row of the allowedTools pattern table (docs/tools.md), then edge cases.
// Each row lists every tool of `all` the pattern must match; every other tool must not match.
func TestSeedPatternTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		row     string
		pattern string
		match   []toolpattern.Tool
	}{
		{"* → all tools", "*", all},
		{"plain name → builtin by name", "shell", []toolpattern.Tool{shell}},
		{"plain name → a function by name", "get_weather", []toolpattern.Tool{getWeather}},
		{"builtin glob → file_operations, file_read (and non-MCP lookalikes)", "file_*", []toolpattern.Tool{fileOperations, fileRead, fileLookalike}},
		{"@builtin → all builtin tools", "@builtin", []toolpattern.Tool{shell, fileOperations, fileRead}},
		{"@builtin/name → specific builtin", "@builtin/shell", []toolpattern.Tool{shell}},
		{"@server → all tools from an MCP server", "@git", []toolpattern.Tool{gitStatus, gitReadFile, gitWrite, gitShell}},
		{"@server/tool → specific MCP tool", "@git/git_status", []toolpattern.Tool{gitStatus}},
		{"@server/glob → glob within a server", "@git/read_*", []toolpattern.Tool{gitReadFile}},
		{"@*/tool → glob across servers", "@*-mcp/status", []toolpattern.Tool{repoStatus, docsStatus}},

		{"edge: no match", "nothing_like_this", nil},
		{"edge: @server of no server", "@svn", nil},
		{"edge: server name with dashes", "@docs-mcp", []toolpattern.Tool{docsStatus, docsSearch}},
		{"edge: globs in both parts", "@*-mcp/s*", []toolpattern.Tool{repoStatus, docsStatus, docsSearch}},
		{"edge: @* is every MCP tool (also of a server labelled builtin), never a builtin", "@*", []toolpattern.Tool{gitStatus, gitReadFile, gitWrite, repoStatus, docsStatus, docsSearch, gitShell, builtinServer, dottedMCP}},
		{"edge: @builtin/* is every builtin", "@builtin/*", []toolpattern.Tool{shell, fileOperations, fileRead}},
		{"edge: matching is case-sensitive", "Shell", nil},
		{"edge: a plain name never matches an MCP tool of that name", "status", nil},
		{"edge: '?' and '[' are not special", "file_?perations", nil},
		{"edge: dots, slashes and spaces in MCP names match literally", "@my.server/a.b*", []toolpattern.Tool{dottedMCP}},
		{"edge: ** behaves like *", "**", []toolpattern.Tool{shell, fileOperations, fileRead, getWeather, fileLookalike}},
		{"edge: a*b*c backtracks", "@*/*t*s", []toolpattern.Tool{gitStatus, repoStatus, docsStatus}},
	}
	for _, tc := range tests {
		t.Run(tc.row, func(t *testing.T) {
			t.Parallel()
			p, err := toolpattern.Parse(tc.pattern)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.pattern, err)
			}
			if p.String() != tc.pattern {
				t.Errorf("String() = %q, want %q", p.String(), tc.pattern)
			}
			want := map[toolpattern.Tool]bool{}
			for _, m := range tc.match {
				want[m] = true
			}
			var got []toolpattern.Tool
			for _, tool := range all {
				if p.Match(tool) {
					got = append(got, tool)
				}
			}
			if strings.Join(names(got), ",") != strings.Join(names(filter(all, want)), ",") {
				t.Errorf("%q matches %v, want %v", tc.pattern, names(got), names(filter(all, want)))
			}
		})
	}
}

func filter(ts []toolpattern.Tool, keep map[toolpattern.Tool]bool) []toolpattern.Tool {
	var out []toolpattern.Tool
	for _, t := range ts {
		if keep[t] {
			out = append(out, t)
		}
	}
	return out
}

func TestBuiltinServerNameIsReserved(t *testing.T) {
	t.Parallel()
	p, _ := toolpattern.Parse("@builtin")
	if p.Match(builtinServer) {
		t.Error("@builtin matched a tool of an MCP server labelled builtin")
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "@", "@/", "@git/", "/x", "@/x", "a//b", "@a/b/c", "a/b/c", strings.Repeat("x", 65), "\xff"} {
		_, err := toolpattern.Parse(s)
		var pe *toolpattern.Error
		if !errors.As(err, &pe) || pe.Pattern != s || pe.Reason == "" {
			t.Errorf("Parse(%q) = %v, want a *toolpattern.Error naming it", s, err)
		}
	}
	// 64 characters (not bytes) are fine.
	for _, s := range []string{strings.Repeat("x", 64), strings.Repeat("é", 64), "a/b", "@git/read_*"} {
		if _, err := toolpattern.Parse(s); err != nil {
			t.Errorf("Parse(%q): %v", s, err)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	var none *toolpattern.List
	if !none.Allows(gitStatus) {
		t.Error("the nil List must allow every tool")
	}
	l, err := toolpattern.ParseList(nil)
	if err != nil || l != nil {
		t.Errorf("ParseList(nil) = %v, %v; want nil, nil", l, err)
	}
	empty, err := toolpattern.ParseList([]string{})
	if err != nil || empty == nil {
		t.Fatalf("ParseList([]) = %v, %v", empty, err)
	}
	for _, tool := range all {
		if empty.Allows(tool) {
			t.Errorf("an empty list allowed %v", tool)
		}
	}
	l, err = toolpattern.ParseList([]string{"@builtin/shell", "@git/read_*", "get_weather"})
	if err != nil {
		t.Fatal(err)
	}
	var got []toolpattern.Tool
	for _, tool := range all {
		if l.Allows(tool) {
			got = append(got, tool)
		}
	}
	if g := strings.Join(names(got), ","); g != "/shell,/get_weather,git/read_file" {
		t.Errorf("allowed %s", g)
	}
	_, err = toolpattern.ParseList([]string{"*", "@git", "@a/b/c"})
	var pe *toolpattern.Error
	if !errors.As(err, &pe) || pe.Index != 2 {
		t.Errorf("ParseList with a bad third pattern = %v, want *Error with Index 2", err)
	}
}
