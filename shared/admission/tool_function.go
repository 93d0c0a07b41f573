package admission

import "encoding/json"

// functionTool validates a `function` declaration (docs/agents-api.md §3.1):
// `name`, `description` and `parameters` (a JSON object) are required; `defer_loading` is a boolean that cannot be
// null; `async` is an optional boolean. Saved form:
// {type, name, description, parameters, defer_loading (default false), async (default false)}.
func functionTool(path string, o object, _ bool) (json.RawMessage, error) {
	err := checkObject(path, o, []member{
		{name: "type"},
		{name: "name", required: true, check: checkString(false)},
		{name: "description", required: true, check: checkString(false)},
		{name: "parameters", required: true, check: checkSchemaObject},
		{name: "defer_loading", check: checkBool(false)},
		{name: "async", check: checkBool(true)},
	})
	if err != nil {
		return nil, err
	}
	return mustMarshal(map[string]any{
		"type":          ToolFunction,
		"name":          str(o.values["name"]),
		"description":   str(o.values["description"]),
		"parameters":    compact(o.values["parameters"]),
		"defer_loading": boolOr(o.values["defer_loading"], false),
		"async":         boolOr(o.values["async"], false),
	}), nil
}

func checkSchemaObject(path string, raw json.RawMessage) error {
	if kindOf(raw) != kindObject {
		return invalidType(path, "an object", raw)
	}
	return nil
}
