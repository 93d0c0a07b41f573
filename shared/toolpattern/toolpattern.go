package toolpattern

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest pattern accepted, in characters (docs/tools.md).
const MaxLen = 64

// BuiltinServer is the reserved server part that names the builtin tools ("@builtin", "@builtin/shell").
const BuiltinServer = "builtin"

// Kind classifies a tool for matching.
type Kind int

// Tool kinds.
const (
	// Builtin is a harness-run default tool (`shell`, `file_operations`).
	Builtin Kind = iota + 1
	// Function is a tool matched by its plain name: a function / inline function (and, later, browser and code
	// interpreter tools by their configured name).
	Function
	// MCP is a tool of an MCP server, identified by the server's label and the server's own tool name.
	MCP
)

// Tool is a tool as patterns see it. Server is the MCP server label (only for Kind MCP); Name is the tool's
// original name (the server's name for an MCP tool).
type Tool struct {
	Kind   Kind
	Server string
	Name   string
}

// Pattern is one parsed pattern.
type Pattern struct {
	raw string
	// all: the pattern "*".
	all bool
	// scoped: the pattern starts with "@"; server is then the server glob (or BuiltinServer) and tool the tool
	// glob ("" = every tool of the server).
	scoped bool
	server string
	tool   string
	// name is the glob of an unscoped pattern.
	name string
}

// Error is a pattern that does not parse. Index is its position in the list given to ParseList (0 for Parse).
type Error struct {
	Index   int
	Pattern string
	Reason  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("allowed tool pattern %d %q: %s", e.Index, e.Pattern, e.Reason)
}

// Parse parses one pattern. Errors (*Error): empty, longer than MaxLen characters, not valid UTF-8, or not of the
// grammar `(\*|@?[^/]+(/[^/]+)?)` (an empty part, "@" alone, a second "/").
func Parse(s string) (Pattern, error) {
	p, reason := parse(s)
	if reason != "" {
		return Pattern{}, &Error{Pattern: s, Reason: reason}
	}
	return p, nil
}

func parse(s string) (Pattern, string) {
	switch {
	case s == "":
		return Pattern{}, "must not be empty"
	case !utf8.ValidString(s):
		return Pattern{}, "must be valid UTF-8"
	case utf8.RuneCountInString(s) > MaxLen:
		return Pattern{}, fmt.Sprintf("must be at most %d characters", MaxLen)
	case s == "*":
		return Pattern{raw: s, all: true}, ""
	}
	p := Pattern{raw: s}
	body := s
	if strings.HasPrefix(s, "@") {
		p.scoped = true
		body = s[1:]
	}
	first, rest, slash := strings.Cut(body, "/")
	if first == "" {
		return Pattern{}, "the name part must not be empty"
	}
	if slash && (rest == "" || strings.Contains(rest, "/")) {
		return Pattern{}, "must have the form name, @server or @server/tool (one '/', non-empty parts)"
	}
	if !p.scoped {
		// The grammar admits "a/b" without "@": it names a non-MCP tool literally called "a/b".
		p.name = body
		return p, ""
	}
	p.server, p.tool = first, rest
	return p, ""
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.raw }

// Match reports whether the pattern matches t.
func (p Pattern) Match(t Tool) bool {
	if p.all {
		return true
	}
	if !p.scoped {
		return t.Kind != MCP && glob(p.name, t.Name)
	}
	if p.server == BuiltinServer {
		return t.Kind == Builtin && (p.tool == "" || glob(p.tool, t.Name))
	}
	return t.Kind == MCP && glob(p.server, t.Server) && (p.tool == "" || glob(p.tool, t.Name))
}

// List is a parsed allowedTools list. The nil *List allows every tool.
type List struct {
	patterns []Pattern
}

// ParseList parses a list of patterns. A nil slice gives a nil *List (every tool allowed); a non-nil empty slice
// gives a List that allows none. The first bad pattern is returned as an *Error with its index.
func ParseList(patterns []string) (*List, error) {
	if patterns == nil {
		return nil, nil
	}
	l := &List{patterns: make([]Pattern, 0, len(patterns))}
	for i, s := range patterns {
		p, reason := parse(s)
		if reason != "" {
			return nil, &Error{Index: i, Pattern: s, Reason: reason}
		}
		l.patterns = append(l.patterns, p)
	}
	return l, nil
}

// Allows reports whether some pattern of the list matches t (always true for the nil List).
func (l *List) Allows(t Tool) bool {
	if l == nil {
		return true
	}
	for _, p := range l.patterns {
		if p.Match(t) {
			return true
		}
	}
	return false
}

// glob matches name against pattern, where '*' matches any run of characters (also none) and every other
// character matches itself. Case-sensitive. Iterative with backtracking to the last '*': O(len(pattern)·len(name)).
func glob(pattern, name string) bool {
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(name) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, ni
			pi++
		case pi < len(pattern) && pattern[pi] == name[ni]:
			pi++
			ni++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}
