package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
)

type gateResult struct {
	Status  int
	Code    string
	Message string
	Body    string
}

func runGate(contentType string, body []byte, limit int64) gateResult {
	r := httptest.NewRequest("POST", "/v1/agents", bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	out, err := readJSON(r, limit)
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) {
			return gateResult{Status: 500, Message: err.Error()}
		}
		return gateResult{Status: e.Status, Code: e.Code, Message: e.Message}
	}
	return gateResult{Status: 200, Body: string(out)}
}

func TestJSONBodyGate(t *testing.T) {
	t.Parallel()
	ok := func(body string) gateResult { return gateResult{Status: 200, Body: body} }
	bad := func(msg string) gateResult {
		return gateResult{Status: 400, Code: "invalid_request_error", Message: msg}
	}
	cases := []struct {
		name string
		ct   string
		body string
		want gateResult
	}{
		{"object is accepted", "application/json", `{"a":1}`, ok(`{"a":1}`)},
		{"content type is case-insensitive with parameters", "Application/JSON; charset=utf-8", `{}`, ok(`{}`)},
		{"+json content type is accepted", "application/merge-patch+json", `{}`, ok(`{}`)},
		{"empty body becomes an empty object", "application/json", ``, ok(`{}`)},
		{"empty body without content type becomes an empty object", "", ``, ok(`{}`)},
		{"null becomes an empty object", "application/json", ` null `, ok(`{}`)},
		{"missing content type is rejected", "", `{}`, bad(messageContentType)},
		{"text content type is rejected", "text/plain", `{}`, bad(messageContentType)},
		{"content type is checked before size", "text/plain", strings.Repeat(" ", 2000), bad(messageContentType)},
		{"oversized body is 413", "application/json", `{"a":"` + strings.Repeat("x", 4100) + `"}`, gateResult{Status: 413, Code: "request_too_large", Message: "The request body exceeds the maximum size of 4096 bytes."}},
		{"invalid UTF-8 is rejected", "application/json", "{\"a\":\"\xff\"}", bad(messageInvalidUTF8)},
		{"trailing data is rejected", "application/json", `{} {}`, bad(messageMalformed)},
		{"trailing garbage is rejected", "application/json", `{"a":1}x`, bad(messageMalformed)},
		{"whitespace only is rejected", "application/json", "  \n", bad(messageMalformed)},
		{"BOM is rejected", "application/json", "\ufeff{}", bad(messageMalformed)},
		{"lone high surrogate escape is rejected", "application/json", `{"a":"\ud800"}`, bad(messageMalformed)},
		{"lone low surrogate escape is rejected", "application/json", `{"a":"\udc00x"}`, bad(messageMalformed)},
		{"surrogate pair is accepted", "application/json", `{"a":"\ud83d\ude00"}`, ok(`{"a":"\ud83d\ude00"}`)},
		{"escaped backslash before u is not an escape", "application/json", `{"a":"\\ud800"}`, ok(`{"a":"\\ud800"}`)},
		{"leading zero is rejected", "application/json", `{"a":01}`, bad(messageMalformed)},
		{"trailing comma is rejected", "application/json", `{"a":1,}`, bad(messageMalformed)},
		{"malformed JSON is reported before a duplicate key", "application/json", `{"a":1,"a":2,}`, bad(messageMalformed)},
		{"duplicate top-level key names it", "application/json", `{"model":"a","model":"b"}`, bad("Duplicate parameter: 'model'.")},
		{"duplicate nested key names its path", "application/json", `{"tools":[{"type":"function"},{"name":"x","name":"y"}]}`, bad("Duplicate parameter: 'tools[1].name'.")},
		{"escaped duplicate key is a duplicate", "application/json", `{"a":1,"\u0061":2}`, bad("Duplicate parameter: 'a'.")},
		{"same key in sibling objects is fine", "application/json", `{"x":{"a":1},"y":{"a":1}}`, ok(`{"x":{"a":1},"y":{"a":1}}`)},
		{"array root is rejected", "application/json", `[]`, bad(messageNotObject)},
		{"string root is rejected", "application/json", `"x"`, bad(messageNotObject)},
		{"deep nesting is rejected", "application/json", strings.Repeat("[", 600) + strings.Repeat("]", 600), bad(messageMalformed)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, runGate(tc.ct, []byte(tc.body), 4096)); diff != "" {
				t.Errorf("gate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// surrogateEscape matches a \u escape of a UTF-16 surrogate anywhere (also after an escaped backslash, so it only
// marks inputs where the reference check below is not exact).
var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// refDuplicate reports whether data (valid JSON) repeats a member of one object, using encoding/json's tokenizer.
func refDuplicate(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: true, keys: map[string]bool{}, key: true})
				continue
			case '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.object && top.key {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}

// FuzzJSONBodyGate checks the body gate against encoding/json: it never panics; whatever it accepts is valid
// JSON with an object root; and on inputs without surrogate escapes it accepts exactly the valid UTF-8 JSON
// documents with an object (or null) root and no repeated member.
func FuzzJSONBodyGate(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,{"c":2,"c":3}]}}`, `[1]`, `null`, `{"a":"\ud800"}`,
		`{"a":1} x`, "{\"a\":\"\xff\"}", `{"a":1e5,"b":-0.5,"c":true,"d":false,"e":null}`, `{"\u0061":1,"a":2}`, ` `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := checkJSONBody(data)
		if err == nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(out, &m) != nil {
				t.Fatalf("accepted %q, which is not a JSON object", data)
			}
		}
		if len(data) == 0 || surrogateEscape.Match(data) || bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) > maxJSONDepth {
			return
		}
		want := utf8.Valid(data) && json.Valid(data) && (bytes.TrimSpace(data)[0] == '{' || string(bytes.TrimSpace(data)) == "null") && !refDuplicate(data)
		if want != (err == nil) {
			t.Fatalf("checkJSONBody(%q) error = %v, want accepted = %v", data, err, want)
		}
	})
}
