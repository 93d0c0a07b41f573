package admission

import "encoding/json"

// mcpTool validates an `mcp` declaration's pinned shape (docs/agents-api.md §W3.2,
// §3.5): `server_label` and `transport` are required; transport is `{type:"http", server_url, headers}` or
// `{type:"stdio", command, cwd, args, env_vars}`; a Session's inline declaration may also carry the secrets
// `transport.authorization` (http) and `transport.env` (stdio). Saved form: connection_origin omitted or null →
// "service", headers → {} when omitted, allowed_tools/credential_id null when omitted, request_metadata {} when omitted or null (the SDK's
// PersistedAgentToolMcp.request_metadata is a required map), required
// false. What executes (http only, URL rules, origins, labels) is Session admission's decision.
func mcpTool(path string, o object, inline bool) (json.RawMessage, error) {
	err := checkObject(path, o, []member{
		{name: "type"},
		{name: "server_label", required: true, check: checkString(false)},
		{name: "transport", required: true, check: func(p string, raw json.RawMessage) error { return checkTransport(p, raw, inline) }},
		{name: "connection_origin", check: checkEnum(true, "service", "environment")},
		{name: "allowed_tools", check: checkStringArray(true)},
		{name: "required", check: checkBool(true)},
		{name: "credential_id", check: checkString(true)},
		{name: "request_metadata", check: checkStringMap(true)},
	})
	if err != nil {
		return nil, err
	}
	tr, _ := decodeObject(join(path, "transport"), o.values["transport"])
	transport := map[string]any{"type": str(tr.values["type"])}
	for _, k := range tr.keys {
		if k != "type" {
			transport[k] = compact(tr.values[k])
		}
	}
	if transport["type"] == "http" {
		if h, ok := tr.values["headers"]; !ok || isNull(h) {
			transport["headers"] = map[string]string{}
		}
	}
	return mustMarshal(map[string]any{
		"type":              ToolMCP,
		"server_label":      str(o.values["server_label"]),
		"transport":         transport,
		"connection_origin": stringOr(o.values["connection_origin"], "service"),
		"allowed_tools":     rawOrNull(o.values["allowed_tools"]),
		"required":          boolOr(o.values["required"], false),
		"credential_id":     rawOrNull(o.values["credential_id"]),
		"request_metadata":  orEmptyObject(o.values["request_metadata"]),
	}), nil
}

func checkTransport(path string, raw json.RawMessage, inline bool) error {
	o, err := decodeObject(path, raw)
	if err != nil {
		return err
	}
	t, ok := o.values["type"]
	if !ok {
		return missing(join(path, "type"))
	}
	if err := checkEnum(false, "http", "stdio")(join(path, "type"), t); err != nil {
		return err
	}
	if str(t) == "http" {
		members := []member{
			{name: "type"},
			{name: "server_url", required: true, check: checkString(false)},
			{name: "headers", check: checkStringMap(true)},
		}
		if inline {
			members = append(members, member{name: "authorization", check: checkString(true)})
		}
		return checkObject(path, o, members)
	}
	members := []member{
		{name: "type"},
		{name: "command", required: true, check: checkString(false)},
		{name: "cwd", required: true, check: checkString(false)},
		{name: "args", check: checkStringArray(true)},
		{name: "env_vars", check: checkStringArray(true)},
	}
	if inline {
		members = append(members, member{name: "env", check: checkStringMap(true)})
	}
	return checkObject(path, o, members)
}

// checkStringMap accepts an object whose every value is a string.
func checkStringMap(nullable bool) func(string, json.RawMessage) error {
	return func(path string, raw json.RawMessage) error {
		if nullable && isNull(raw) {
			return nil
		}
		o, err := decodeObject(path, raw)
		if err != nil {
			return err
		}
		for _, k := range o.keys {
			if kindOf(o.values[k]) != kindString {
				return invalidType(join(path, k), "a string", o.values[k])
			}
		}
		return nil
	}
}

// orEmptyObject returns v, or {} when v is absent or null.
func orEmptyObject(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return json.RawMessage("{}")
	}
	return compact(v)
}
