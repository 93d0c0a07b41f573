package admission

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// MaxIdempotencyKeyBytes bounds an Idempotency-Key header (docs/agents-api.md §1.3).
const MaxIdempotencyKeyBytes = 128

// SessionCreate is a validated POST /v1/agents/sessions request: the engine command (without IdempotencyKey and
// RequestHash, which come from the header and the raw body) and whether the caller asked for an SSE response.
type SessionCreate struct {
	Session engine.NewSession
	Stream  bool
}

// ParseSessionCreate validates a Session creation body (docs/agents-api.md §W3.4; docs/decisions.md §3):
// `environment` is required and only {type:"none"} is served (openai_hosted and self_hosted → 400
// unsupported_or_invalid_configuration); `agent_id` and/or an inline `agent` (whose members replace the saved
// Agent's whole; one of them is required, with a null param: "Missing required parameter: 'agent_id' or 'agent'.";
// without agent_id, agent.model is required); `input` a string (one input_text part) or an array of
// user messages, optional (an idle Session); `metadata`; `vault_ids`; `stream`. stream_options is accepted and
// ignored; other pinned members must be null (or their documented no-op value).
func ParseSessionCreate(body []byte) (SessionCreate, error) {
	o, err := decodeObject("", body)
	if err != nil {
		return SessionCreate{}, err
	}
	var out SessionCreate
	var inline configMembers
	err = checkObject("", o, []member{
		{name: "environment", required: true, check: func(p string, v json.RawMessage) error {
			env, err := parseEnvironment(p, v)
			out.Session.Environment = env
			return err
		}},
		{name: "agent_id", check: checkString(true)},
		{name: "agent", check: func(p string, v json.RawMessage) error {
			if isNull(v) {
				return nil
			}
			cm, err := parseAgentMembers(p, v, inlineAgent, false)
			inline = cm
			return err
		}},
		{name: "input", check: func(p string, v json.RawMessage) error {
			in, err := parseSessionInput(p, v)
			out.Session.Input = in
			return err
		}},
		{name: "metadata", check: func(p string, v json.RawMessage) error {
			m, err := parseMetadata(p, v)
			out.Session.Metadata = m
			return err
		}},
		{name: "vault_ids", check: checkStringArray(true)},
		{name: "stream", check: checkBool(true)},
		{name: "stream_options", check: func(p string, v json.RawMessage) error {
			if k := kindOf(v); k != kindObject && k != kindNull {
				return invalidType(p, "an object", v)
			}
			return nil
		}},
		{name: "spend_control", check: nullOnly},
		{name: "prompt_cache_options", check: nullOnly},
		{name: "review", check: func(p string, v json.RawMessage) error {
			if err := checkEnum(true, "none", "auto_review")(p, v); err != nil {
				return err
			}
			if str(v) == "auto_review" {
				return unsupported("'%s' is not supported by this service yet.", p)
			}
			return nil
		}},
	})
	if err != nil {
		return SessionCreate{}, err
	}
	out.Session.AgentID = stringOr(o.values["agent_id"], "")
	if inline.values != nil {
		out.Session.Inline = engine.RawObject(inline.values)
	}
	if out.Session.AgentID == "" {
		if out.Session.Inline == nil {
			return SessionCreate{}, invalid("", "Missing required parameter: 'agent_id' or 'agent'.")
		}
		if _, ok := out.Session.Inline["model"]; !ok {
			return SessionCreate{}, missing("agent.model")
		}
	}
	if v, ok := o.values["vault_ids"]; ok && !isNull(v) {
		_ = json.Unmarshal(v, &out.Session.VaultIDs)
	}
	out.Stream = boolOr(o.values["stream"], false)
	return out, nil
}

func nullOnly(path string, raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	return unsupported("'%s' is not supported by this service yet.", path)
}

// parseEnvironment validates `environment` and returns its saved form. Only `none` is served (docs/decisions.md §3).
func parseEnvironment(path string, raw json.RawMessage) (json.RawMessage, error) {
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	t, ok := o.values["type"]
	if !ok {
		return nil, missing(join(path, "type"))
	}
	if err := checkEnum(false, "none", "openai_hosted", "self_hosted")(join(path, "type"), t); err != nil {
		return nil, err
	}
	if str(t) != "none" {
		return nil, unsupported("Environment type '%s' is not supported by this service; use {\"type\":\"none\"}.", str(t))
	}
	if err := checkObject(path, o, []member{{name: "type"}}); err != nil {
		return nil, err
	}
	return json.RawMessage(`{"type":"none"}`), nil
}

// parseSessionInput: a string is one user message with one input_text part; an array holds user messages; null
// or [] means no input.
func parseSessionInput(path string, raw json.RawMessage) ([][]session.ContentPart, error) {
	switch kindOf(raw) {
	case kindNull:
		return nil, nil
	case kindString:
		text := str(raw)
		if text == "" {
			return nil, invalidLocal(path, "A message needs an image or at least one nonempty text part.")
		}
		return [][]session.ContentPart{{{Type: "input_text", Text: text}}}, nil
	case kindArray:
		return parseMessages(path, raw)
	}
	return nil, invalidType(path, "a string or an array", raw)
}

// parseMessages validates an array of input messages `{role:"user", type?:"message", content:[…]}`
// (docs/agents-api.md §2.5) and returns each message's content parts.
func parseMessages(path string, raw json.RawMessage) ([][]session.ContentPart, error) {
	elems, err := decodeArray(path, raw)
	if err != nil {
		return nil, err
	}
	var out [][]session.ContentPart
	for i, e := range elems {
		p := index(path, i)
		o, err := decodeObject(p, e)
		if err != nil {
			return nil, err
		}
		var parts []session.ContentPart
		err = checkObject(p, o, []member{
			{name: "role", required: true, check: checkEnum(false, "user")},
			{name: "type", check: checkEnum(false, "message")},
			{name: "content", required: true, check: func(cp string, v json.RawMessage) error {
				parts, err = parseContent(cp, v, true)
				return err
			}},
		})
		if err != nil {
			return nil, err
		}
		if !hasContent(parts) {
			return nil, invalidLocal(join(p, "content"), "A message needs an image or at least one nonempty text part.")
		}
		out = append(out, parts)
	}
	return out, nil
}

func hasContent(parts []session.ContentPart) bool {
	for _, p := range parts {
		if p.Type == "input_image" || p.Text != "" {
			return true
		}
	}
	return false
}

// parseContent validates an array of input content parts: `{type:"input_text", text}` or
// `{type:"input_image", image_url}` where image_url is an inline PNG or JPEG data URL. nonEmpty requires at least
// one part.
func parseContent(path string, raw json.RawMessage, nonEmpty bool) ([]session.ContentPart, error) {
	elems, err := decodeArray(path, raw)
	if err != nil {
		return nil, err
	}
	if nonEmpty && len(elems) == 0 {
		return nil, invalid(path, "Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", path)
	}
	parts := make([]session.ContentPart, 0, len(elems))
	for i, e := range elems {
		p := index(path, i)
		o, err := decodeObject(p, e)
		if err != nil {
			return nil, err
		}
		t, ok := o.values["type"]
		if !ok {
			return nil, missing(join(p, "type"))
		}
		if err := checkEnum(false, "input_text", "input_image")(join(p, "type"), t); err != nil {
			return nil, err
		}
		if str(t) == "input_text" {
			if err := checkObject(p, o, []member{{name: "type"}, {name: "text", required: true, check: checkString(false)}}); err != nil {
				return nil, err
			}
			parts = append(parts, session.ContentPart{Type: "input_text", Text: str(o.values["text"])})
			continue
		}
		if err := checkObject(p, o, []member{{name: "type"}, {name: "image_url", required: true, check: checkImageURL}}); err != nil {
			return nil, err
		}
		parts = append(parts, session.ContentPart{Type: "input_image", ImageURL: str(o.values["image_url"])})
	}
	return parts, nil
}

// checkImageURL accepts only inline `data:image/png;base64,…` and `data:image/jpeg;base64,…` URLs with canonical
// base64 whose bytes are of that type (docs/agents-api.md §2.5). Remote URLs are a harness restriction
// (400 unsupported_or_invalid_configuration); anything else is malformed.
func checkImageURL(path string, raw json.RawMessage) error {
	if err := checkString(false)(path, raw); err != nil {
		return err
	}
	u := str(raw)
	lower := strings.ToLower(u)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return unsupported("Remote image URLs are not supported; send an inline data:image/png or data:image/jpeg base64 URL.")
	}
	magic := map[string][]byte{
		"data:image/png;base64,":  []byte("\x89PNG\r\n\x1a\n"),
		"data:image/jpeg;base64,": {0xFF, 0xD8, 0xFF},
	}
	for prefix, sig := range magic {
		if !strings.HasPrefix(u, prefix) {
			continue
		}
		b, err := base64.StdEncoding.Strict().DecodeString(u[len(prefix):])
		if err == nil && bytes.HasPrefix(b, sig) {
			return nil
		}
	}
	return invalidLocal(path, "Invalid '%s': expected an inline data:image/png or data:image/jpeg base64 URL.", path)
}

// ParseSessionUpdate validates POST /v1/agents/sessions/{session_id}: only `metadata` is served and it is required
// (null or {} clears it). The other pinned members (agent, prompt_cache_options, spend_control, review) are 400
// unsupported_or_invalid_configuration.
func ParseSessionUpdate(body []byte) (map[string]string, error) {
	o, err := decodeObject("", body)
	if err != nil {
		return nil, err
	}
	var m map[string]string
	notServed := func(p string, _ json.RawMessage) error {
		return unsupported("Session update supports only metadata; '%s' cannot be changed.", p)
	}
	err = checkObject("", o, []member{
		{name: "metadata", check: func(p string, v json.RawMessage) error {
			m, err = parseMetadata(p, v)
			return err
		}},
		{name: "agent", check: notServed},
		{name: "prompt_cache_options", check: notServed},
		{name: "spend_control", check: notServed},
		{name: "review", check: notServed},
	})
	if err != nil {
		return nil, err
	}
	if !o.has("metadata") {
		return nil, invalid("", "At least one update field is required.")
	}
	return m, nil
}

// CheckIdempotencyKey validates an Idempotency-Key header value: 1–128 bytes, not only whitespace.
func CheckIdempotencyKey(key string) error {
	if len(key) == 0 || len(key) > MaxIdempotencyKeyBytes || strings.TrimSpace(key) == "" {
		return invalidLocal("", "The Idempotency-Key header must be 1 to %d bytes and not only whitespace.", MaxIdempotencyKeyBytes)
	}
	return nil
}
