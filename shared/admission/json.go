package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// kind is the JSON type of a value as wire messages name it.
type kind string

const (
	kindNull    kind = "null"
	kindBool    kind = "boolean"
	kindInteger kind = "integer"
	kindNumber  kind = "decimal"
	kindString  kind = "string"
	kindArray   kind = "array"
	kindObject  kind = "object"
)

// article renders the kind for `expected …, but got <kind> instead.`
func (k kind) article() string {
	switch k {
	case kindNull:
		return "null"
	case kindInteger, kindArray, kindObject:
		return "an " + string(k)
	default:
		return "a " + string(k)
	}
}

func kindOf(raw []byte) kind {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return kindNull
	}
	switch raw[0] {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	if bytes.ContainsAny(raw, ".eE") {
		return kindNumber
	}
	return kindInteger
}

func isNull(raw []byte) bool { return kindOf(raw) == kindNull }

// object is a decoded JSON object that keeps its members' document order and original bytes.
type object struct {
	keys   []string
	values map[string]json.RawMessage
}

func (o object) has(k string) bool { _, ok := o.values[k]; return ok }

// decodeObject decodes raw, which must be a JSON object. A repeated member is a `Duplicate parameter` error (the
// HTTP body gate rejects those first; this keeps the functions safe on their own).
func decodeObject(path string, raw []byte) (object, error) {
	if kindOf(raw) != kindObject {
		return object{}, invalidType(orRoot(path), "an object", raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	o := object{values: map[string]json.RawMessage{}}
	if _, err := dec.Token(); err != nil {
		return object{}, invalid(orRoot(path), "Invalid JSON object.")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, invalid(orRoot(path), "Invalid JSON object.")
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return object{}, invalid(orRoot(path), "Invalid JSON object.")
		}
		if _, dup := o.values[k]; dup {
			return object{}, invalid("", "Duplicate parameter: '%s'.", join(path, k))
		}
		o.keys = append(o.keys, k)
		o.values[k] = v
	}
	return o, nil
}

func orRoot(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

// decodeArray splits a JSON array into its elements.
func decodeArray(path string, raw []byte) ([]json.RawMessage, error) {
	if kindOf(raw) != kindArray {
		return nil, invalidType(path, "an array", raw)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, invalid(path, "Invalid JSON array.")
	}
	return out, nil
}

// member describes one allowed member of an object: check validates its value (nil = any value).
type member struct {
	name     string
	required bool
	check    func(path string, raw json.RawMessage) error
}

// checkObject applies docs/agents-api.md §3's order inside one object: unknown members (document order),
// member values (document order), then missing required members (declaration order).
func checkObject(path string, o object, members []member) error {
	byName := map[string]member{}
	for _, m := range members {
		byName[m.name] = m
	}
	for _, k := range o.keys {
		if _, ok := byName[k]; !ok {
			return unknown(join(path, k))
		}
	}
	for _, k := range o.keys {
		if m := byName[k]; m.check != nil {
			if err := m.check(join(path, k), o.values[k]); err != nil {
				return err
			}
		}
	}
	for _, m := range members {
		if m.required && !o.has(m.name) {
			return missing(join(path, m.name))
		}
	}
	return nil
}

// Value checks. The "nullable" variants accept JSON null.

func checkString(nullable bool) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if kindOf(raw) == kindString || nullable && isNull(raw) {
			return nil
		}
		return invalidType(path, "a string", raw)
	}
}

func checkBool(nullable bool) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if kindOf(raw) == kindBool || nullable && isNull(raw) {
			return nil
		}
		return invalidType(path, "a boolean", raw)
	}
}

func checkInteger(nullable bool, min int64) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if nullable && isNull(raw) {
			return nil
		}
		var n int64
		if kindOf(raw) != kindInteger || json.Unmarshal(raw, &n) != nil {
			return invalidType(path, "an integer", raw)
		}
		if n < min {
			return invalid(path, "Invalid '%s': integer below minimum value. Expected a value >= %d, but got %d instead.", path, min, n)
		}
		return nil
	}
}

func checkEnum(nullable bool, values ...string) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if nullable && isNull(raw) {
			return nil
		}
		if kindOf(raw) != kindString {
			return invalidType(path, "a string", raw)
		}
		s := str(raw)
		if !slices.Contains(values, s) {
			return invalidValue(path, s, values)
		}
		return nil
	}
}

func checkStringArray(nullable bool) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if nullable && isNull(raw) {
			return nil
		}
		elems, err := decodeArray(path, raw)
		if err != nil {
			return err
		}
		for i, e := range elems {
			if kindOf(e) != kindString {
				return invalidType(index(path, i), "a string", e)
			}
		}
		return nil
	}
}

// str decodes a JSON string (callers have checked the kind); "" for anything else.
func str(raw []byte) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func boolOr(raw []byte, d bool) bool {
	var b bool
	if json.Unmarshal(raw, &b) != nil || isNull(raw) {
		return d
	}
	return b
}

// compact returns raw without insignificant whitespace (number literals and strings stay byte-exact).
func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("admission: marshal %T: %v", v, err))
	}
	return b
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }
