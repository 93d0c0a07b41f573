package sfn

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math/big"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

// intrinsicCall is a compiled intrinsic function call such as States.Format('{}', $.x) (spec §4.10).
type intrinsicCall struct {
	name string
	args []intrinsicArg
}

type intrinsicArg struct {
	lit    any    // literal value (string, json.Number, bool or nil) when path and call are nil
	rawLit string // a string literal as written, escapes kept (States.Format needs \{ and \})
	isStr  bool
	path   *jsonPath
	call   *intrinsicCall
}

// intrinsicArity gives the minimum and maximum argument count (-1: unbounded) of each supported function.
var intrinsicArity = map[string][2]int{
	"States.Format":         {1, -1},
	"States.StringToJson":   {1, 1},
	"States.JsonToString":   {1, 1},
	"States.Array":          {0, -1},
	"States.ArrayPartition": {2, 2},
	"States.ArrayContains":  {2, 2},
	"States.ArrayRange":     {3, 3},
	"States.ArrayGetItem":   {2, 2},
	"States.ArrayLength":    {1, 1},
	"States.ArrayUnique":    {1, 1},
	"States.Base64Encode":   {1, 1},
	"States.Base64Decode":   {1, 1},
	"States.Hash":           {2, 2},
	"States.JsonMerge":      {3, 3},
	"States.MathRandom":     {2, 3},
	"States.MathAdd":        {2, 2},
	"States.StringSplit":    {2, 2},
	"States.UUID":           {0, 0},
}

// parseIntrinsic compiles an intrinsic call. Unknown functions and wrong argument counts are errors, so
// CreateStateMachine rejects them (spec §4.4).
func parseIntrinsic(s string) (*intrinsicCall, error) {
	p := &intrinsicParser{s: s}
	c, err := p.call()
	if err != nil {
		return nil, fmt.Errorf("the intrinsic %q: %w", s, err)
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("the intrinsic %q has unexpected text after the call at offset %d", s, p.i)
	}
	return c, nil
}

type intrinsicParser struct {
	s string
	i int
}

func (p *intrinsicParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *intrinsicParser) call() (*intrinsicCall, error) {
	p.space()
	start := p.i
	for p.i < len(p.s) && (isIdentByte(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	name := p.s[start:p.i]
	arity, ok := intrinsicArity[name]
	if !ok {
		return nil, fmt.Errorf("unknown or unsupported function %q", name)
	}
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '(' {
		return nil, fmt.Errorf("expected '(' after %s", name)
	}
	p.i++
	c := &intrinsicCall{name: name}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ')' {
		p.i++
	} else {
		for {
			a, err := p.arg()
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, a)
			p.space()
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("missing ')' in %s", name)
			}
			if p.s[p.i] == ')' {
				p.i++
				break
			}
			if p.s[p.i] != ',' {
				return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.i)
			}
			p.i++
		}
	}
	if len(c.args) < arity[0] || (arity[1] >= 0 && len(c.args) > arity[1]) {
		return nil, fmt.Errorf("%s takes %s arguments, got %d", name, arityText(arity), len(c.args))
	}
	return c, nil
}

func arityText(a [2]int) string {
	switch {
	case a[1] < 0:
		return fmt.Sprintf("at least %d", a[0])
	case a[0] == a[1]:
		return strconv.Itoa(a[0])
	default:
		return fmt.Sprintf("%d to %d", a[0], a[1])
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func (p *intrinsicParser) arg() (intrinsicArg, error) {
	p.space()
	if p.i >= len(p.s) {
		return intrinsicArg{}, fmt.Errorf("missing argument")
	}
	c := p.s[p.i]
	switch {
	case c == '\'':
		p.i++
		var raw, val strings.Builder
		for {
			if p.i >= len(p.s) {
				return intrinsicArg{}, fmt.Errorf("unterminated string literal")
			}
			ch := p.s[p.i]
			if ch == '\\' {
				if p.i+1 >= len(p.s) {
					return intrinsicArg{}, fmt.Errorf("dangling '\\' in a string literal")
				}
				nx := p.s[p.i+1]
				if nx != '\'' && nx != '{' && nx != '}' && nx != '\\' {
					return intrinsicArg{}, fmt.Errorf("unknown escape '\\%c' in a string literal", nx)
				}
				raw.WriteByte('\\')
				raw.WriteByte(nx)
				val.WriteByte(nx)
				p.i += 2
				continue
			}
			if ch == '\'' {
				p.i++
				break
			}
			raw.WriteByte(ch)
			val.WriteByte(ch)
			p.i++
		}
		return intrinsicArg{lit: val.String(), rawLit: raw.String(), isStr: true}, nil
	case c == '$':
		start := p.i
		depth := 0
		var quote byte
		for p.i < len(p.s) {
			ch := p.s[p.i]
			if quote != 0 {
				if ch == quote {
					quote = 0
				}
			} else if ch == '"' {
				quote = ch
			} else if ch == '[' {
				depth++
			} else if ch == ']' {
				depth--
			} else if depth == 0 && (ch == ',' || ch == ')') {
				break
			}
			p.i++
		}
		path, err := parsePath(strings.TrimSpace(p.s[start:p.i]))
		if err != nil {
			return intrinsicArg{}, err
		}
		return intrinsicArg{path: path}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-.eE0123456789", p.s[p.i]) >= 0 {
			p.i++
		}
		text := p.s[start:p.i]
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return intrinsicArg{}, fmt.Errorf("bad number %q", text)
		}
		return intrinsicArg{lit: json.Number(text)}, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return intrinsicArg{lit: nil}, nil
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return intrinsicArg{lit: true}, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return intrinsicArg{lit: false}, nil
	default:
		call, err := p.call()
		if err != nil {
			return intrinsicArg{}, err
		}
		return intrinsicArg{call: call}, nil
	}
}

func intrinsicFailure(format string, args ...any) *stateError {
	return newStateError(errIntrinsicFailure, fmt.Sprintf(format, args...))
}

// eval runs the call against the state input and the context object. Failures are *stateError:
// States.Runtime for a path that selects nothing, States.IntrinsicFailure for bad arguments (spec §4.8).
func (c *intrinsicCall) eval(input, ctx any) (any, error) {
	vals := make([]any, len(c.args))
	for i, a := range c.args {
		switch {
		case a.path != nil:
			v, err := a.path.eval(input, ctx)
			if err != nil {
				return nil, runtimeError("The JSONPath '%s' specified as an argument of %s could not be found in the input", a.path.text, c.name)
			}
			vals[i] = v
		case a.call != nil:
			v, err := a.call.eval(input, ctx)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		default:
			vals[i] = a.lit
		}
	}
	return c.apply(vals)
}

func (c *intrinsicCall) apply(v []any) (any, error) {
	switch c.name {
	case "States.Format":
		tpl, ok := v[0].(string)
		if !ok {
			return nil, intrinsicFailure("States.Format: the template must be a string")
		}
		raw := tpl
		if c.args[0].isStr {
			raw = c.args[0].rawLit
		}
		return formatTemplate(raw, v[1:])
	case "States.StringToJson":
		s, ok := v[0].(string)
		if !ok {
			return nil, intrinsicFailure("States.StringToJson: the argument must be a string, got %s", jsonTypeName(v[0]))
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		out, err := decodeJSON([]byte(s))
		if err != nil {
			return nil, intrinsicFailure("States.StringToJson: %v", err)
		}
		return out, nil
	case "States.JsonToString":
		if c.args[0].path == nil {
			return nil, intrinsicFailure("States.JsonToString: the argument must be a path")
		}
		return encodeString(v[0]), nil
	case "States.Array":
		return append([]any{}, v...), nil
	case "States.ArrayPartition":
		a, ok1 := v[0].([]any)
		n, ok2 := asInt(v[1])
		if !ok1 || !ok2 || n < 1 {
			return nil, intrinsicFailure("States.ArrayPartition: needs an array and a positive integer")
		}
		out := []any{}
		for i := 0; i < len(a); i += int(n) {
			end := min(i+int(n), len(a))
			out = append(out, append([]any{}, a[i:end]...))
		}
		return out, nil
	case "States.ArrayContains":
		a, ok := v[0].([]any)
		if !ok {
			return nil, intrinsicFailure("States.ArrayContains: the first argument must be an array")
		}
		for _, e := range a {
			if jsonEqual(e, v[1]) {
				return true, nil
			}
		}
		return false, nil
	case "States.ArrayRange":
		a, ok1 := asInt(v[0])
		b, ok2 := asInt(v[1])
		st, ok3 := asInt(v[2])
		if !ok1 || !ok2 || !ok3 || st == 0 {
			return nil, intrinsicFailure("States.ArrayRange: needs integers and a non-zero step")
		}
		out := []any{}
		for i := a; (st > 0 && i <= b) || (st < 0 && i >= b); i += st {
			out = append(out, json.Number(strconv.FormatInt(i, 10)))
			if len(out) > 1000 {
				return nil, intrinsicFailure("States.ArrayRange: more than 1000 items")
			}
		}
		return out, nil
	case "States.ArrayGetItem":
		a, ok1 := v[0].([]any)
		i, ok2 := asInt(v[1])
		if !ok1 || !ok2 || i < 0 || int(i) >= len(a) {
			return nil, intrinsicFailure("States.ArrayGetItem: index out of range or bad arguments")
		}
		return a[i], nil
	case "States.ArrayLength":
		a, ok := v[0].([]any)
		if !ok {
			return nil, intrinsicFailure("States.ArrayLength: the argument must be an array")
		}
		return json.Number(strconv.Itoa(len(a))), nil
	case "States.ArrayUnique":
		a, ok := v[0].([]any)
		if !ok {
			return nil, intrinsicFailure("States.ArrayUnique: the argument must be an array")
		}
		out := []any{}
	next:
		for _, e := range a {
			for _, o := range out {
				if jsonEqual(e, o) {
					continue next
				}
			}
			out = append(out, e)
		}
		return out, nil
	case "States.Base64Encode":
		s, ok := v[0].(string)
		if !ok || len(s) > 10000 {
			return nil, intrinsicFailure("States.Base64Encode: needs a string of at most 10000 characters")
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	case "States.Base64Decode":
		s, ok := v[0].(string)
		if !ok || len(s) > 10000 {
			return nil, intrinsicFailure("States.Base64Decode: needs a string of at most 10000 characters")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, intrinsicFailure("States.Base64Decode: %v", err)
		}
		return string(b), nil
	case "States.Hash":
		s, ok1 := v[0].(string)
		alg, ok2 := v[1].(string)
		if !ok1 || !ok2 {
			return nil, intrinsicFailure("States.Hash: needs a string and an algorithm name")
		}
		var h hash.Hash
		switch alg {
		case "MD5":
			h = md5.New()
		case "SHA-1":
			h = sha1.New()
		case "SHA-256":
			h = sha256.New()
		case "SHA-384":
			h = sha512.New384()
		case "SHA-512":
			h = sha512.New()
		default:
			return nil, intrinsicFailure("States.Hash: unknown algorithm %q", alg)
		}
		h.Write([]byte(s))
		return hex.EncodeToString(h.Sum(nil)), nil
	case "States.JsonMerge":
		a, ok1 := v[0].(map[string]any)
		b, ok2 := v[1].(map[string]any)
		deep, ok3 := v[2].(bool)
		if !ok1 || !ok2 || !ok3 || deep {
			return nil, intrinsicFailure("States.JsonMerge: needs two objects and false (deep merge is not supported)")
		}
		out := deepCopy(a).(map[string]any)
		for k, e := range b {
			out[k] = deepCopy(e)
		}
		return out, nil
	case "States.MathRandom":
		lo, ok1 := asInt(v[0])
		hi, ok2 := asInt(v[1])
		if !ok1 || !ok2 || hi <= lo || hi-lo <= 0 {
			return nil, intrinsicFailure("States.MathRandom: needs integers start < end")
		}
		r := mrand.Int64N(hi-lo) + lo
		if len(v) == 3 {
			seed, ok := asInt(v[2])
			if !ok {
				return nil, intrinsicFailure("States.MathRandom: the seed must be an integer")
			}
			r = mrand.New(mrand.NewPCG(uint64(seed), 0)).Int64N(hi-lo) + lo
		}
		return json.Number(strconv.FormatInt(r, 10)), nil
	case "States.MathAdd":
		a, ok1 := v[0].(json.Number)
		b, ok2 := v[1].(json.Number)
		if !ok1 || !ok2 {
			return nil, intrinsicFailure("States.MathAdd: needs two numbers")
		}
		x, _ := new(big.Float).SetString(string(a))
		y, _ := new(big.Float).SetString(string(b))
		if x == nil || y == nil {
			return nil, intrinsicFailure("States.MathAdd: needs two numbers")
		}
		return json.Number(new(big.Float).Add(x, y).Text('f', -1)), nil
	case "States.StringSplit":
		s, ok1 := v[0].(string)
		d, ok2 := v[1].(string)
		if !ok1 || !ok2 {
			return nil, intrinsicFailure("States.StringSplit: needs two strings")
		}
		out := []any{}
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(d, r) }) {
			out = append(out, part)
		}
		return out, nil
	case "States.UUID":
		return newUUID(), nil
	}
	return nil, intrinsicFailure("unsupported function %s", c.name)
}

// formatTemplate implements States.Format on the template as written (escapes kept).
func formatTemplate(raw string, args []any) (any, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) {
			b.WriteByte(raw[i+1])
			i++
			continue
		}
		if c == '{' && i+1 < len(raw) && raw[i+1] == '}' {
			if n >= len(args) {
				return nil, intrinsicFailure("States.Format: more placeholders than arguments")
			}
			switch a := args[n].(type) {
			case string:
				b.WriteString(a)
			case nil:
				b.WriteString("null")
			case bool, json.Number:
				b.WriteString(encodeString(a))
			default:
				return nil, intrinsicFailure("States.Format: argument %d is a %s; only strings, numbers, booleans and null are allowed", n+1, jsonTypeName(a))
			}
			n++
			i++
			continue
		}
		b.WriteByte(c)
	}
	if n != len(args) {
		return nil, intrinsicFailure("States.Format: %d placeholders for %d arguments", n, len(args))
	}
	return b.String(), nil
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
