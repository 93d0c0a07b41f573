// Package jsonwire encodes JSON the way Baton stores and sends it: like encoding/json, but without escaping
// '<', '>' and '&' as \u003c, \u003e and \u0026. Tool outputs are often HTML; escaping would grow them up to six
// times between admission and storage, past DynamoDB's item and transaction limits (DESIGN "Payload limits").
// Both forms are the same JSON value to every client.
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
