package agentcore

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// jsonKind returns the first significant byte of a JSON value ('{', '[', '"', 't', 'f', 'n', or a number's
// first character); 0 for empty input.
func jsonKind(r json.RawMessage) byte {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return 0
	}
	return r[0]
}

func isNull(r json.RawMessage) bool { return jsonKind(r) == 'n' }

// object decodes r as a JSON object whose members keep their bytes; it fails naming name otherwise.
func (c *checker) object(name string, r json.RawMessage) (map[string]json.RawMessage, bool) {
	if jsonKind(r) != '{' {
		c.fail(name, "must be an object")
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil {
		c.fail(name, "must be an object")
		return nil, false
	}
	return m, true
}

// list decodes r as a JSON array.
func (c *checker) list(name string, r json.RawMessage) ([]json.RawMessage, bool) {
	if jsonKind(r) != '[' {
		c.fail(name, "must be a list")
		return nil, false
	}
	var l []json.RawMessage
	if err := json.Unmarshal(r, &l); err != nil {
		c.fail(name, "must be a list")
		return nil, false
	}
	return l, true
}

// str decodes a string of minLen..maxLen characters (maxLen 0 = unbounded).
func (c *checker) str(name string, r json.RawMessage, minLen, maxLen int) (string, bool) {
	var s string
	if jsonKind(r) != '"' || json.Unmarshal(r, &s) != nil {
		c.fail(name, "must be a string")
		return "", false
	}
	n := utf8.RuneCountInString(s)
	if n < minLen || (maxLen > 0 && n > maxLen) {
		if maxLen > 0 {
			c.fail(name, "length must be between %d and %d characters", minLen, maxLen)
		} else {
			c.fail(name, "must be at least %d characters", minLen)
		}
		return "", false
	}
	return s, true
}

// pattern decodes a string that must match re; what describes the pattern in the message.
func (c *checker) pattern(name string, r json.RawMessage, minLen, maxLen int, re interface{ MatchString(string) bool }, what string) (string, bool) {
	s, ok := c.str(name, r, minLen, maxLen)
	if !ok {
		return "", false
	}
	if !re.MatchString(s) {
		c.fail(name, "must match %s", what)
		return "", false
	}
	return s, true
}

// enum decodes a string that must be one of values.
func (c *checker) enum(name string, r json.RawMessage, values ...string) (string, bool) {
	s, ok := c.str(name, r, 1, 0)
	if !ok {
		return "", false
	}
	if !slices.Contains(values, s) {
		c.fail(name, "must be one of %s", strings.Join(values, ", "))
		return "", false
	}
	return s, true
}

// integer decodes a whole number in [lo, hi] as an int32.
func (c *checker) integer(name string, r json.RawMessage, lo, hi int64) (*int32, bool) {
	var f float64
	if k := jsonKind(r); !(k == '-' || (k >= '0' && k <= '9')) || json.Unmarshal(r, &f) != nil || f != math.Trunc(f) {
		c.fail(name, "must be an integer")
		return nil, false
	}
	if f < float64(lo) || f > float64(hi) {
		c.fail(name, "must be between %d and %d", lo, hi)
		return nil, false
	}
	v := int32(f)
	return &v, true
}

// number decodes a number in [lo, hi].
func (c *checker) number(name string, r json.RawMessage, lo, hi float64) (*float64, bool) {
	var f float64
	if k := jsonKind(r); !(k == '-' || (k >= '0' && k <= '9')) || json.Unmarshal(r, &f) != nil {
		c.fail(name, "must be a number")
		return nil, false
	}
	if f < lo || f > hi {
		c.fail(name, "must be between %g and %g", lo, hi)
		return nil, false
	}
	return &f, true
}

// boolean decodes true or false.
func (c *checker) boolean(name string, r json.RawMessage) (bool, bool) {
	var b bool
	if k := jsonKind(r); (k != 't' && k != 'f') || json.Unmarshal(r, &b) != nil {
		c.fail(name, "must be a boolean")
		return false, false
	}
	return b, true
}

// stringMap decodes a map<string,string> of at most maxEntries entries whose keys match keyOK.
func (c *checker) stringMap(name string, r json.RawMessage, maxEntries int, keyOK func(string) bool, keyWhat string) (map[string]string, bool) {
	m, ok := c.object(name, r)
	if !ok {
		return nil, false
	}
	if maxEntries > 0 && len(m) > maxEntries {
		c.fail(name, "must have at most %d entries", maxEntries)
		return nil, false
	}
	out := make(map[string]string, len(m))
	good := true
	for _, k := range sortedKeys(m) {
		if keyOK != nil && !keyOK(k) {
			c.fail(name+"."+k, "key must be %s", keyWhat)
			good = false
			continue
		}
		v, ok := c.str(name+"."+k, m[k], 0, 0)
		if !ok {
			good = false
			continue
		}
		out[k] = v
	}
	return out, good
}

// union decodes a union object with exactly one member, which must be one of members; unsupported members are
// rejected with their own message (Baton cannot honour them).
func (c *checker) union(name string, r json.RawMessage, members []string, unsupported map[string]string) (string, json.RawMessage, bool) {
	m, ok := c.object(name, r)
	if !ok {
		return "", nil, false
	}
	if len(m) != 1 {
		c.fail(name, "must have exactly one of %s", strings.Join(members, ", "))
		return "", nil, false
	}
	for k, v := range m {
		if why, bad := unsupported[k]; bad {
			c.fail(name+"."+k, "%s", why)
			return "", nil, false
		}
		if !slices.Contains(members, k) {
			c.fail(name+"."+k, "is not a member of %s (one of %s)", lastSegment(name), strings.Join(members, ", "))
			return "", nil, false
		}
		return k, v, true
	}
	return "", nil, false
}

// unit requires an empty object `{}` (a unit union member).
func (c *checker) unit(name string, r json.RawMessage) bool {
	m, ok := c.object(name, r)
	if !ok {
		return false
	}
	if len(m) != 0 {
		c.fail(name, "must be an empty object")
		return false
	}
	return true
}

func lastSegment(name string) string {
	if i := strings.LastIndexAny(name, ".]"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// present returns the member when it is present and not null.
func present(m map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	v, ok := m[key]
	if !ok || isNull(v) {
		return nil, false
	}
	return v, true
}
