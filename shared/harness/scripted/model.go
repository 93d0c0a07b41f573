package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/script"
	"github.com/baton-run/baton/shared/session"
)

// Model is the scripted model of one Session: its parsed script. It is safe for concurrent use.
type Model struct {
	script *script.Script
}

var _ harness.Model = (*Model)(nil)

// New is the harness.Provider of protocol "scripted": it parses cfg.XBaton.Script (absent = the empty script).
// Errors: the script is invalid (the message names the member).
func New(cfg agent.Config) (harness.Model, error) {
	var raw json.RawMessage
	if cfg.XBaton != nil {
		raw = cfg.XBaton.Script
	}
	s, err := script.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid x_baton.script: %w", err)
	}
	return &Model{script: s}, nil
}

// Register adds the scripted provider to p under harness.ProtocolScripted.
func Register(p harness.Providers) { p[harness.ProtocolScripted] = New }

// Stream answers one request deterministically (see the package documentation). A matched error rule yields its
// reply deltas, if any, then a *harness.ModelError; a template that fails (e.g. tool_output of a function
// without a result) is a *harness.ModelError at once.
func (m *Model) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, afterTools := conversationData(req)
	var last []string
	if afterTools {
		for _, r := range req.Messages[len(req.Messages)-1].Results {
			last = append(last, r.Name)
		}
	}
	var rule *script.Rule
	for i := range m.script.Rules {
		r := &m.script.Rules[i]
		if match, ok := r.Matches(data, afterTools, last); ok {
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
		chunk = script.DefaultChunkRunes
	}
	var text string
	var calls []harness.Call
	var err error
	switch {
	case rule == nil:
		reply := script.DefaultReply
		if m.script.DefaultReply != nil {
			reply = *m.script.DefaultReply
		}
		text, err = script.Render(reply, data)
	case len(rule.Calls) > 0:
		if rule.Commentary != nil {
			if text, err = script.Render(*rule.Commentary, data); err != nil {
				break
			}
		}
		calls, err = renderCalls(rule.Calls, data, callIDs(req))
	default:
		if rule.Reply != nil {
			text, err = script.Render(*rule.Reply, data)
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

// conversationData extracts the template data of a request and whether the step follows tool results.
func conversationData(req harness.Request) (*script.Data, bool) {
	d := &script.Data{Instructions: req.Instructions, Match: map[string]string{}, ToolNames: []string{}}
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
			t := script.Tool{Index: len(d.Tools) + 1, CallID: r.CallID, Name: r.Name, Output: r.Output, IsError: r.IsError, ArgumentsJSON: "{}"}
			if a, ok := args[r.CallID]; ok && len(a) > 0 {
				t.ArgumentsJSON = string(a)
			}
			t.Arguments, _ = script.DecodeArguments(json.RawMessage(t.ArgumentsJSON))
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

func renderCalls(specs []script.CallSpec, data *script.Data, nextID func() string) ([]harness.Call, error) {
	calls := make([]harness.Call, 0, len(specs))
	for _, spec := range specs {
		raw, err := script.RenderArguments(spec.Arguments, data)
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
