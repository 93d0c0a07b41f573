package harness

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/session"
)

// NewRequest builds the model request of one step from a Session's frozen configuration and its history.
func NewRequest(turnID string, cfg agent.Config, history []session.Item) Request {
	req := Request{
		Model:        cfg.Model,
		TurnID:       turnID,
		Messages:     Conversation(history),
		OutputSchema: outputSchema(cfg.Text),
	}
	if cfg.XBaton != nil && cfg.XBaton.ModelProvider != nil && cfg.XBaton.ModelProvider.Model != "" {
		req.Model = cfg.XBaton.ModelProvider.Model
	}
	if cfg.Instructions != nil {
		req.Instructions = *cfg.Instructions
	}
	for _, f := range cfg.Functions() {
		req.Tools = append(req.Tools, Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters})
	}
	if c := cfg.Controls; c != nil {
		req.Temperature, req.TopP = c.Temperature, c.TopP
	}
	return req
}

// Conversation turns a Session's history (items in seq order) into model messages:
//   - a user message item → a RoleUser message;
//   - an assistant message item → a RoleAssistant message with its text; function_call and mcp_call items that
//     follow it join its Calls while none of its calls has a result yet (so commentary and the calls it introduced
//     stay one response), otherwise they open a RoleAssistant message without text;
//   - function_call_output items → results in one RoleTool message per run of consecutive results, each result
//     named after its call;
//   - an mcp_call item is a call (named MCPToolName(server_label, name), id its stored call id, else its item id)
//     and at once its result: the output, or the error with IsError when it failed; an mcp_call left in_progress
//     or incomplete by a lost attempt reads as a failed result. Since its result follows it directly, a call after
//     an mcp_call opens a new assistant message: MCP calls of one response are shown as consecutive responses.
//
// Messages still in_progress (left by an attempt that died mid-stream) and messages without text are skipped.
// tool_search calls are not items (Core invents none), so they do not appear; the functions they discovered do
// once called (docs/tool-search.md).
func Conversation(history []session.Item) []Message {
	names := map[string]string{}
	for _, it := range history {
		if it.Type == session.ItemFunctionCall {
			names[it.CallID] = it.Name
		}
	}
	var out []Message
	last := func() *Message {
		if len(out) == 0 {
			return nil
		}
		return &out[len(out)-1]
	}
	addCall := func(c Call) {
		if m := last(); m != nil && m.Role == RoleAssistant {
			m.Calls = append(m.Calls, c)
		} else {
			out = append(out, Message{Role: RoleAssistant, Calls: []Call{c}})
		}
	}
	addResult := func(r Result) {
		if m := last(); m != nil && m.Role == RoleTool {
			m.Results = append(m.Results, r)
		} else {
			out = append(out, Message{Role: RoleTool, Results: []Result{r}})
		}
	}
	for _, it := range history {
		switch it.Type {
		case session.ItemMessage:
			if it.Status == session.ItemInProgress {
				continue
			}
			text := it.Text()
			if it.Role == "user" {
				m := Message{Role: RoleUser, Text: text}
				for _, p := range it.Content {
					if p.Type == "input_image" {
						m.Images = append(m.Images, p.ImageURL)
					}
				}
				out = append(out, m)
				continue
			}
			if text == "" {
				continue
			}
			out = append(out, Message{Role: RoleAssistant, Text: text})
		case session.ItemFunctionCall:
			args := it.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			addCall(Call{ID: it.CallID, Name: it.Name, Arguments: args})
		case session.ItemFunctionCallOutput:
			r := Result{CallID: it.CallID, Name: names[it.CallID], IsError: it.Status == session.ItemFailed}
			r.Output = resultText(it.Output)
			if r.IsError && r.Output == "" {
				r.Output = resultText(it.Error)
			}
			addResult(r)
		case session.ItemMCPCall:
			args := it.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			id := it.CallID
			if id == "" {
				id = it.ID
			}
			name := MCPToolName(it.ServerLabel, it.Name)
			addCall(Call{ID: id, Name: name, Arguments: args})
			r := Result{CallID: id, Name: name}
			switch it.Status {
			case session.ItemCompleted:
				r.Output = resultText(it.Output)
			case session.ItemFailed:
				r.IsError = true
				r.Output = resultText(it.Error)
			default:
				r.IsError = true
				r.Output = "the MCP tool call did not finish"
			}
			addResult(r)
		case session.ItemCommandExecution:
			args := it.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			id := it.CallID
			if id == "" {
				id = it.ID
			}
			addCall(Call{ID: id, Name: it.Name, Arguments: args})
			r := Result{CallID: id, Name: it.Name, Output: resultText(it.Output)}
			switch it.Status {
			case session.ItemCompleted:
			case session.ItemFailed:
				r.IsError = true
			default:
				r.IsError = true
				r.Output = "the tool call did not finish"
			}
			addResult(r)
		}
	}
	return out
}

// resultText renders a tool result's output or error for the model: a JSON string as its value, an array of
// content parts as their texts joined, null or absent as "", anything else as its JSON text.
func resultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
		var b strings.Builder
		ok := false
		for _, p := range parts {
			if p.Text != "" {
				b.WriteString(p.Text)
				ok = true
			}
		}
		if ok {
			return b.String()
		}
	}
	return string(raw)
}

// outputSchema returns text.format.schema when text.format.type is "json_schema", else nil.
func outputSchema(text json.RawMessage) json.RawMessage {
	if len(text) == 0 {
		return nil
	}
	var t struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	}
	if json.Unmarshal(text, &t) != nil || t.Format.Type != "json_schema" || len(t.Format.Schema) == 0 {
		return nil
	}
	return t.Format.Schema
}
