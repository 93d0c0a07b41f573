package sfn

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// choiceRule is a compiled Choice rule (spec §4.7): a boolean combination (And/Or/Not) or a data test
// (Variable plus exactly one operator). Next is set on top-level rules only.
type choiceRule struct {
	and, or     []*choiceRule
	not         *choiceRule
	variable    *jsonPath
	op          string // operator without the "Path" suffix, e.g. "NumericGreaterThan"
	operand     any
	operandPath *jsonPath
	next        string
}

var choiceComparisons = map[string]string{} // operator → family ("String", "Numeric", "Timestamp", "Boolean", "Is")

func init() {
	for _, fam := range []string{"String", "Numeric", "Timestamp"} {
		for _, rel := range []string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"} {
			choiceComparisons[fam+rel] = fam
			choiceComparisons[fam+rel+"Path"] = fam
		}
	}
	choiceComparisons["StringMatches"] = "String"
	choiceComparisons["BooleanEquals"] = "Boolean"
	choiceComparisons["BooleanEqualsPath"] = "Boolean"
	for _, is := range []string{"IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"} {
		choiceComparisons[is] = "Is"
	}
}

// compileChoiceRule compiles one rule; top says whether it is an element of Choices (then Next is required).
func compileChoiceRule(v any, at string, top bool) (*choiceRule, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a choice rule must be an object at %s", at)
	}
	r := &choiceRule{}
	if n, ok := m["Next"]; ok {
		if !top {
			return nil, fmt.Errorf("a nested choice rule must not have 'Next' at %s", at)
		}
		s, ok := n.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("'Next' must be a non-empty string at %s/Next", at)
		}
		r.next = s
	} else if top {
		return nil, fmt.Errorf("these fields are required: [Next] at %s", at)
	}
	var ops []string
	for k := range m {
		switch k {
		case "Next", "Comment", "Variable":
		case "And", "Or", "Not":
			ops = append(ops, k)
		default:
			if _, ok := choiceComparisons[k]; !ok {
				return nil, fmt.Errorf("unknown or unsupported field '%s' in a choice rule at %s/%s", k, at, k)
			}
			ops = append(ops, k)
		}
	}
	if len(ops) != 1 {
		return nil, fmt.Errorf("a choice rule needs exactly one operator, found %d at %s", len(ops), at)
	}
	op := ops[0]
	switch op {
	case "And", "Or":
		list, ok := m[op].([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("'%s' must be a non-empty array at %s/%s", op, at, op)
		}
		for i, e := range list {
			c, err := compileChoiceRule(e, fmt.Sprintf("%s/%s/%d", at, op, i), false)
			if err != nil {
				return nil, err
			}
			if op == "And" {
				r.and = append(r.and, c)
			} else {
				r.or = append(r.or, c)
			}
		}
		if _, ok := m["Variable"]; ok {
			return nil, fmt.Errorf("'Variable' is not allowed with '%s' at %s", op, at)
		}
		return r, nil
	case "Not":
		c, err := compileChoiceRule(m["Not"], at+"/Not", false)
		if err != nil {
			return nil, err
		}
		r.not = c
		return r, nil
	}
	vs, ok := m["Variable"].(string)
	if !ok {
		return nil, fmt.Errorf("these fields are required: [Variable] at %s", at)
	}
	p, err := parsePath(vs)
	if err != nil {
		return nil, fmt.Errorf("%v at %s/Variable", err, at)
	}
	r.variable = p
	operand := m[op]
	fam := choiceComparisons[op]
	if strings.HasSuffix(op, "Path") {
		s, ok := operand.(string)
		if !ok {
			return nil, fmt.Errorf("'%s' must be a path string at %s/%s", op, at, op)
		}
		pp, err := parsePath(s)
		if err != nil {
			return nil, fmt.Errorf("%v at %s/%s", err, at, op)
		}
		r.operandPath = pp
		r.op = strings.TrimSuffix(op, "Path")
		return r, nil
	}
	r.op = op
	r.operand = operand
	var typeOK bool
	switch fam {
	case "String":
		_, typeOK = operand.(string)
		if typeOK && op == "StringMatches" {
			if _, err := compileGlob(operand.(string)); err != nil {
				return nil, fmt.Errorf("%v at %s/%s", err, at, op)
			}
		}
	case "Numeric":
		_, typeOK = operand.(json.Number)
	case "Boolean", "Is":
		_, typeOK = operand.(bool)
	case "Timestamp":
		s, ok := operand.(string)
		_, perr := parseTimestamp(s)
		typeOK = ok && perr == nil
	}
	if !typeOK {
		return nil, fmt.Errorf("the value of '%s' has the wrong type at %s/%s", op, at, op)
	}
	return r, nil
}

// eval evaluates the rule (spec §4.7). Type mismatches are false; a Variable that selects nothing is false for
// IsPresent and a States.Runtime error for any other operator.
func (r *choiceRule) eval(input, ctx any) (bool, error) {
	switch {
	case r.and != nil:
		for _, c := range r.and {
			ok, err := c.eval(input, ctx)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case r.or != nil:
		for _, c := range r.or {
			ok, err := c.eval(input, ctx)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case r.not != nil:
		ok, err := r.not.eval(input, ctx)
		return !ok, err
	}
	val, err := r.variable.eval(input, ctx)
	present := err == nil
	if r.op == "IsPresent" {
		return present == r.operand.(bool), nil
	}
	if !present {
		return false, runtimeError("Invalid path '%s': The choice state's condition path references an invalid value.", r.variable.text)
	}
	operand := r.operand
	if r.operandPath != nil {
		operand, err = r.operandPath.eval(input, ctx)
		if err != nil {
			return false, runtimeError("Invalid path '%s': The choice state's condition path references an invalid value.", r.operandPath.text)
		}
	}
	return compareChoice(r.op, val, operand), nil
}

func compareChoice(op string, val, operand any) bool {
	switch op {
	case "IsNull":
		return (val == nil) == operand.(bool)
	case "IsNumeric":
		_, ok := val.(json.Number)
		return ok == operand.(bool)
	case "IsString":
		_, ok := val.(string)
		return ok == operand.(bool)
	case "IsBoolean":
		_, ok := val.(bool)
		return ok == operand.(bool)
	case "IsTimestamp":
		s, ok := val.(string)
		if ok {
			_, err := parseTimestamp(s)
			ok = err == nil
		}
		return ok == operand.(bool)
	case "BooleanEquals":
		a, ok1 := val.(bool)
		b, ok2 := operand.(bool)
		return ok1 && ok2 && a == b
	case "StringMatches":
		a, ok1 := val.(string)
		b, ok2 := operand.(string)
		if !ok1 || !ok2 {
			return false
		}
		g, err := compileGlob(b)
		return err == nil && g.match(a)
	}
	var c int
	switch {
	case strings.HasPrefix(op, "String"):
		a, ok1 := val.(string)
		b, ok2 := operand.(string)
		if !ok1 || !ok2 {
			return false
		}
		c = strings.Compare(a, b)
	case strings.HasPrefix(op, "Numeric"):
		a, ok1 := val.(json.Number)
		b, ok2 := operand.(json.Number)
		if !ok1 || !ok2 {
			return false
		}
		c = numberCmp(a, b)
	case strings.HasPrefix(op, "Timestamp"):
		as, ok1 := val.(string)
		bs, ok2 := operand.(string)
		if !ok1 || !ok2 {
			return false
		}
		a, err1 := parseTimestamp(as)
		b, err2 := parseTimestamp(bs)
		if err1 != nil || err2 != nil {
			return false
		}
		c = a.Compare(b)
	default:
		return false
	}
	switch {
	case strings.HasSuffix(op, "GreaterThanEquals"):
		return c >= 0
	case strings.HasSuffix(op, "LessThanEquals"):
		return c <= 0
	case strings.HasSuffix(op, "GreaterThan"):
		return c > 0
	case strings.HasSuffix(op, "LessThan"):
		return c < 0
	default:
		return c == 0
	}
}

// parseTimestamp parses an RFC3339 timestamp with an uppercase T and a Z or numeric offset (spec §4.1).
func parseTimestamp(s string) (time.Time, error) {
	if len(s) < 20 || s[10] != 'T' {
		return time.Time{}, fmt.Errorf("%q is not an RFC3339 timestamp", s)
	}
	return time.Parse(time.RFC3339Nano, s)
}

// glob is a compiled StringMatches pattern: '*' matches any run, "\*" and "\\" are literals.
type glob struct {
	parts []string // literal parts between stars
}

func compileGlob(p string) (*glob, error) {
	g := &glob{}
	var cur strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return nil, fmt.Errorf("the StringMatches pattern %q ends with a dangling '\\'", p)
			}
			cur.WriteByte(p[i+1])
			i++
		case '*':
			g.parts = append(g.parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	g.parts = append(g.parts, cur.String())
	return g, nil
}

func (g *glob) match(s string) bool {
	if len(g.parts) == 1 {
		return s == g.parts[0]
	}
	first, last := g.parts[0], g.parts[len(g.parts)-1]
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for _, mid := range g.parts[1 : len(g.parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}
