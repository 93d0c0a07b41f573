package admission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// RequestHash returns the SHA-256 hex digest of body's canonical JSON (object keys sorted, no insignificant
// whitespace, numbers as written), so an idempotent retry that only reorders members or whitespace matches the
// original request. A body that does not decode hashes as its raw bytes.
func RequestHash(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	canon := body
	if err := dec.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
