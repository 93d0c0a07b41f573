package jsonwire

import (
	"bytes"
	"encoding/json"
)

// Marshal returns the JSON encoding of v without HTML escaping and without a trailing newline. Values whose
// MarshalJSON uses Marshal stay unescaped all the way down; json.RawMessage values are written as they are
// (compacted).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
