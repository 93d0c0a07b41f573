package toolpattern_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/baton-run/baton/shared/toolpattern"
)

// grammar is the documented entry grammar (docs/tools.md), anchored.
var grammar = regexp.MustCompile(`^(\*|@?[^/]+(/[^/]+)?)$`)

// FuzzParse checks the parser against the documented grammar: it accepts exactly the valid UTF-8 strings of 1–64
// characters the grammar matches, except "@" alone and "@/…" (an empty server part, which the parser rejects), never panics, and a parsed
// pattern round-trips through String and matches a tool named by its own literal text when it has no '*'.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"*", "shell", "file_*", "@builtin", "@builtin/shell", "@git", "@git/git_status",
		"@git/read_*", "@*-mcp/status", "", "@", "@a/b/c", "a//b", "@/x", strings.Repeat("x", 65), "é"} {
		f.Add(s, "git", "read_file")
	}
	f.Fuzz(func(t *testing.T, s, server, name string) {
		p, err := toolpattern.Parse(s)
		valid := utf8.ValidString(s) && utf8.RuneCountInString(s) <= toolpattern.MaxLen && grammar.MatchString(s) && s != "@" && !strings.HasPrefix(s, "@/")
		if (err == nil) != valid {
			t.Fatalf("Parse(%q) error = %v, grammar says valid = %v", s, err, valid)
		}
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q, want %q", p.String(), s)
		}
		for _, k := range []toolpattern.Kind{toolpattern.Builtin, toolpattern.Function, toolpattern.MCP} {
			_ = p.Match(toolpattern.Tool{Kind: k, Server: server, Name: name})
		}
		if strings.Contains(s, "*") {
			return
		}
		srv, tool, scoped := "", s, strings.HasPrefix(s, "@")
		if scoped {
			srv, tool, _ = strings.Cut(s[1:], "/")
		}
		switch {
		case !scoped:
			if !p.Match(toolpattern.Tool{Kind: toolpattern.Function, Name: s}) {
				t.Fatalf("%q does not match the function %q", s, s)
			}
		case srv == toolpattern.BuiltinServer:
			if tool != "" && !p.Match(toolpattern.Tool{Kind: toolpattern.Builtin, Name: tool}) {
				t.Fatalf("%q does not match the builtin %q", s, tool)
			}
		default:
			if tool != "" && !p.Match(toolpattern.Tool{Kind: toolpattern.MCP, Server: srv, Name: tool}) {
				t.Fatalf("%q does not match %s/%s", s, srv, tool)
			}
			if p.Match(toolpattern.Tool{Kind: toolpattern.Builtin, Name: tool}) {
				t.Fatalf("%q matches a builtin", s)
			}
		}
	})
}
