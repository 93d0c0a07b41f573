package invoke

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/agentcore/translate"
)

// Wire bounds of an InvokeHarness request (docs/agentcore.md "InvokeHarness: request").
const (
	MaxBodyBytes            = 1 << 20
	MinRuntimeSessionID     = 33
	MaxRuntimeSessionID     = 256
	MaxMessages             = 64
	MaxDescriptionChars     = 4096
	MaxAllowedToolChars     = 64
	DefaultQualifier        = "DEFAULT"
	RuntimeSessionIDHeader  = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
	maxSystemPromptBlocks   = 64
	maxToolsPerRequest      = 128
	maxAllowedToolsEntries  = 128
	maxLimitValue           = 1 << 30
	fieldMessages           = "messages"
	fieldRuntimeSessionID   = "runtimeSessionId"
	unsupportedMemberFormat = "%s is not supported by Baton"
)

var (
	harnessARNPattern = regexp.MustCompile(`^arn:([^:]+)?:bedrock-agentcore:[a-z0-9-]+:[0-9]{12}:harness/[a-zA-Z][a-zA-Z0-9_]{0,39}-[a-zA-Z0-9]{10}$`)
	qualifierPattern  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`)
	toolNamePattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	allowedPattern    = regexp.MustCompile(`^(\*|@?[^/]+(/[^/]+)?)$`)
)

// request is the InvokeHarness body (restJson1; unknown members are ignored).
type request struct {
	Messages       []wireMessage           `json:"messages"`
	Model          *translate.Model        `json:"model"`
	SystemPrompt   []translate.SystemBlock `json:"systemPrompt"`
	Tools          *[]translate.Tool       `json:"tools"`
	Skills         []json.RawMessage       `json:"skills"`
	AllowedTools   *[]string               `json:"allowedTools"`
	MaxIterations  *int                    `json:"maxIterations"`
	MaxTokens      *int                    `json:"maxTokens"`
	TimeoutSeconds *int                    `json:"timeoutSeconds"`
	ActorID        *string                 `json:"actorId"`
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

// fieldError is one `fieldList` entry.
type fieldError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// parsed is a validated request: the override configuration and the messages as the handoff sees them.
type parsed struct {
	override translate.Config
	messages []handoff.Message
}

// parseBody decodes and validates the body; every problem is a *fieldError naming the member.
func parseBody(body []byte) (parsed, *fieldError) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return parsed{}, &fieldError{Name: "body", Message: "the request body is not a valid InvokeHarness JSON object"}
	}
	if dec.More() {
		return parsed{}, &fieldError{Name: "body", Message: "the request body has data after the JSON object"}
	}
	if len(req.Skills) > 0 {
		return parsed{}, &fieldError{Name: "skills", Message: fmt.Sprintf(unsupportedMemberFormat, "skills")}
	}
	if len(req.Messages) == 0 {
		return parsed{}, &fieldError{Name: fieldMessages, Message: "at least one message is required"}
	}
	if len(req.Messages) > MaxMessages {
		return parsed{}, &fieldError{Name: fieldMessages, Message: fmt.Sprintf("at most %d messages", MaxMessages)}
	}
	var out parsed
	for i, m := range req.Messages {
		hm, fe := parseMessage(fmt.Sprintf("messages[%d]", i), m)
		if fe != nil {
			return parsed{}, fe
		}
		out.messages = append(out.messages, hm)
	}
	if fe := checkOverrides(req); fe != nil {
		return parsed{}, fe
	}
	out.override = translate.Config{Model: req.Model, SystemPrompt: req.SystemPrompt, Tools: req.Tools,
		AllowedTools: req.AllowedTools, MaxIterations: req.MaxIterations, MaxTokens: req.MaxTokens, TimeoutSeconds: req.TimeoutSeconds}
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
			if !toolNamePattern.MatchString(b.ToolUse.ToolUseID) {
				return out, &fieldError{Name: p + ".toolUse.toolUseId", Message: "must match [a-zA-Z0-9_-]{1,64}"}
			}
			out.ToolUses = append(out.ToolUses, b.ToolUse.ToolUseID)
		case b.ToolResult != nil:
			tr := b.ToolResult
			if m.Role != "user" {
				return out, &fieldError{Name: p + ".toolResult", Message: "toolResult blocks belong to user messages"}
			}
			if !toolNamePattern.MatchString(tr.ToolUseID) {
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

func checkOverrides(req request) *fieldError {
	if len(req.SystemPrompt) > maxSystemPromptBlocks {
		return &fieldError{Name: "systemPrompt", Message: fmt.Sprintf("at most %d blocks", maxSystemPromptBlocks)}
	}
	for _, lim := range []struct {
		name string
		v    *int
	}{{"maxIterations", req.MaxIterations}, {"maxTokens", req.MaxTokens}, {"timeoutSeconds", req.TimeoutSeconds}} {
		if lim.v != nil && (*lim.v < 1 || *lim.v > maxLimitValue) {
			return &fieldError{Name: lim.name, Message: "must be a positive integer"}
		}
	}
	if req.AllowedTools != nil {
		if len(*req.AllowedTools) > maxAllowedToolsEntries {
			return &fieldError{Name: "allowedTools", Message: fmt.Sprintf("at most %d patterns", maxAllowedToolsEntries)}
		}
		for i, p := range *req.AllowedTools {
			if n := utf8.RuneCountInString(p); n < 1 || n > MaxAllowedToolChars || !allowedPattern.MatchString(p) {
				return &fieldError{Name: fmt.Sprintf("allowedTools[%d]", i), Message: "must be 1-64 characters matching (\\*|@?[^/]+(/[^/]+)?)"}
			}
		}
	}
	if req.Tools != nil {
		if len(*req.Tools) > maxToolsPerRequest {
			return &fieldError{Name: "tools", Message: fmt.Sprintf("at most %d tools", maxToolsPerRequest)}
		}
		names := map[string]bool{}
		for i, t := range *req.Tools {
			if fe := checkTool(fmt.Sprintf("tools[%d]", i), t); fe != nil {
				return fe
			}
			if names[t.Name] {
				return &fieldError{Name: fmt.Sprintf("tools[%d].name", i), Message: "tool names must be unique"}
			}
			names[t.Name] = true
		}
	}
	return nil
}

// configKeys maps each tool type to its config member.
var configKeys = map[string]string{
	translate.ToolInlineFunction:  "inlineFunction",
	translate.ToolRemoteMCP:       "remoteMcp",
	translate.ToolGateway:         "agentCoreGateway",
	translate.ToolBrowser:         "agentCoreBrowser",
	translate.ToolCodeInterpreter: "agentCoreCodeInterpreter",
}

func checkTool(p string, t translate.Tool) *fieldError {
	key, ok := configKeys[t.Type]
	if !ok {
		return &fieldError{Name: p + ".type", Message: "must be one of inline_function, remote_mcp, agentcore_gateway, agentcore_browser, agentcore_code_interpreter"}
	}
	if !toolNamePattern.MatchString(t.Name) {
		return &fieldError{Name: p + ".name", Message: "required; must match [a-zA-Z0-9_-]{1,64}"}
	}
	c := t.Config
	set := 0
	if c != nil {
		for _, present := range []bool{c.RemoteMCP != nil, c.Gateway != nil, c.Browser != nil, c.CodeInterpreter != nil, c.InlineFunction != nil} {
			if present {
				set++
			}
		}
	}
	if set > 1 {
		return &fieldError{Name: p + ".config", Message: "exactly one configuration member"}
	}
	switch t.Type {
	case translate.ToolInlineFunction:
		if c == nil || c.InlineFunction == nil {
			return &fieldError{Name: p + ".config." + key, Message: "required for type " + t.Type}
		}
		n := utf8.RuneCountInString(c.InlineFunction.Description)
		if n < 1 || n > MaxDescriptionChars {
			return &fieldError{Name: p + ".config.inlineFunction.description", Message: "1-4096 characters"}
		}
		var schema map[string]json.RawMessage
		if json.Unmarshal(c.InlineFunction.InputSchema, &schema) != nil {
			return &fieldError{Name: p + ".config.inlineFunction.inputSchema", Message: "must be a JSON Schema object"}
		}
	case translate.ToolRemoteMCP:
		if c == nil || c.RemoteMCP == nil || c.RemoteMCP.URL == "" {
			return &fieldError{Name: p + ".config.remoteMcp.url", Message: "required"}
		}
	case translate.ToolGateway:
		if c == nil || c.Gateway == nil || c.Gateway.GatewayARN == "" {
			return &fieldError{Name: p + ".config.agentCoreGateway.gatewayArn", Message: "required"}
		}
	default:
		if c != nil && set == 1 && ((t.Type == translate.ToolBrowser && c.Browser == nil) || (t.Type == translate.ToolCodeInterpreter && c.CodeInterpreter == nil)) {
			return &fieldError{Name: p + ".config", Message: "must be " + key + " for type " + t.Type}
		}
	}
	return nil
}
