package invoke

import (
	"encoding/json"
	"fmt"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/handoff"
)

// Wire bounds of an InvokeHarness request (docs/agentcore.md §3.1).
const (
	MaxBodyBytes           = 1 << 20
	MinRuntimeSessionID    = 33
	MaxRuntimeSessionID    = 256
	MaxMessages            = 64
	DefaultQualifier       = "DEFAULT"
	RuntimeSessionIDHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
	fieldMessages          = "messages"
	fieldRuntimeSessionID  = "runtimeSessionId"
)

// request is the InvokeHarness body's `messages`; the override members are validated by
// agentcore.ParseInvokeOverrides (unknown members are ignored).
type request struct {
	Messages []wireMessage `json:"messages"`
}

type wireMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

// block is one HarnessContentBlock union value.
type block struct {
	Text             *string         `json:"text"`
	ToolUse          *wireToolUse    `json:"toolUse"`
	ToolResult       *wireToolResult `json:"toolResult"`
	ReasoningContent json.RawMessage `json:"reasoningContent"`
}

type wireToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type wireToolResult struct {
	ToolUseID string            `json:"toolUseId"`
	Content   []json.RawMessage `json:"content"`
	Status    string            `json:"status"`
}

// parsed is a validated request: the overrides and the messages as the handoff sees them.
type parsed struct {
	overrides agentcore.InvokeOverrides
	messages  []handoff.Message
}

// parseBody decodes and validates the body: messages here, the overrides by agentcore.ParseInvokeOverrides. A
// problem of the messages is a *fieldError naming the member; of the overrides an *agentcore.ValidationError.
func parseBody(body []byte) (parsed, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return parsed{}, validation(&fieldError{Name: "body", Message: "the request body is not a JSON object"})
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return parsed{}, validation(&fieldError{Name: fieldMessages, Message: "must be a list of {role, content} messages"})
	}
	if len(req.Messages) == 0 {
		return parsed{}, validation(&fieldError{Name: fieldMessages, Message: "at least one message is required"})
	}
	if len(req.Messages) > MaxMessages {
		return parsed{}, validation(&fieldError{Name: fieldMessages, Message: fmt.Sprintf("at most %d messages", MaxMessages)})
	}
	var out parsed
	for i, m := range req.Messages {
		hm, fe := parseMessage(fmt.Sprintf("messages[%d]", i), m)
		if fe != nil {
			return parsed{}, validation(fe)
		}
		out.messages = append(out.messages, hm)
	}
	o, err := agentcore.ParseInvokeOverrides(members)
	if err != nil {
		return parsed{}, err
	}
	out.overrides = o
	return out, nil
}

func parseMessage(path string, m wireMessage) (handoff.Message, *fieldError) {
	out := handoff.Message{Role: m.Role}
	if m.Role != "user" && m.Role != "assistant" {
		return out, &fieldError{Name: path + ".role", Message: "must be user or assistant"}
	}
	if len(m.Content) == 0 {
		return out, &fieldError{Name: path + ".content", Message: "at least one content block is required"}
	}
	for j, raw := range m.Content {
		p := fmt.Sprintf("%s.content[%d]", path, j)
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) != nil || len(keys) != 1 {
			return out, &fieldError{Name: p, Message: "a content block must have exactly one member"}
		}
		var b block
		if json.Unmarshal(raw, &b) != nil {
			return out, &fieldError{Name: p, Message: "malformed content block"}
		}
		switch {
		case b.Text != nil:
			out.Texts = append(out.Texts, *b.Text)
		case b.ToolUse != nil:
			if m.Role != "assistant" {
				return out, &fieldError{Name: p + ".toolUse", Message: "toolUse blocks belong to assistant messages"}
			}
			if !agentcore.ToolNamePattern.MatchString(b.ToolUse.ToolUseID) {
				return out, &fieldError{Name: p + ".toolUse.toolUseId", Message: "must match [a-zA-Z0-9_-]{1,64}"}
			}
			out.ToolUses = append(out.ToolUses, b.ToolUse.ToolUseID)
		case b.ToolResult != nil:
			tr := b.ToolResult
			if m.Role != "user" {
				return out, &fieldError{Name: p + ".toolResult", Message: "toolResult blocks belong to user messages"}
			}
			if !agentcore.ToolNamePattern.MatchString(tr.ToolUseID) {
				return out, &fieldError{Name: p + ".toolResult.toolUseId", Message: "must match [a-zA-Z0-9_-]{1,64}"}
			}
			if tr.Status != "" && tr.Status != "success" && tr.Status != "error" {
				return out, &fieldError{Name: p + ".toolResult.status", Message: "must be success or error"}
			}
			if tr.Content == nil {
				return out, &fieldError{Name: p + ".toolResult.content", Message: "required"}
			}
			for k, c := range tr.Content {
				var ck map[string]json.RawMessage
				if json.Unmarshal(c, &ck) != nil || len(ck) != 1 || (ck["text"] == nil && ck["json"] == nil) {
					return out, &fieldError{Name: fmt.Sprintf("%s.toolResult.content[%d]", p, k), Message: "must be {text} or {json}"}
				}
			}
			out.ToolResults = append(out.ToolResults, handoff.Result{ToolUseID: tr.ToolUseID, Error: tr.Status == "error", Content: tr.Content})
		case b.ReasoningContent != nil:
			if m.Role != "assistant" {
				return out, &fieldError{Name: p + ".reasoningContent", Message: "reasoningContent blocks belong to assistant messages"}
			}
		default:
			return out, &fieldError{Name: p, Message: "unknown content block member"}
		}
	}
	return out, nil
}
