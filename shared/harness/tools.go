package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/session"
	"github.com/baton-run/baton/shared/toolpattern"
)

// ToolSearchName is the name of the tool the harness offers for deferred function discovery when the
// configuration declares `{type:"tool_search"}` (docs/tool-search.md). It takes {"query": string} and returns
// the matching deferred functions' definitions, which are callable from then on.
const ToolSearchName = "tool_search"

// toolSearchTool is the definition the model sees.
var toolSearchTool = Tool{
	Name: ToolSearchName,
	Description: "Search the functions that are not loaded yet by name or description. Every whitespace-separated " +
		"term of the query must occur (ignoring case) in a function's name or description. Matching functions are " +
		"returned with their parameters and can be called from then on.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to look for in function names and descriptions."}},"required":["query"],"additionalProperties":false}`),
}

// callKind says who executes a call the model made.
type callKind int

const (
	// callFunction: an offered function the caller executes (a required action).
	callFunction callKind = iota
	// callSearch: the harness's tool_search.
	callSearch
	// callMCP: an offered HTTP MCP tool the harness calls.
	callMCP
	// callBuiltin: an offered builtin tool the harness runs (Job.Builtins).
	callBuiltin
	// callUnoffered: a name the request did not offer (disallowed, undeclared, an MCP tool of a server that is
	// down, a deferred function not loaded yet). It is never run and never handed to the caller: the model gets
	// an error result (docs/tools.md "Calls of tools that were not offered").
	callUnoffered
)

// mcpTool is an offered MCP tool: its session, original names and compiled input schema (nil = not validated).
type mcpTool struct {
	label  string
	name   string
	sess   MCPSession
	schema *jsonschema.Schema
}

// builtinTool is an offered builtin tool and its compiled input schema (nil = not validated).
type builtinTool struct {
	impl   BuiltinTool
	schema *jsonschema.Schema
}

// mcpRef is a server label and original tool name, for naming a rejected MCP call in its mcp_call item.
type mcpRef struct{ label, name string }

// toolbox is what one activity task offers the model: eager functions, deferred functions once discovered, the
// tool_search tool, the offered builtin tools and the tools of the connected MCP servers, all filtered by the
// configuration's allowedTools patterns (Controls.AllowedTools).
type toolbox struct {
	eager    []Tool
	deferred []Tool
	// loaded holds the deferred functions discovered so far (by tool_search in this task, or called earlier in
	// the Session).
	loaded   map[string]bool
	search   bool
	builtins map[string]builtinTool
	builtinT []Tool
	mcp      map[string]mcpTool
	mcpTools []Tool
	sessions []MCPSession
	// known maps model-facing MCP names the task can attribute to a server (listed tools, including those not
	// offered, and mcp_call items of the history) to their original names.
	known map[string]mcpRef
	// labels are the declared MCP server labels, for attributing "<label>__<tool>" names of servers that are down.
	labels []string
	// now is the set of names offered by the latest request (offered).
	now map[string]bool
}

// openTools builds the toolbox of a run and connects its MCP servers (in parallel). A required server that fails
// to connect or list its tools fails the run with a *ConfigError naming it; an optional one is logged and its
// tools are left out. Controls.AllowedTools that do not parse fail the run with a *ConfigError.
func openTools(ctx context.Context, job Job) (*toolbox, error) {
	var allow *toolpattern.List
	if c := job.Config.Controls; c != nil {
		l, err := toolpattern.ParseList(c.AllowedTools)
		if err != nil {
			return nil, &ConfigError{Cause: err.Error(), Err: err}
		}
		allow = l
	}
	tb := &toolbox{loaded: map[string]bool{}, mcp: map[string]mcpTool{}, known: map[string]mcpRef{},
		search: job.Config.ToolSearch() && allow.Allows(toolpattern.Tool{Kind: toolpattern.Function, Name: ToolSearchName})}
	names := map[string]bool{}
	for _, f := range job.Config.Functions() {
		if !allow.Allows(toolpattern.Tool{Kind: toolpattern.Function, Name: f.Name}) {
			continue
		}
		t := Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters}
		names[f.Name] = true
		if f.DeferLoading && job.Config.ToolSearch() {
			tb.deferred = append(tb.deferred, t)
		} else {
			tb.eager = append(tb.eager, t)
		}
	}
	// A deferred function the Session already called was discovered before (docs/tool-search.md).
	for _, it := range job.History {
		switch it.Type {
		case session.ItemFunctionCall:
			tb.loaded[it.Name] = true
		case session.ItemMCPCall:
			tb.known[MCPToolName(it.ServerLabel, it.Name)] = mcpRef{it.ServerLabel, it.Name}
		}
	}
	if tb.search {
		names[ToolSearchName] = true
	}
	// Builtin tools are offered only when the configuration asks for them and this runtime implements them;
	// declared code interpreter and browser tools must be implemented (docs/tools.md "Builtin tools").
	addBuiltin := func(name string, b BuiltinTool) error {
		d := b.Definition()
		d.Name = name
		schema, err := compileInputSchema(d.Parameters)
		if err != nil {
			return &ConfigError{Cause: fmt.Sprintf("builtin tool %q has an invalid input schema: %v", name, err), Err: err}
		}
		if tb.builtins == nil {
			tb.builtins = map[string]builtinTool{}
		}
		tb.builtins[name] = builtinTool{impl: b, schema: schema}
		names[name] = true
		tb.builtinT = append(tb.builtinT, d)
		return nil
	}
	if job.Config.BuiltinToolsOn() {
		for _, name := range BuiltinToolNames {
			b, ok := job.Builtins[name]
			if !ok || names[name] || !allow.Allows(toolpattern.Tool{Kind: toolpattern.Builtin, Name: name}) {
				continue
			}
			if err := addBuiltin(name, b); err != nil {
				return nil, err
			}
		}
	}
	for _, h := range job.Config.HostedTools() {
		if h.Type == agent.ToolGateway || names[h.Name] || !allow.Allows(toolpattern.Tool{Kind: toolpattern.Function, Name: h.Name}) {
			continue
		}
		b, ok := job.Builtins[h.Name]
		if !ok {
			return nil, &ConfigError{Cause: fmt.Sprintf("this runtime cannot run the %s tool %q", h.Type, h.Name)}
		}
		if err := addBuiltin(h.Name, b); err != nil {
			return nil, err
		}
	}

	servers := job.Config.MCPServers()
	// A declared agentcore_gateway is an MCP server with the declared name as its label (docs/tools.md "Gateway").
	gateways := map[string]*agent.HostedTool{}
	for _, h := range job.Config.HostedTools() {
		if h.Type == agent.ToolGateway {
			gateways[h.Name] = &h
			servers = append(servers, agent.MCPServer{ServerLabel: h.Name})
		}
	}
	if len(servers) == 0 {
		return tb, nil
	}
	log := job.Logger
	if log == nil {
		log = slog.Default()
	}
	type listed struct {
		sess  MCPSession
		tools []MCPTool
		err   error
	}
	results := make([]listed, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		tb.labels = append(tb.labels, srv.ServerLabel)
		wg.Go(func() {
			if job.MCP == nil {
				results[i].err = fmt.Errorf("this runtime has no MCP client")
				return
			}
			cctx, cancel := context.WithTimeout(ctx, MCPConnectTimeout)
			defer cancel()
			headers, err := resolveHeaders(cctx, srv.Headers, job.Credentials)
			if err != nil {
				results[i].err = err
				return
			}
			sess, err := job.MCP.Connect(cctx, MCPServer{Label: srv.ServerLabel, URL: srv.Transport.ServerURL,
				BearerToken: job.Config.MCPBearerTokens[srv.ServerLabel], Headers: headers, Gateway: gateways[srv.ServerLabel]})
			if err != nil {
				results[i].err = err
				return
			}
			tools, err := sess.ListTools(cctx)
			if err != nil {
				_ = sess.Close()
				results[i].err = fmt.Errorf("list tools: %w", err)
				return
			}
			results[i] = listed{sess: sess, tools: tools}
		})
	}
	wg.Wait()
	var failed error
	for i, srv := range servers {
		r := results[i]
		if r.sess != nil {
			tb.sessions = append(tb.sessions, r.sess)
		}
		if r.err != nil {
			if srv.Required && failed == nil {
				failed = &ConfigError{Cause: fmt.Sprintf("required MCP server %q failed to initialize: %v", srv.ServerLabel, r.err), Err: r.err}
			}
			log.Warn("MCP server unavailable; its tools are not offered", "server_label", srv.ServerLabel, "required", srv.Required, "error", r.err)
			continue
		}
		for _, t := range r.tools {
			name := MCPToolName(srv.ServerLabel, t.Name)
			tb.known[name] = mcpRef{srv.ServerLabel, t.Name}
			if !allowed(srv.AllowedTools, t.Name) || !allow.Allows(toolpattern.Tool{Kind: toolpattern.MCP, Server: srv.ServerLabel, Name: t.Name}) {
				continue
			}
			if names[name] {
				log.Warn("MCP tool name collides with another tool; not offered", "server_label", srv.ServerLabel, "tool", t.Name, "name", name)
				continue
			}
			names[name] = true
			params := t.InputSchema
			if len(params) == 0 || string(params) == "null" {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			schema, err := compileInputSchema(params)
			if err != nil {
				log.Warn("MCP tool input schema does not compile; its arguments are not validated", "server_label", srv.ServerLabel, "tool", t.Name, "error", err)
			}
			tb.mcp[name] = mcpTool{label: srv.ServerLabel, name: t.Name, sess: r.sess, schema: schema}
			tb.mcpTools = append(tb.mcpTools, Tool{Name: name, Description: t.Description, Parameters: params})
		}
	}
	if failed != nil {
		tb.close()
		return nil, failed
	}
	return tb, nil
}

// allowed applies allowed_tools: nil permits every tool, an empty list none.
func allowed(list []string, name string) bool {
	if list == nil {
		return true
	}
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

// close ends the MCP sessions.
func (tb *toolbox) close() {
	for _, s := range tb.sessions {
		_ = s.Close()
	}
	tb.sessions = nil
}

// offered returns the tools of the next model request and remembers their names (kind classifies calls against
// them): eager functions in declaration order, the discovered deferred functions in declaration order,
// tool_search (when declared), the builtin tools (BuiltinToolNames order), then the MCP tools (servers in
// declaration order, each server's tools in its listing order).
func (tb *toolbox) offered() []Tool {
	out := append([]Tool(nil), tb.eager...)
	for _, t := range tb.deferred {
		if tb.loaded[t.Name] {
			out = append(out, t)
		}
	}
	if tb.search {
		out = append(out, toolSearchTool)
	}
	out = append(out, tb.builtinT...)
	out = append(out, tb.mcpTools...)
	tb.now = make(map[string]bool, len(out))
	for _, t := range out {
		tb.now[t.Name] = true
	}
	return out
}

// kind classifies a call by its name against the tools the latest request offered: tool_search, MCP and builtin
// tools run in the harness, an offered function goes to the caller, and any other name is callUnoffered.
func (tb *toolbox) kind(name string) callKind {
	if !tb.now[name] {
		return callUnoffered
	}
	if tb.search && name == ToolSearchName {
		return callSearch
	}
	if _, ok := tb.mcp[name]; ok {
		return callMCP
	}
	if _, ok := tb.builtins[name]; ok {
		return callBuiltin
	}
	return callFunction
}

// mcpRefOf attributes a model-facing name to an MCP server tool when it can: a tool a server listed in this task
// (also when not offered), a tool of an mcp_call item in the history, or "<label>__<tool>" for a declared label
// (the server may be down). ok is false for every other name.
func (tb *toolbox) mcpRefOf(name string) (mcpRef, bool) {
	if r, ok := tb.known[name]; ok {
		return r, true
	}
	for _, l := range tb.labels {
		if rest, ok := strings.CutPrefix(name, l+MCPToolSeparator); ok && rest != "" {
			return mcpRef{l, rest}, true
		}
	}
	return mcpRef{}, false
}

// searchResult is tool_search's output: {"functions":[{type, name, description, parameters}, …]}.
type searchResult struct {
	Functions []searchHit `json:"functions"`
}

type searchHit struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// searchTools runs tool_search: arguments {"query": string}. A deferred function matches when every
// whitespace-separated term of the query occurs in its name or description, ignoring case (an empty query matches
// every deferred function). Matches become loaded. The result is the JSON text of searchResult, in declaration
// order; malformed arguments give an error text the model reads as a failed result.
func (tb *toolbox) searchTools(arguments json.RawMessage) (string, bool) {
	var args struct {
		Query *string `json:"query"`
	}
	if len(arguments) > 0 {
		if err := json.Unmarshal(arguments, &args); err != nil {
			return "tool_search: arguments must be an object {\"query\": string}", true
		}
	}
	if args.Query == nil {
		return "tool_search: the argument \"query\" (a string) is required", true
	}
	terms := strings.Fields(strings.ToLower(*args.Query))
	res := searchResult{Functions: []searchHit{}}
	for _, t := range tb.deferred {
		hay := strings.ToLower(t.Name + "\n" + t.Description)
		match := true
		for _, term := range terms {
			if !strings.Contains(hay, term) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		tb.loaded[t.Name] = true
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		res.Functions = append(res.Functions, searchHit{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	b, err := json.Marshal(res)
	if err != nil {
		return "tool_search: " + err.Error(), true
	}
	return string(b), false
}
