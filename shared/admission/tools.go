package admission

import (
	"encoding/json"
	"slices"
)

// Tool types of the pinned tool unions (docs/agents-api.md §W3.2). Saving an Agent keeps every one of them;
// whether a harness can execute a declaration is decided at Session admission (Stage B), not here.
const (
	ToolFunction                = "function"
	ToolSearch                  = "tool_search"
	ToolProgrammaticToolCalling = "programmatic_tool_calling"
	ToolMCP                     = "mcp"
	ToolWebSearch               = "web_search"
	ToolComputerUse             = "computer_use"
	ToolAutomations             = "automations"
)

// toolTypes lists the supported `type` values in the order error messages name them.
var toolTypes = []string{ToolFunction, ToolSearch, ToolProgrammaticToolCalling, ToolMCP, ToolWebSearch, ToolComputerUse, ToolAutomations}

// toolRule validates one declaration of its type (member names, types and enums; Stage A) and returns the
// declaration in its saved form, with the documented defaults filled in. inline is true for a Session's inline
// `agent.tools` (AgentToolParamUnion), which may carry secrets the persisted union cannot.
type toolRule func(path string, o object, inline bool) (json.RawMessage, error)

// toolRules is the per-type table; each rule lives in its own tool_<type>.go file.
var toolRules = map[string]toolRule{
	ToolFunction:                functionTool,
	ToolSearch:                  typeOnlyTool(ToolSearch),
	ToolProgrammaticToolCalling: programmaticToolCallingTool,
	ToolMCP:                     mcpTool,
	ToolWebSearch:               webSearchTool,
	ToolComputerUse:             computerUseTool,
	ToolAutomations:             typeOnlyTool(ToolAutomations),
}

// decl is what the cross-declaration checks need to know about one validated tool.
type decl struct {
	path       string
	typ        string
	name       string
	parameters json.RawMessage
}

// parseTools validates a `tools` array at path (Stage A) and returns the saved declarations. JSON null means no
// tools (nil). Checks run per declaration in order (union `type` first, then the type's rule); then the
// cross-declaration checks: duplicate function names, repeated tool_search or web_search, and every function
// schema's root type and compilability.
func parseTools(path string, raw json.RawMessage, inline bool) ([]json.RawMessage, error) {
	out, decls, err := parseToolList(path, raw, inline)
	if err != nil {
		return nil, err
	}
	if err := checkToolSet(decls); err != nil {
		return nil, err
	}
	return out, nil
}

// parseToolList validates each declaration of a `tools` array and returns the saved declarations with what
// checkToolSet needs; the caller runs checkToolSet once the object's other members are validated.
func parseToolList(path string, raw json.RawMessage, inline bool) ([]json.RawMessage, []decl, error) {
	if isNull(raw) {
		return nil, nil, nil
	}
	elems, err := decodeArray(path, raw)
	if err != nil {
		return nil, nil, err
	}
	out := make([]json.RawMessage, 0, len(elems))
	decls := make([]decl, 0, len(elems))
	for i, e := range elems {
		p := index(path, i)
		saved, d, err := parseTool(p, e, inline)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, saved)
		decls = append(decls, d)
	}
	return out, decls, nil
}

// parseTool validates one declaration: an object whose `type` is a pinned tool type, then that type's rule.
func parseTool(path string, raw json.RawMessage, inline bool) (json.RawMessage, decl, error) {
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, decl{}, err
	}
	t, ok := o.values["type"]
	if !ok {
		return nil, decl{}, missing(join(path, "type"))
	}
	if err := checkEnum(false, toolTypes...)(join(path, "type"), t); err != nil {
		return nil, decl{}, err
	}
	typ := str(t)
	saved, err := toolRules[typ](path, o, inline)
	if err != nil {
		return nil, decl{}, err
	}
	d := decl{path: path, typ: typ}
	if typ == ToolFunction {
		d.name = str(o.values["name"])
		d.parameters = o.values["parameters"]
	}
	return saved, d, nil
}

// checkToolSet runs the checks that span declarations (docs/agents-api.md §3.1–3.3), all with a null param:
// duplicates first, then schema roots and compilation, each in declaration order.
func checkToolSet(decls []decl) error {
	var names []string
	searches, webSearches := 0, 0
	for _, d := range decls {
		switch d.typ {
		case ToolFunction:
			if slices.Contains(names, d.name) {
				return invalid("", "duplicate function tool name: %s", d.name)
			}
			names = append(names, d.name)
		case ToolSearch:
			if searches++; searches > 1 {
				return invalid("", "duplicate tool_search tool")
			}
		case ToolWebSearch:
			if webSearches++; webSearches > 1 {
				return invalid("", "duplicate web_search tool")
			}
		}
	}
	for _, d := range decls {
		if d.typ != ToolFunction {
			continue
		}
		if t, ok := rootType(d.parameters); ok && t != "object" {
			return invalid("", `Invalid schema for function '%s': schema must be a JSON Schema of 'type: "object"', got 'type: "%s"'.`, d.name, t)
		}
		if msg, ok := compileSchema(d.parameters); !ok {
			return invalid(join(d.path, "parameters"), "Invalid schema for function '%s': %s", d.name, msg)
		}
	}
	return nil
}

// typeOnlyTool is a declaration with no member but `type` (tool_search, automations).
func typeOnlyTool(typ string) toolRule {
	return func(path string, o object, _ bool) (json.RawMessage, error) {
		if err := checkObject(path, o, []member{{name: "type"}}); err != nil {
			return nil, err
		}
		return mustMarshal(map[string]string{"type": typ}), nil
	}
}
