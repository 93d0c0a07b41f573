package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// Model is the scripted model of one Session: its parsed script. It is safe for concurrent use.
type Model struct {
	script *Script
}

var _ harness.Model = (*Model)(nil)

// New is the harness.Provider of protocol "scripted": it parses cfg.XBaton.Script (absent = the empty script).
// Errors: the script is invalid (the message names the member).
func New(cfg agent.Config) (harness.Model, error) {
	var raw json.RawMessage
	if cfg.XBaton != nil {
		raw = cfg.XBaton.Script
	}
	s, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid x_baton.script: %w", err)
	}
	return &Model{script: s}, nil
}

// Register adds the scripted provider to p under harness.ProtocolScripted.
func Register(p harness.Providers) { p[harness.ProtocolScripted] = New }

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

// Stream answers one request deterministically (see the package documentation). A matched error rule yields its
// reply deltas, if any, then a *harness.ModelError; a template that fails (e.g. tool_output of a function
// without a result) is a *harness.ModelError at once.
func (m *Model) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, afterTools := conversationData(req)
	var last []harness.Result
	if afterTools {
		last = req.Messages[len(req.Messages)-1].Results
	}
	var rule *Rule
	for i := range m.script.Rules {
		r := &m.script.Rules[i]
		if match, ok := r.matches(data, afterTools, last); ok {
			rule = r
			data.Match = match
			break
		}
	}
	st := &stream{ctx: ctx}
	if rule != nil {
		st.delay = time.Duration(rule.DelayMS) * time.Millisecond
		st.chunkDelay = time.Duration(rule.ChunkDelayMS) * time.Millisecond
	}
	chunk := m.script.ChunkSize
	if chunk == 0 {
		chunk = DefaultChunkRunes
	}
	var text string
	var calls []harness.Call
	var err error
	switch {
	case rule == nil:
		reply := DefaultReply
		if m.script.DefaultReply != nil {
			reply = *m.script.DefaultReply
		}
		text, err = render(reply, data)
	case len(rule.Calls) > 0:
		if rule.Commentary != nil {
			if text, err = render(*rule.Commentary, data); err != nil {
				break
			}
		}
		calls, err = renderCalls(rule.Calls, data, callIDs(req))
	default:
		if rule.Reply != nil {
			text, err = render(*rule.Reply, data)
		}
		if err == nil && rule.Error != "" {
			st.fail = &harness.ModelError{Cause: "scripted model: " + rule.Error}
		}
	}
	if err != nil {
		return nil, &harness.ModelError{Cause: "scripted model: " + err.Error(), Err: err}
	}
	phase := session.PhaseFinalAnswer
	if len(calls) > 0 {
		phase = session.PhaseCommentary
	}
	for _, d := range chunks(text, chunk) {
		st.parts = append(st.parts, harness.Part{Kind: harness.PartText, Text: d, Phase: phase})
	}
	out := words(text)
	for i := range calls {
		st.parts = append(st.parts, harness.Part{Kind: harness.PartCall, Call: &calls[i]})
		out += words(calls[i].Name) + words(string(calls[i].Arguments))
	}
	if !m.script.OmitUsage && st.fail == nil {
		st.parts = append(st.parts, harness.Part{Kind: harness.PartUsage, Usage: &session.Usage{InputTokens: inputWords(req), OutputTokens: out}})
	}
	return st, nil
}

// matches reports whether the rule answers this step and returns the user_matches groups.
func (r *Rule) matches(data *Data, afterTools bool, last []harness.Result) (map[string]string, bool) {
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
		found := false
		for _, res := range last {
			if res.Name == r.When.AfterTool {
				found = true
			}
		}
		if !found {
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

// conversationData extracts the template data of a request and whether the step follows tool results.
func conversationData(req harness.Request) (*Data, bool) {
	d := &Data{Instructions: req.Instructions, Match: map[string]string{}, ToolNames: []string{}}
	for _, t := range req.Tools {
		d.ToolNames = append(d.ToolNames, t.Name)
	}
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == harness.RoleUser {
			lastUser = i
		}
	}
	if lastUser >= 0 {
		d.UserText = req.Messages[lastUser].Text
	}
	args := map[string]json.RawMessage{}
	for _, m := range req.Messages[lastUser+1:] {
		for _, c := range m.Calls {
			args[c.ID] = c.Arguments
		}
		for _, r := range m.Results {
			t := Tool{Index: len(d.Tools) + 1, CallID: r.CallID, Name: r.Name, Output: r.Output, IsError: r.IsError, ArgumentsJSON: "{}"}
			if a, ok := args[r.CallID]; ok && len(a) > 0 {
				t.ArgumentsJSON = string(a)
			}
			t.Arguments, _ = decodeArguments(json.RawMessage(t.ArgumentsJSON))
			d.Tools = append(d.Tools, t)
		}
	}
	n := len(req.Messages)
	return d, n > 0 && req.Messages[n-1].Role == harness.RoleTool
}

// callIDs returns the id maker of a request's calls: "call_<turn id without its prefix>_<n>", n counting every
// call in the conversation plus this response's calls from 1, skipping ids the conversation already holds (calls
// that are not history items, such as tool_search, shift the count), so ids are unique within the Session and
// the same for the same history.
func callIDs(req harness.Request) func() string {
	n := 0
	used := map[string]bool{}
	for _, m := range req.Messages {
		n += len(m.Calls)
		for _, c := range m.Calls {
			used[c.ID] = true
		}
	}
	turn := req.TurnID
	if i := strings.IndexByte(turn, '_'); i >= 0 {
		turn = turn[i+1:]
	}
	return func() string {
		for {
			n++
			id := fmt.Sprintf("call_%d", n)
			if turn != "" {
				id = fmt.Sprintf("call_%s_%d", turn, n)
			}
			if !used[id] {
				used[id] = true
				return id
			}
		}
	}
}

func renderCalls(specs []CallSpec, data *Data, nextID func() string) ([]harness.Call, error) {
	calls := make([]harness.Call, 0, len(specs))
	for _, spec := range specs {
		args, err := decodeArguments(spec.Arguments)
		if err != nil {
			return nil, fmt.Errorf("%s arguments: %w", spec.Name, err)
		}
		if err := walkStrings(args, func(s string) (string, error) { return render(s, data) }); err != nil {
			return nil, fmt.Errorf("%s arguments: %w", spec.Name, err)
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("%s arguments: %w", spec.Name, err)
		}
		name := spec.Name
		if spec.ServerLabel != "" {
			name = harness.MCPToolName(spec.ServerLabel, spec.Name)
		}
		calls = append(calls, harness.Call{ID: nextID(), Name: name, Arguments: raw})
	}
	return calls, nil
}

// render executes a template against data.
func render(text string, data *Data) (string, error) {
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

// chunks splits text into pieces of at most n runes (none for "").
func chunks(text string, n int) []string {
	var out []string
	r := []rune(text)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// words counts whitespace-separated words: the scripted model's token unit.
func words(s string) int64 { return int64(len(strings.Fields(s))) }

// inputWords is the request's input token count: words of the instructions, of every message text and of every
// tool result output.
func inputWords(req harness.Request) int64 {
	n := words(req.Instructions)
	for _, m := range req.Messages {
		n += words(m.Text)
		for _, r := range m.Results {
			n += words(r.Output)
		}
	}
	return n
}

// stream replays precomputed parts.
type stream struct {
	ctx   context.Context
	parts []harness.Part
	next  int
	fail  error
	// delay is waited once, before the first part (Rule.DelayMS).
	delay time.Duration
	// chunkDelay is waited before every text part after the first (Rule.ChunkDelayMS).
	chunkDelay time.Duration
}

func (s *stream) Next() (harness.Part, error) {
	wait := s.delay
	s.delay = 0
	if s.next > 0 && s.next < len(s.parts) && s.parts[s.next].Kind == harness.PartText {
		wait = s.chunkDelay
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-s.ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	if err := s.ctx.Err(); err != nil {
		return harness.Part{}, err
	}
	if s.next < len(s.parts) {
		s.next++
		return s.parts[s.next-1], nil
	}
	if s.fail != nil {
		return harness.Part{}, s.fail
	}
	return harness.Part{}, io.EOF
}

func (s *stream) Close() error { return nil }
