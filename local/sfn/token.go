package sfn

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Task tokens (spec §2.13) are "v1." + base64url(JSON{"e":<execution ARN>,"s":<state>,"a":<attempt>,
// "n":<nonce>}), so any token can be classified: unparseable → InvalidToken; its execution unknown →
// TaskDoesNotExist; its execution known but the task closed → TaskTimedOut.
const tokenPrefix = "v1."

type tokenClaims struct {
	Execution string `json:"e"`
	State     string `json:"s"`
	Attempt   int64  `json:"a"`
	Nonce     string `json:"n"`
}

func mintToken(c tokenClaims) string {
	b, _ := json.Marshal(c)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func parseToken(tok string) (tokenClaims, bool) {
	var c tokenClaims
	rest, ok := strings.CutPrefix(tok, tokenPrefix)
	if !ok {
		return c, false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Execution == "" || c.Nonce == "" {
		return c, false
	}
	return c, true
}
