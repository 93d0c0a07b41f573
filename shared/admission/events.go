package admission

import (
	"encoding/json"

	"github.com/baton-run/baton/shared/session"
)

// MaxEventsPerBatch bounds a POST …/events batch (docs/agents-api.md §1.4).
const MaxEventsPerBatch = 64

// ParseEvents validates a POST /v1/agents/sessions/{session_id}/events body `{"events":[…]}` and returns the
// batch in order (docs/agents-api.md §W4.1, §2.5, §4). An empty batch is valid (a
// no-op the engine answers with 202). Each message event yields one Input per message. A tool result keeps member
// presence: an absent `output`/`error` is nil, one sent as null is `null`, otherwise the value as sent.
func ParseEvents(body []byte) ([]session.Input, error) {
	o, err := decodeObject("", body)
	if err != nil {
		return nil, err
	}
	var out []session.Input
	err = checkObject("", o, []member{{name: "events", required: true, check: func(p string, v json.RawMessage) error {
		elems, err := decodeArray(p, v)
		if err != nil {
			return err
		}
		if len(elems) > MaxEventsPerBatch {
			return invalid(p, "Invalid '%s': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", p, MaxEventsPerBatch, len(elems))
		}
		for i, e := range elems {
			in, err := parseInputEvent(index(p, i), e)
			if err != nil {
				return err
			}
			out = append(out, in...)
		}
		return nil
	}}})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []session.Input{}
	}
	return out, nil
}

var inputEventTypes = []string{session.InputMessage, session.InputToolResult, session.InputCancel, "agent.session.input.computer_use_approval_request_result"}

func parseInputEvent(path string, raw json.RawMessage) ([]session.Input, error) {
	o, err := decodeObject(path, raw)
	if err != nil {
		return nil, err
	}
	t, ok := o.values["type"]
	if !ok {
		return nil, missing(join(path, "type"))
	}
	if err := checkEnum(false, inputEventTypes...)(join(path, "type"), t); err != nil {
		return nil, err
	}
	switch str(t) {
	case session.InputMessage:
		var msgs [][]session.ContentPart
		err := checkObject(path, o, []member{{name: "type"}, {name: "input", required: true, check: func(p string, v json.RawMessage) error {
			var err error
			msgs, err = parseMessages(p, v)
			if err == nil && len(msgs) == 0 {
				err = invalid(p, "Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", p)
			}
			return err
		}}})
		if err != nil {
			return nil, err
		}
		out := make([]session.Input, len(msgs))
		for i, m := range msgs {
			out[i] = session.Input{Type: session.InputMessage, Message: m}
		}
		return out, nil
	case session.InputToolResult:
		r, err := parseToolResult(path, o)
		if err != nil {
			return nil, err
		}
		return []session.Input{{Type: session.InputToolResult, ToolResult: r}}, nil
	case session.InputCancel:
		if err := checkObject(path, o, []member{{name: "type"}}); err != nil {
			return nil, err
		}
		return []session.Input{{Type: session.InputCancel}}, nil
	}
	return nil, unsupported("Input events of type '%s' are not supported by this service.", str(t))
}

// parseToolResult validates `agent.session.input.tool_result` (docs/agents-api.md §4): turn_id and call_id
// nonempty strings, success a boolean (all required), output a string, an array of input parts, or null, error a
// string or null.
func parseToolResult(path string, o object) (*session.ToolResult, error) {
	nonEmpty := func(p string, v json.RawMessage) error {
		if err := checkString(false)(p, v); err != nil {
			return err
		}
		if str(v) == "" {
			return invalidLocal(p, "Invalid '%s': expected a nonempty string.", p)
		}
		return nil
	}
	err := checkObject(path, o, []member{
		{name: "type"},
		{name: "turn_id", required: true, check: nonEmpty},
		{name: "call_id", required: true, check: nonEmpty},
		{name: "success", required: true, check: checkBool(false)},
		{name: "output", check: func(p string, v json.RawMessage) error {
			switch kindOf(v) {
			case kindNull, kindString:
				return nil
			case kindArray:
				_, err := parseContent(p, v, false)
				return err
			}
			return invalidType(p, "a string or an array", v)
		}},
		{name: "error", check: checkString(true)},
	})
	if err != nil {
		return nil, err
	}
	r := &session.ToolResult{
		TurnID:  str(o.values["turn_id"]),
		CallID:  str(o.values["call_id"]),
		Success: boolOr(o.values["success"], false),
	}
	if v, ok := o.values["output"]; ok {
		r.Output = compact(v)
	}
	if v, ok := o.values["error"]; ok {
		r.Error = compact(v)
	}
	if n := len(r.Output) + len(r.Error); n > MaxToolResultBytes {
		return nil, invalidLocal(path+".output", "Invalid '%s.output': a tool result's output and error may have at most %d bytes together (got %d).",
			path, MaxToolResultBytes, n)
	}
	return r, nil
}

// MaxToolResultBytes bounds one tool result's output and error as stored (their JSON text, as sent). A result is
// stored once and then carried by its function_call_output item and that item's event, each a DynamoDB item of at
// most 400 KB; this bound keeps every one of them, and a full batch under the 1 MiB body gate, within DynamoDB's
// limits (docs/decisions.md "Payload limits are design inputs"). A documented deviation: the hosted service has no such bound.
const MaxToolResultBytes = 256 * 1024
