package sfn

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// jsonPath is a compiled JSONPath (spec §4.2): `$` or `$$` followed by dot and bracket segments. Supported
// selectors: .name, ['name'], [n] (negative counts from the end), .* and [*], unions ['a','b'] and [0,1],
// slices [start:end:step] and recursive descent ..name / ..*. Filter expressions and functions are rejected
// by parsePath.
type jsonPath struct {
	text    string
	context bool // `$$…`: evaluated on the context object
	segs    []pathSegment
}

type segKind int

const (
	segField segKind = iota
	segIndex
	segWildcard
	segSlice
	segNames
	segIndices
	segDescendField
	segDescendWildcard
)

type pathSegment struct {
	kind    segKind
	name    string
	index   int
	names   []string
	indices []int
	start   *int
	end     *int
	step    int
}

// parsePath compiles s. It returns an error naming the offending part when s is not a supported Path.
func parsePath(s string) (*jsonPath, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("the path %q does not start with '$'", s)
	}
	p := &jsonPath{text: s}
	i := 1
	if strings.HasPrefix(s, "$$") {
		p.context = true
		i = 2
	}
	for i < len(s) {
		switch s[i] {
		case '.':
			if i+1 < len(s) && s[i+1] == '.' {
				i += 2
				if i < len(s) && s[i] == '*' {
					p.segs = append(p.segs, pathSegment{kind: segDescendWildcard})
					i++
					continue
				}
				name, n, err := readPathName(s, i)
				if err != nil {
					return nil, err
				}
				p.segs = append(p.segs, pathSegment{kind: segDescendField, name: name})
				i = n
				continue
			}
			i++
			if i < len(s) && s[i] == '*' {
				p.segs = append(p.segs, pathSegment{kind: segWildcard})
				i++
				continue
			}
			name, n, err := readPathName(s, i)
			if err != nil {
				return nil, err
			}
			p.segs = append(p.segs, pathSegment{kind: segField, name: name})
			i = n
		case '[':
			seg, n, err := readBracket(s, i)
			if err != nil {
				return nil, err
			}
			p.segs = append(p.segs, seg)
			i = n
		default:
			return nil, fmt.Errorf("the path %q has an unexpected character %q at offset %d", s, s[i], i)
		}
	}
	return p, nil
}

func readPathName(s string, i int) (string, int, error) {
	start := i
	for i < len(s) && s[i] != '.' && s[i] != '[' {
		switch c := s[i]; {
		case c == '(' || c == ')' || c == '@' || c == '?' || c == '\'' || c == '"' || c == ' ' || c == '\t' || c == '\n' || c == ',':
			return "", 0, fmt.Errorf("the path %q has an unsupported character %q in a field name (functions and filters are not supported)", s, c)
		}
		i++
	}
	if i == start {
		return "", 0, fmt.Errorf("the path %q has an empty field name at offset %d", s, start)
	}
	return s[start:i], i, nil
}

func readBracket(s string, i int) (pathSegment, int, error) {
	// find the closing bracket, honouring quotes
	j := i + 1
	var quote byte
	for ; j < len(s); j++ {
		c := s[j]
		if quote != 0 {
			if c == '\\' {
				j++
				continue
			}
			if c == quote {
				quote = 0
			}
			continue
		}
		if c == '\'' || c == '"' {
			quote = c
			continue
		}
		if c == ']' {
			break
		}
	}
	if j >= len(s) {
		return pathSegment{}, 0, fmt.Errorf("the path %q has an unclosed '['", s)
	}
	body := strings.TrimSpace(s[i+1 : j])
	next := j + 1
	switch {
	case body == "*":
		return pathSegment{kind: segWildcard}, next, nil
	case strings.HasPrefix(body, "?"):
		return pathSegment{}, 0, fmt.Errorf("the path %q uses a filter expression, which the local endpoint does not support", s)
	case body == "":
		return pathSegment{}, 0, fmt.Errorf("the path %q has an empty '[]'", s)
	case body[0] == '\'' || body[0] == '"':
		names, err := splitQuoted(body)
		if err != nil {
			return pathSegment{}, 0, fmt.Errorf("the path %q: %w", s, err)
		}
		if len(names) == 1 {
			return pathSegment{kind: segField, name: names[0]}, next, nil
		}
		return pathSegment{kind: segNames, names: names}, next, nil
	case strings.Contains(body, ":"):
		parts := strings.Split(body, ":")
		if len(parts) > 3 {
			return pathSegment{}, 0, fmt.Errorf("the path %q has a bad slice %q", s, body)
		}
		seg := pathSegment{kind: segSlice, step: 1}
		for k, part := range parts {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			n, err := strconv.Atoi(part)
			if err != nil {
				return pathSegment{}, 0, fmt.Errorf("the path %q has a bad slice %q", s, body)
			}
			switch k {
			case 0:
				seg.start = &n
			case 1:
				seg.end = &n
			case 2:
				if n <= 0 {
					return pathSegment{}, 0, fmt.Errorf("the path %q has a slice step %d; only positive steps are supported", s, n)
				}
				seg.step = n
			}
		}
		return seg, next, nil
	default:
		var idx []int
		for _, part := range strings.Split(body, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return pathSegment{}, 0, fmt.Errorf("the path %q has a bad index %q", s, part)
			}
			idx = append(idx, n)
		}
		if len(idx) == 1 {
			return pathSegment{kind: segIndex, index: idx[0]}, next, nil
		}
		return pathSegment{kind: segIndices, indices: idx}, next, nil
	}
}

func splitQuoted(body string) ([]string, error) {
	var out []string
	i := 0
	for {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i >= len(body) || (body[i] != '\'' && body[i] != '"') {
			return nil, fmt.Errorf("bad quoted name list %q", body)
		}
		q := body[i]
		i++
		var b strings.Builder
		for ; i < len(body) && body[i] != q; i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
		}
		if i >= len(body) {
			return nil, fmt.Errorf("unterminated name in %q", body)
		}
		i++
		out = append(out, b.String())
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i == len(body) {
			return out, nil
		}
		if body[i] != ',' {
			return nil, fmt.Errorf("bad quoted name list %q", body)
		}
		i++
	}
}

// definite reports whether the path selects at most one node (only field and index segments); such a path
// yields the value itself, any other path yields an array of matches (spec §4.2).
func (p *jsonPath) definite() bool {
	for _, s := range p.segs {
		if s.kind != segField && s.kind != segIndex {
			return false
		}
	}
	return true
}

// pathMissError is the failure to select anything with a definite path.
type pathMissError struct {
	path string
	at   string // canonical form of the prefix that matched nothing, e.g. $['a']['b']
}

func (e *pathMissError) Error() string {
	return fmt.Sprintf("Invalid path '%s' : No results for path: %s", e.path, e.at)
}

// eval applies the path to input (or to ctx for a `$$` path).
func (p *jsonPath) eval(input, ctx any) (any, error) {
	root := input
	if p.context {
		root = ctx
	}
	nodes := []any{root}
	canon := "$"
	for _, seg := range p.segs {
		var next []any
		for _, n := range nodes {
			next = applySegment(next, n, seg)
		}
		switch seg.kind {
		case segField:
			canon += "['" + seg.name + "']"
		case segIndex:
			canon += "[" + strconv.Itoa(seg.index) + "]"
		}
		nodes = next
		if len(nodes) == 0 && p.definite() {
			return nil, &pathMissError{path: p.text, at: canon}
		}
	}
	if p.definite() {
		return nodes[0], nil
	}
	if nodes == nil {
		nodes = []any{}
	}
	return nodes, nil
}

func applySegment(out []any, n any, seg pathSegment) []any {
	switch seg.kind {
	case segField:
		if m, ok := n.(map[string]any); ok {
			if v, ok := m[seg.name]; ok {
				out = append(out, v)
			}
		}
	case segNames:
		if m, ok := n.(map[string]any); ok {
			for _, name := range seg.names {
				if v, ok := m[name]; ok {
					out = append(out, v)
				}
			}
		}
	case segIndex:
		if a, ok := n.([]any); ok {
			if i, ok := normIndex(seg.index, len(a)); ok {
				out = append(out, a[i])
			}
		}
	case segIndices:
		if a, ok := n.([]any); ok {
			for _, idx := range seg.indices {
				if i, ok := normIndex(idx, len(a)); ok {
					out = append(out, a[i])
				}
			}
		}
	case segWildcard:
		out = appendChildren(out, n)
	case segSlice:
		if a, ok := n.([]any); ok {
			start, end := 0, len(a)
			if seg.start != nil {
				start = clampSlice(*seg.start, len(a))
			}
			if seg.end != nil {
				end = clampSlice(*seg.end, len(a))
			}
			for i := start; i < end; i += seg.step {
				out = append(out, a[i])
			}
		}
	case segDescendField, segDescendWildcard:
		var all []any
		all = appendDescendants(all, n)
		for _, d := range all {
			if seg.kind == segDescendWildcard {
				out = appendChildren(out, d)
			} else {
				out = applySegment(out, d, pathSegment{kind: segField, name: seg.name})
			}
		}
	}
	return out
}

func appendChildren(out []any, n any) []any {
	switch t := n.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, t[k])
		}
	case []any:
		out = append(out, t...)
	}
	return out
}

func appendDescendants(out []any, n any) []any {
	out = append(out, n)
	var kids []any
	for _, k := range appendChildren(kids, n) {
		out = appendDescendants(out, k)
	}
	return out
}

func normIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

func clampSlice(i, n int) int {
	if i < 0 {
		i += n
		if i < 0 {
			i = 0
		}
	}
	if i > n {
		i = n
	}
	return i
}

// missing marks an absent member while setPath walks down.
type missing struct{}

// setPath returns a copy of root with value placed at the Reference Path p (ResultPath, spec §4.3): missing
// intermediate objects are created, existing fields overwritten. It fails with States.ResultPathMatchFailure
// when root cannot hold the field.
func (p *jsonPath) setPath(root, value any) (any, error) {
	if len(p.segs) == 0 {
		return value, nil
	}
	return setAt(deepCopy(root), p.segs, value, p.text)
}

func setAt(cur any, segs []pathSegment, value any, text string) (any, error) {
	if len(segs) == 0 {
		return value, nil
	}
	seg := segs[0]
	switch seg.kind {
	case segField:
		m, ok := cur.(map[string]any)
		if _, isMissing := cur.(missing); isMissing {
			m, ok = map[string]any{}, true
		}
		if !ok {
			return nil, fmt.Errorf("unable to apply ResultPath '%s': the value at field '%s' is a %s, not an object", text, seg.name, jsonTypeName(cur))
		}
		child, exists := m[seg.name]
		if !exists {
			child = missing{}
		}
		v, err := setAt(child, segs[1:], value, text)
		if err != nil {
			return nil, err
		}
		m[seg.name] = v
		return m, nil
	case segIndex:
		a, ok := cur.([]any)
		if !ok {
			return nil, fmt.Errorf("unable to apply ResultPath '%s': index %d applied to a %s", text, seg.index, jsonTypeName(cur))
		}
		i, ok := normIndex(seg.index, len(a))
		if !ok {
			return nil, fmt.Errorf("unable to apply ResultPath '%s': index %d out of range", text, seg.index)
		}
		v, err := setAt(a[i], segs[1:], value, text)
		if err != nil {
			return nil, err
		}
		a[i] = v
		return a, nil
	}
	return nil, fmt.Errorf("ResultPath '%s' is not a Reference Path", text)
}

// parseReferencePath compiles a Reference Path (spec §4.2): definite, and without `$$` when allowContext is false.
func parseReferencePath(s string, allowContext bool) (*jsonPath, error) {
	p, err := parsePath(s)
	if err != nil {
		return nil, err
	}
	if !p.definite() {
		return nil, fmt.Errorf("%q is not a Reference Path (only field names and array indices are allowed)", s)
	}
	if p.context && !allowContext {
		return nil, fmt.Errorf("%q must not refer to the context object", s)
	}
	return p, nil
}
