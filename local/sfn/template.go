package sfn

import (
	"fmt"
	"sort"
	"strings"
)

// payloadTemplate is a compiled Parameters or ResultSelector value (spec §4.4): fields whose name ends in
// ".$" are evaluated (a `$…` path on the input, a `$$…` path on the context object, or an intrinsic call) at
// any depth, other values are copied literally.
type payloadTemplate struct {
	kind   tplKind
	lit    any
	keys   []string // object keys (".$" removed), sorted
	fields map[string]*payloadTemplate
	items  []*payloadTemplate
	src    string // the source key, for error messages
	path   *jsonPath
	call   *intrinsicCall
}

type tplKind int

const (
	tplLiteral tplKind = iota
	tplObject
	tplArray
	tplPath
	tplCall
)

// compileTemplate compiles v; at is the JSON pointer of v for error messages.
func compileTemplate(v any, at string) (*payloadTemplate, error) {
	switch t := v.(type) {
	case map[string]any:
		out := &payloadTemplate{kind: tplObject, fields: map[string]*payloadTemplate{}}
		for k, e := range t {
			name := k
			var child *payloadTemplate
			if strings.HasSuffix(k, ".$") {
				name = strings.TrimSuffix(k, ".$")
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("the value of field '%s' must be a string (a path or an intrinsic function) at %s/%s", k, at, k)
				}
				if strings.HasPrefix(s, "$") {
					p, err := parsePath(s)
					if err != nil {
						return nil, fmt.Errorf("%v at %s/%s", err, at, k)
					}
					child = &payloadTemplate{kind: tplPath, path: p, src: k}
				} else {
					c, err := parseIntrinsic(s)
					if err != nil {
						return nil, fmt.Errorf("the value of field '%s' is neither a valid JSONPath nor a valid intrinsic function: %v at %s/%s", k, err, at, k)
					}
					child = &payloadTemplate{kind: tplCall, call: c, src: k}
				}
			} else {
				c, err := compileTemplate(e, at+"/"+k)
				if err != nil {
					return nil, err
				}
				child = c
			}
			if _, dup := out.fields[name]; dup {
				return nil, fmt.Errorf("the field '%s' appears twice once '.$' is removed at %s", name, at)
			}
			out.fields[name] = child
			out.keys = append(out.keys, name)
		}
		sort.Strings(out.keys)
		return out, nil
	case []any:
		out := &payloadTemplate{kind: tplArray}
		for i, e := range t {
			c, err := compileTemplate(e, fmt.Sprintf("%s/%d", at, i))
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, c)
		}
		return out, nil
	default:
		return &payloadTemplate{kind: tplLiteral, lit: v}, nil
	}
}

// eval builds the payload. A path that selects nothing fails with States.Runtime (AWS; the spec's
// States.ParameterPathFailure is not used, spec §4.2); intrinsic failures keep their own names.
func (t *payloadTemplate) eval(input, ctx any) (any, error) {
	switch t.kind {
	case tplObject:
		out := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			v, err := t.fields[k].eval(input, ctx)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case tplArray:
		out := make([]any, len(t.items))
		for i, c := range t.items {
			v, err := c.eval(input, ctx)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case tplPath:
		v, err := t.path.eval(input, ctx)
		if err != nil {
			src := input
			if t.path.context {
				src = ctx
			}
			return nil, runtimeError("The JSONPath '%s' specified for the field '%s' could not be found in the input '%s'", t.path.text, t.src, encodeString(src))
		}
		return deepCopy(v), nil
	case tplCall:
		return t.call.eval(input, ctx)
	default:
		return deepCopy(t.lit), nil
	}
}
