package admission

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/baton-run/baton/shared/engine"
)

// maxEcho is the longest caller value a message repeats (docs/agents-api.md §3: values are echoed only if
// at most 256 bytes of printable UTF-8).
const maxEcho = 256

func fail(code, param, format string, args ...any) *engine.Error {
	return &engine.Error{Status: 400, Code: code, Message: fmt.Sprintf(format, args...), Param: param}
}

// missing is `Missing required parameter: '<path>'.`
func missing(path string) *engine.Error {
	return fail(engine.CodeInvalidRequestError, path, "Missing required parameter: '%s'.", path)
}

// unknown is `Unknown parameter: '<path>'.`
func unknown(path string) *engine.Error {
	return fail(engine.CodeInvalidRequestError, path, "Unknown parameter: '%s'.", path)
}

// invalidType is `Invalid type for '<path>': expected <want>, but got <kind> instead.`
func invalidType(path, want string, raw []byte) *engine.Error {
	return fail(engine.CodeInvalidRequestError, path, "Invalid type for '%s': expected %s, but got %s instead.", path, want, kindOf(raw).article())
}

// invalidValue is `Invalid value: '<value>'. Supported values are: 'a', 'b', and 'c'.` ('a' and 'b' for two).
func invalidValue(path, value string, supported []string) *engine.Error {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = "'" + s + "'"
	}
	list := strings.Join(quoted, ", ")
	switch n := len(quoted); {
	case n == 2: // OpenAI's wire form: "'a' and 'b'" (no serial comma for two)
		list = quoted[0] + " and " + quoted[1]
	case n > 2:
		list = strings.Join(quoted[:n-1], ", ") + ", and " + quoted[n-1]
	}
	if echoable(value) {
		return fail(engine.CodeInvalidRequestError, path, "Invalid value: '%s'. Supported values are: %s.", value, list)
	}
	return fail(engine.CodeInvalidRequestError, path, "Invalid value for '%s'. Supported values are: %s.", path, list)
}

// invalid is a Stage A error with an official equivalent and a free-form message.
func invalid(path, format string, args ...any) *engine.Error {
	return fail(engine.CodeInvalidRequestError, path, format, args...)
}

// invalidLocal is a Baton-local malformed-input error (code invalid_request, docs/agents-api.md §6).
func invalidLocal(path, format string, args ...any) *engine.Error {
	return fail(engine.CodeInvalidRequest, path, format, args...)
}

// unsupported is 400 unsupported_or_invalid_configuration with a null param.
func unsupported(format string, args ...any) *engine.Error {
	return fail(engine.CodeUnsupportedConfig, "", format, args...)
}

func echoable(s string) bool {
	if len(s) > maxEcho || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
