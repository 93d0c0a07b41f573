package admission

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxSchemaMessage bounds the compiler's explanation quoted in an error message.
const maxSchemaMessage = 400

// rootType returns the schema's explicit root `type` when it is a string (docs/agents-api.md §3.1: schemas
// with no root type or a non-string one are not checked here).
func rootType(schema json.RawMessage) (string, bool) {
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(schema, &head) != nil || kindOf(head.Type) != kindString || len(head.Type) == 0 {
		return "", false
	}
	return str(head.Type), true
}

// compileSchema compiles a JSON Schema (2020-12 unless it names another draft with $schema) and reports whether
// it is valid, with a one-line explanation when not. No URL is ever loaded: a $ref to anything outside the
// document and the built-in metaschemas fails to compile.
func compileSchema(schema json.RawMessage) (string, bool) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return "the schema is not valid JSON", false
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	const loc = "urn:baton:schema"
	if err := c.AddResource(loc, doc); err != nil {
		return oneLine(err.Error()), false
	}
	if _, err := c.Compile(loc); err != nil {
		return oneLine(err.Error()), false
	}
	return "", true
}

// oneLine flattens the compiler's multi-line explanation: it drops the first line (which names the metaschema)
// when more follow and joins the rest.
func oneLine(msg string) string {
	lines := strings.Split(msg, "\n")
	if len(lines) > 1 {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
	}
	out := strings.Join(lines, "; ")
	if len(out) > maxSchemaMessage {
		out = strings.ToValidUTF8(out[:maxSchemaMessage], "") + "…"
	}
	return out
}
