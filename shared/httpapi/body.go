package httpapi

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/baton-run/baton/shared/engine"
)

// maxJSONDepth bounds nesting in a request body; deeper documents are malformed.
const maxJSONDepth = 512

// Body gate messages (docs/agents-api.md §1.1).
const (
	messageContentType = "The request body must be JSON: set the Content-Type header to application/json."
	messageInvalidUTF8 = "The request body is not valid UTF-8."
	messageMalformed   = "We could not parse the JSON body of your request. The body must be exactly one valid JSON value."
	messageNotObject   = "The request body must be a JSON object."
)

// readJSON applies the JSON body gate to r in the order of docs/agents-api.md §1.1 and returns the body,
// which is then one JSON object with no repeated member: Content-Type (application/json or application/*+json, any
// case; a missing one is accepted only with an empty body), size (limit bytes → 413 request_too_large), UTF-8,
// JSON syntax (trailing data, BOM, whitespace only, lone surrogate escapes), duplicate members at any depth, a
// non-object root. An empty body and `null` both become `{}`.
func readJSON(r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, badRequest(engine.CodeInvalidRequestError, "The request body could not be read.")
	}
	ct := r.Header.Get("Content-Type")
	if !(ct == "" && len(body) == 0) && !isJSONContentType(ct) {
		return nil, badRequest(engine.CodeInvalidRequestError, messageContentType)
	}
	if int64(len(body)) > limit {
		return nil, &engine.Error{Status: http.StatusRequestEntityTooLarge, Code: codeRequestTooLarge,
			Message: fmt.Sprintf("The request body exceeds the maximum size of %d bytes.", limit)}
	}
	return checkJSONBody(body)
}

// checkJSONBody is the byte-level part of the body gate (everything but Content-Type and size).
func checkJSONBody(body []byte) ([]byte, error) {
	if len(body) == 0 {
		return []byte("{}"), nil
	}
	if !utf8.Valid(body) {
		return nil, badRequest(engine.CodeInvalidRequestError, messageInvalidUTF8)
	}
	s := &scanner{data: body}
	root, err := s.document()
	if err != nil {
		return nil, badRequest(engine.CodeInvalidRequestError, messageMalformed)
	}
	if s.hasDup {
		return nil, badRequest(engine.CodeInvalidRequestError, "Duplicate parameter: '"+s.dup+"'.")
	}
	switch root {
	case 'n':
		return []byte("{}"), nil
	case '{':
		return body, nil
	}
	return nil, badRequest(engine.CodeInvalidRequestError, messageNotObject)
}

func badRequest(code, message string) *engine.Error {
	return &engine.Error{Status: http.StatusBadRequest, Code: code, Message: message}
}

func isJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	mt = strings.ToLower(mt)
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// scanner is a strict RFC 8259 recognizer that also records the path of the first repeated object member
// (`a.b[2].c`) and rejects escapes that encode a lone UTF-16 surrogate, which encoding/json would silently replace.
type scanner struct {
	data  []byte
	pos   int
	depth int
	// dup is the path of the first repeated member; hasDup tells it apart from a repeated "" at the root.
	dup    string
	hasDup bool
}

type syntaxError struct{ pos int }

func (e syntaxError) Error() string { return "malformed JSON at byte " + strconv.Itoa(e.pos) }

// document scans exactly one value surrounded by optional whitespace and returns its first byte.
func (s *scanner) document() (byte, error) {
	s.space()
	if s.pos >= len(s.data) {
		return 0, s.fail()
	}
	first := s.data[s.pos]
	if err := s.value(""); err != nil {
		return 0, err
	}
	s.space()
	if s.pos != len(s.data) {
		return 0, s.fail()
	}
	return first, nil
}

func (s *scanner) fail() error { return syntaxError{s.pos} }

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value(path string) error {
	if s.pos >= len(s.data) {
		return s.fail()
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(path)
	case c == '[':
		return s.array(path)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return s.fail()
}

func (s *scanner) enter() error {
	if s.depth++; s.depth > maxJSONDepth {
		return s.fail()
	}
	return nil
}

func (s *scanner) object(path string) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	seen := map[string]bool{}
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.fail()
		}
		key, err := s.str(true)
		if err != nil {
			return err
		}
		p := key
		if path != "" {
			p = path + "." + key
		}
		if seen[key] && !s.hasDup {
			s.dup, s.hasDup = p, true
		}
		seen[key] = true
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.fail()
		}
		s.pos++
		s.space()
		if err := s.value(p); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.data) {
			return s.fail()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail()
		}
	}
}

func (s *scanner) array(path string) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // [
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		s.space()
		if err := s.value(path + "[" + strconv.Itoa(i) + "]"); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.data) {
			return s.fail()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail()
		}
	}
}

// str scans a string; with decode it returns the decoded value (object keys are compared decoded, so "a" and
// "\u0061" are the same member).
func (s *scanner) str(decode bool) (string, error) {
	s.pos++ // opening quote
	var b strings.Builder
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			if decode {
				b.Write(s.data[start:s.pos])
			}
			s.pos++
			return b.String(), nil
		case c < 0x20:
			return "", s.fail()
		case c == '\\':
			if decode {
				b.Write(s.data[start:s.pos])
			}
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if decode {
				b.WriteRune(r)
			}
			start = s.pos
		default:
			s.pos++
		}
	}
	return "", s.fail()
}

// escape scans one escape sequence at s.pos (the backslash) and returns the rune it encodes. A \u escape of a high
// surrogate must be followed by a \u escape of a low surrogate; any other surrogate is an error.
func (s *scanner) escape() (rune, error) {
	if s.pos+1 >= len(s.data) {
		return 0, s.fail()
	}
	c := s.data[s.pos+1]
	s.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r1, ok := s.hex4()
		if !ok {
			return 0, s.fail()
		}
		if !utf16.IsSurrogate(r1) {
			return r1, nil
		}
		if r1 >= 0xDC00 || s.pos+1 >= len(s.data) || s.data[s.pos] != '\\' || s.data[s.pos+1] != 'u' {
			return 0, s.fail()
		}
		s.pos += 2
		r2, ok := s.hex4()
		if !ok {
			return 0, s.fail()
		}
		r := utf16.DecodeRune(r1, r2)
		if r == utf8.RuneError {
			return 0, s.fail()
		}
		return r, nil
	}
	return 0, s.fail()
}

func (s *scanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.pos : s.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	s.pos += 4
	return r, true
}

func (s *scanner) literal(word string) error {
	if !strings.HasPrefix(string(s.data[s.pos:min(len(s.data), s.pos+len(word))]), word) {
		return s.fail()
	}
	s.pos += len(word)
	return nil
}

// number scans `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`.
func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(s.data) {
		return s.fail()
	}
	switch c := s.data[s.pos]; {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return s.fail()
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail()
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail()
		}
	}
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}
