package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"
	"text/template/parse"
)

// MaxDelayMS bounds a rule's delay_ms (10 minutes).
const MaxDelayMS = 600_000

// DefaultChunkRunes is the number of runes per text delta when the script sets no chunk_size.
const DefaultChunkRunes = 8

// DefaultReply is the reply template used when no rule matches and the script sets no default_reply: the last
// user text echoed after a user message, one "name: output" line per tool result after tool results.
const DefaultReply = `{{if .Tools}}{{range $i, $t := .Tools}}{{if $i}}` + "\n" + `{{end}}{{$t.Name}}: {{$t.Output}}{{end}}{{else}}You said: {{.UserText}}{{end}}`

// Script is the decoded x_baton.script (see the package documentation for the format).
type Script struct {
	// Rules are tried in order; the first that matches answers.
	Rules []Rule `json:"rules"`
	// DefaultReply is the reply template when no rule matches; nil means DefaultReply.
	DefaultReply *string `json:"default_reply"`
	// ChunkSize is the number of runes per text delta; 0 means DefaultChunkRunes.
	ChunkSize int `json:"chunk_size"`
	// OmitUsage suppresses the usage part, so the turn's usage stays null.
	OmitUsage bool `json:"omit_usage"`
}

// Rule is one scripted answer: a condition and exactly one action — Calls (optionally preceded by Commentary),
// Reply, or Error (optionally preceded by a streamed Reply).
type Rule struct {
	When       When       `json:"when"`
	Commentary *string    `json:"commentary"`
	Calls      []CallSpec `json:"calls"`
	Reply      *string    `json:"reply"`
	Error      string     `json:"error"`
	// DelayMS makes the model wait this many milliseconds before its first part (a slow model, for tests of
	// cancellation and worker loss); 0 = none. The wait ends early when the step's context ends.
	DelayMS int `json:"delay_ms"`
	// ChunkDelayMS makes the model wait this many milliseconds before each text part after the first (a model that
	// streams slowly, for tests of cancellation mid-message and of progressive streaming); 0 = none, at most
	// MaxDelayMS. The wait ends early when the step's context ends.
	ChunkDelayMS int `json:"chunk_delay_ms"`

	userMatches *regexp.Regexp
}

// When is a rule's condition; every member that is set must hold. A rule without AfterTool answers a step that
// follows a user message; a rule with AfterTool answers a step that follows tool results.
type When struct {
	// UserContains holds when the last user text contains it, ignoring case.
	UserContains string `json:"user_contains"`
	// UserMatches is a Go (RE2) regular expression that must match the last user text; its groups are available
	// to templates as .Match ("0" the whole match, "1"… numbered groups, and named groups by name).
	UserMatches string `json:"user_matches"`
	// AfterTool names a function one of whose results arrived in the step's last tool message ("*" = any). An
	// MCP tool's results carry its model-facing name "<server_label>__<tool>" and tool_search's "tool_search".
	AfterTool string `json:"after_tool"`
	// ToolOffered holds when the request offers a tool of this name (a function, a deferred function once
	// discovered, "tool_search", or an MCP tool "<server_label>__<tool>").
	ToolOffered string `json:"tool_offered"`
	// ToolNotOffered holds when the request offers no tool of this name.
	ToolNotOffered string `json:"tool_not_offered"`
}

// CallSpec is one call of a rule. Arguments is a JSON object (absent = {}); every string inside it is a
// template. With ServerLabel set, the call is of the HTTP MCP tool Name of that server: its model-facing name is
// harness.MCPToolName(ServerLabel, Name) ("<server_label>__<name>").
type CallSpec struct {
	Name        string          `json:"name"`
	ServerLabel string          `json:"server_label"`
	Arguments   json.RawMessage `json:"arguments"`
}

// Parse decodes and checks a script. Empty input (absent x_baton.script) is the empty script: every step answers
// with the default reply. Errors name the offending member (e.g. "rules[1].calls[0].name: required"); unknown
// members are errors.
func Parse(raw json.RawMessage) (*Script, error) {
	s := &Script{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if dec.More() {
		return nil, errors.New("script: trailing data after the object")
	}
	if s.ChunkSize < 0 {
		return nil, errors.New("chunk_size: must not be negative")
	}
	if s.DefaultReply != nil {
		if err := checkTemplate(*s.DefaultReply); err != nil {
			return nil, fmt.Errorf("default_reply: %w", err)
		}
	}
	for i := range s.Rules {
		if err := s.Rules[i].check(); err != nil {
			return nil, fmt.Errorf("rules[%d].%w", i, err)
		}
	}
	return s, nil
}

func (r *Rule) check() error {
	if r.DelayMS < 0 || r.DelayMS > MaxDelayMS {
		return fmt.Errorf("delay_ms: must be between 0 and %d", MaxDelayMS)
	}
	if r.ChunkDelayMS < 0 || r.ChunkDelayMS > MaxDelayMS {
		return fmt.Errorf("chunk_delay_ms: must be between 0 and %d", MaxDelayMS)
	}
	if r.When.UserMatches != "" {
		re, err := regexp.Compile(r.When.UserMatches)
		if err != nil {
			return fmt.Errorf("when.user_matches: %w", err)
		}
		r.userMatches = re
	}
	switch {
	case len(r.Calls) > 0:
		if r.Reply != nil || r.Error != "" {
			return errors.New("calls: a rule with calls has no reply or error")
		}
		if r.Commentary != nil {
			if err := checkTemplate(*r.Commentary); err != nil {
				return fmt.Errorf("commentary: %w", err)
			}
		}
		for j, c := range r.Calls {
			if c.Name == "" {
				return fmt.Errorf("calls[%d].name: required", j)
			}
			args, err := decodeArguments(c.Arguments)
			if err != nil {
				return fmt.Errorf("calls[%d].arguments: %w", j, err)
			}
			if err := walkStrings(args, func(s string) (string, error) { return s, checkTemplate(s) }); err != nil {
				return fmt.Errorf("calls[%d].arguments: %w", j, err)
			}
		}
	case r.Error != "" || r.Reply != nil:
		if r.Commentary != nil {
			return errors.New("commentary: only a rule with calls has commentary")
		}
		if r.Reply != nil {
			if err := checkTemplate(*r.Reply); err != nil {
				return fmt.Errorf("reply: %w", err)
			}
		}
	default:
		return errors.New("calls: a rule needs calls, reply or error")
	}
	return nil
}

// decodeArguments decodes a call's arguments: absent or null → an empty object; anything but an object is an
// error. Numbers keep their exact text.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, errors.New("must be a JSON object")
	}
	return m, nil
}

// walkStrings replaces every string inside a decoded JSON value (object members and array elements, not keys)
// with f's result.
func walkStrings(v any, f func(string) (string, error)) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok {
				out, err := f(s)
				if err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				x[k] = out
				continue
			}
			if err := walkStrings(e, f); err != nil {
				return fmt.Errorf("%s.%w", k, err)
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok {
				out, err := f(s)
				if err != nil {
					return fmt.Errorf("[%d]: %w", i, err)
				}
				x[i] = out
				continue
			}
			if err := walkStrings(e, f); err != nil {
				return fmt.Errorf("[%d].%w", i, err)
			}
		}
	}
	return nil
}

// DecodeArguments decodes a call's arguments: absent or null → an empty object; anything but an object is an
// error ("must be a JSON object"). Numbers keep their exact text (json.Number).
func DecodeArguments(raw json.RawMessage) (map[string]any, error) {
	return decodeArguments(raw)
}

// RenderArguments renders a call's arguments for one step: every string inside the decoded object is executed as
// a template over data (Render); the result is the object as JSON. Errors: the arguments are not an object, or a
// template fails (the message names the member, e.g. "a.b: no tool result of function \"x\" in this turn").
func RenderArguments(raw json.RawMessage, data *Data) (json.RawMessage, error) {
	args, err := decodeArguments(raw)
	if err != nil {
		return nil, err
	}
	if err := walkStrings(args, func(s string) (string, error) { return Render(s, data) }); err != nil {
		return nil, err
	}
	return json.Marshal(args)
}

// checkTemplate parses a template with placeholder functions to report syntax errors at parse time.
// A `range` over a number (Go templates count to it) is refused: `{{range 1000000000}}` would hold a runtime's
// model step for minutes.
func checkTemplate(text string) error {
	t, err := template.New("script").Option("missingkey=error").Funcs(funcs(&Data{})).Parse(text)
	if err != nil {
		return err
	}
	if t.Tree != nil && rangesOverNumber(t.Tree.Root) {
		return errors.New("template: range over a number is not supported")
	}
	return nil
}

// rangesOverNumber reports whether a template node holds a range whose pipeline is not a field, variable or function
// of the data (a number literal, or anything that is not a plain field chain, could count to any size).
func rangesOverNumber(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if rangesOverNumber(c) {
				return true
			}
		}
	case *parse.RangeNode:
		if n.Pipe != nil {
			for _, cmd := range n.Pipe.Cmds {
				for _, a := range cmd.Args {
					if _, ok := a.(*parse.NumberNode); ok {
						return true
					}
				}
			}
		}
		return rangesOverNumber(n.List) || rangesOverNumber(n.ElseList)
	case *parse.IfNode:
		return rangesOverNumber(n.List) || rangesOverNumber(n.ElseList)
	case *parse.WithNode:
		return rangesOverNumber(n.List) || rangesOverNumber(n.ElseList)
	}
	return false
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
