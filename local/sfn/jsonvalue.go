package sfn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
)

// JSON values inside the interpreter are the shapes encoding/json produces with UseNumber: nil, bool,
// json.Number, string, []any and map[string]any. Numbers keep their text; object key order is not kept
// (encoding sorts keys), a documented deviation from AWS.

// maxPayloadBytes is the Step Functions payload limit of spec §2.1 (262,144 bytes of UTF-8).
const maxPayloadBytes = 262144

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values built by decodeJSON and the interpreter reach here; they always encode.
		return []byte("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func encodeString(v any) string { return string(encodeJSON(v)) }

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

// jsonEqual compares two values as JSON (numbers by value).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		return numberCmp(x, y) == 0
	default:
		return a == b
	}
}

func numberCmp(a, b json.Number) int {
	x, okx := new(big.Float).SetString(string(a))
	y, oky := new(big.Float).SetString(string(b))
	if !okx || !oky {
		return bytes.Compare([]byte(a), []byte(b))
	}
	return x.Cmp(y)
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// asInt returns v as an integer when it is a JSON number without a fraction.
func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false
	}
	return i, true
}
