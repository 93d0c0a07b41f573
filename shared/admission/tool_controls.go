package admission

import "encoding/json"

// webSearchTool validates a `web_search` declaration (docs/agents-api.md §3.3). Saved form: every pinned
// mode is kept (omitted or null → "live"); context_size omitted or null → "medium"; allowed_domains omitted → null
// ([] stays []); location omitted → null, a supplied location (even {}) has all four keys, null where omitted.
func webSearchTool(path string, o object, _ bool) (json.RawMessage, error) {
	err := checkObject(path, o, []member{
		{name: "type"},
		{name: "mode", check: checkEnum(true, "disabled", "cached", "live")},
		{name: "context_size", check: checkEnum(true, "low", "medium", "high")},
		{name: "allowed_domains", check: checkStringArray(true)},
		{name: "location", check: checkLocation},
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"type":            ToolWebSearch,
		"mode":            stringOr(o.values["mode"], "live"),
		"context_size":    stringOr(o.values["context_size"], "medium"),
		"allowed_domains": rawOrNull(o.values["allowed_domains"]),
		"location":        nil,
	}
	if raw, ok := o.values["location"]; ok && !isNull(raw) {
		loc, _ := decodeObject(join(path, "location"), raw)
		m := map[string]any{}
		for _, k := range []string{"city", "country", "region", "timezone"} {
			m[k] = rawOrNull(loc.values[k])
		}
		out["location"] = m
	}
	return mustMarshal(out), nil
}

func checkLocation(path string, raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	o, err := decodeObject(path, raw)
	if err != nil {
		return err
	}
	return checkObject(path, o, []member{
		{name: "city", check: checkString(true)},
		{name: "country", check: checkString(true)},
		{name: "region", check: checkString(true)},
		{name: "timezone", check: checkString(true)},
	})
}

// programmaticToolCallingTool validates `{type:"programmatic_tool_calling", enabled}` (docs/agents-api.md
// §3.4); omitted or null `enabled` is saved as true.
func programmaticToolCallingTool(path string, o object, _ bool) (json.RawMessage, error) {
	if err := checkObject(path, o, []member{{name: "type"}, {name: "enabled", check: checkBool(true)}}); err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{"type": ToolProgrammaticToolCalling, "enabled": boolOr(o.values["enabled"], true)}), nil
}

// computerUseTool validates `{type:"computer_use", include_screenshots}`; omitted or null → false.
func computerUseTool(path string, o object, _ bool) (json.RawMessage, error) {
	if err := checkObject(path, o, []member{{name: "type"}, {name: "include_screenshots", check: checkBool(true)}}); err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{"type": ToolComputerUse, "include_screenshots": boolOr(o.values["include_screenshots"], false)}), nil
}

func stringOr(raw json.RawMessage, d string) string {
	if kindOf(raw) != kindString {
		return d
	}
	return str(raw)
}

func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return compact(raw)
}
