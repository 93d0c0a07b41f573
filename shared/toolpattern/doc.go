// Package toolpattern parses and matches tool-name patterns in the AgentCore `allowedTools` grammar
// (docs/tools.md "allowedTools patterns"). It is pure logic: no I/O, no front-door types.
//
// A pattern is 1–64 characters and has one of these forms (`*` in a name part is a glob matching any run of
// characters, case-sensitive; no other character is special):
//
//   - every tool
//     name, glob         a tool that is not an MCP tool (builtin, function / inline function) by its name
//     @builtin           every builtin tool
//     @builtin/name      a builtin tool by name (glob allowed)
//     @server            every tool of the MCP servers whose label matches (glob allowed, e.g. "@*-mcp")
//     @server/tool       a tool of such a server by name (globs allowed in both parts)
//
// The server part "builtin" is reserved for the builtin tools: "@builtin…" never matches an MCP server, and a
// server glob such as "@*" never matches a builtin tool. The parser is stricter than the bare grammar in one
// place: "@" alone and "@/…" (an empty server part) are rejected. A List (parsed []string) allows a tool when any of its
// patterns matches; a nil List allows every tool, an empty one none.
package toolpattern
