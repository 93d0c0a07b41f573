package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"text/template"
)

// Data is what templates see as `.`.
type Data struct {
	// UserText is the text of the last user message ("" when there is none).
	UserText string
	// Instructions are the request's system instructions.
	Instructions string
	// Match holds the groups of the rule's when.user_matches: "0" the whole match, "1"… numbered groups and named
	// groups by name; empty without user_matches.
	Match map[string]string
	// Tools are the function results since the last user message, in order (all rounds of the turn).
	Tools []Tool
	// ToolNames are the names of the tools the request offers, in the request's order.
	ToolNames []string
}

// Tool is one function result as templates see it. Index is 1-based within Data.Tools.
type Tool struct {
	Index     int
	CallID    string
	Name      string
	Arguments map[string]any
	// ArgumentsJSON is the call's arguments as JSON text.
	ArgumentsJSON string
	Output        string
	IsError       bool
}

// Matches reports whether the rule answers a step and returns the when.user_matches groups ("0" the whole match,
// "1"… numbered groups, named groups by name; empty without user_matches). afterTools says whether the step
// follows tool results; lastResults are the function names of the step's last tool results (an MCP tool's
// "<server_label>__<tool>", "tool_search").
func (r *Rule) Matches(data *Data, afterTools bool, lastResults []string) (map[string]string, bool) {
	userText := data.UserText
	if (r.When.AfterTool != "") != afterTools {
		return nil, false
	}
	if r.When.ToolOffered != "" && !slices.Contains(data.ToolNames, r.When.ToolOffered) {
		return nil, false
	}
	if r.When.ToolNotOffered != "" && slices.Contains(data.ToolNames, r.When.ToolNotOffered) {
		return nil, false
	}
	if r.When.AfterTool != "" && r.When.AfterTool != "*" {
		if !slices.Contains(lastResults, r.When.AfterTool) {
			return nil, false
		}
	}
	if r.When.UserContains != "" && !containsFold(userText, r.When.UserContains) {
		return nil, false
	}
	match := map[string]string{}
	if r.userMatches != nil {
		sub := r.userMatches.FindStringSubmatch(userText)
		if sub == nil {
			return nil, false
		}
		for i, s := range sub {
			match[strconv.Itoa(i)] = s
			if name := r.userMatches.SubexpNames()[i]; name != "" {
				match[name] = s
			}
		}
	}
	return match, true
}

// Render executes a script template against data with the template functions tool_output, tool_args, tool_arg
// and json (missing map keys are errors). Errors: the template does not parse, a function fails (a missing
// result or argument), or the output exceeds MaxRenderedBytes.
func Render(text string, data *Data) (string, error) {
	t, err := template.New("script").Option("missingkey=error").Funcs(funcs(data)).Parse(text)
	if err != nil {
		return "", err
	}
	b := &cappedBuffer{max: MaxRenderedBytes}
	if err := t.Execute(b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// MaxRenderedBytes bounds the output of one template (a reply, a commentary or one argument string); a template
// that writes more fails the step with a ModelError.
const MaxRenderedBytes = 256 << 10

// cappedBuffer is a bytes.Buffer that refuses to grow beyond max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, fmt.Errorf("template output exceeds %d bytes", b.max)
	}
	return b.Buffer.Write(p)
}

// funcs are the template functions, bound to one step's data.
func funcs(data *Data) template.FuncMap {
	find := func(ref any) (Tool, error) {
		switch r := ref.(type) {
		case string:
			for i := len(data.Tools) - 1; i >= 0; i-- {
				if data.Tools[i].Name == r {
					return data.Tools[i], nil
				}
			}
			return Tool{}, fmt.Errorf("no tool result of function %q in this turn", r)
		case int:
			if r >= 1 && r <= len(data.Tools) {
				return data.Tools[r-1], nil
			}
			return Tool{}, fmt.Errorf("no tool result number %d in this turn (have %d)", r, len(data.Tools))
		default:
			return Tool{}, fmt.Errorf("tool reference must be a function name or a 1-based index, got %T", ref)
		}
	}
	return template.FuncMap{
		"tool_output": func(ref any) (string, error) {
			t, err := find(ref)
			return t.Output, err
		},
		"tool_args": func(ref any) (string, error) {
			t, err := find(ref)
			return t.ArgumentsJSON, err
		},
		"tool_arg": func(ref any, key string) (any, error) {
			t, err := find(ref)
			if err != nil {
				return nil, err
			}
			v, ok := t.Arguments[key]
			if !ok {
				return nil, fmt.Errorf("call of %q has no argument %q", t.Name, key)
			}
			return v, nil
		},
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}
}
