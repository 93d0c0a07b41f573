package harness

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// StructuredOutputError is a final answer that does not satisfy the Session's frozen text.format json_schema: it
// is not one JSON value, or the value violates the schema (docs/agents-api.md §3.6: no repair, no coercion,
// no second loop). The runtime fails the activity task with the ASL error name Baton.StructuredOutputInvalid and
// Cause as the cause; Settle fails the turn (docs/structured-output.md). Cause is safe to show: it names the
// violated keyword locations, not the answer text.
type StructuredOutputError struct {
	Cause string
	Err   error
}

func (e *StructuredOutputError) Error() string { return "structured output invalid: " + e.Cause }

// Unwrap returns the underlying error.
func (e *StructuredOutputError) Unwrap() error { return e.Err }

// outputValidator validates final answers against one compiled schema.
type outputValidator struct {
	schema *jsonschema.Schema
}

// noLoader refuses every external reference: a frozen schema is self-contained, and a schema must never make the
// harness read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not loaded", url)
}

// compileOutputSchema compiles a text.format schema once per activity task (JSON Schema 2020-12 unless the schema
// names another draft with $schema). Errors: the schema does not parse or compile (a *ConfigError).
func compileOutputSchema(raw []byte) (*outputValidator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &ConfigError{Cause: "text.format.schema is not valid JSON", Err: err}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "urn:baton:text-format-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, &ConfigError{Cause: "text.format.schema: " + err.Error(), Err: err}
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, &ConfigError{Cause: "text.format.schema does not compile: " + err.Error(), Err: err}
	}
	return &outputValidator{schema: sch}, nil
}

// validate checks a final answer: exactly one JSON value (surrounding whitespace allowed) that the schema
// accepts. Errors: *StructuredOutputError.
func (v *outputValidator) validate(text string) error {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return &StructuredOutputError{Cause: "the final answer is not a JSON value", Err: err}
	}
	if err := v.schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &StructuredOutputError{Cause: "the final answer does not match text.format.schema: " + violations(ve), Err: err}
		}
		return &StructuredOutputError{Cause: "the final answer does not match text.format.schema", Err: err}
	}
	return nil
}

// violations lists the failing keyword locations of a validation error (at most 5), e.g.
// "/required at instance /; /properties/age/type at instance /age".
func violations(ve *jsonschema.ValidationError) string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) >= 5 {
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("%s at instance /%s", keywordPath(e), strings.Join(e.InstanceLocation, "/")))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(out, "; ")
}

// keywordPath is the schema location of the failing keyword: the fragment of its schema's URL plus the keyword,
// e.g. "/properties/age/type".
func keywordPath(e *jsonschema.ValidationError) string {
	base := ""
	if i := strings.IndexByte(e.SchemaURL, '#'); i >= 0 {
		base = strings.TrimSuffix(e.SchemaURL[i+1:], "/")
	}
	if e.ErrorKind == nil {
		return base + "/"
	}
	return base + "/" + strings.Join(e.ErrorKind.KeywordPath(), "/")
}
