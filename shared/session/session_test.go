package session

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTheSessionViewShowsNoMCPHeaders(t *testing.T) {
	t.Parallel()
	tools := []json.RawMessage{
		json.RawMessage(`{"type":"mcp","server_label":"exa","transport":{"type":"http","server_url":"https://mcp.example.com/mcp"},"headers":{"x-api-key":"literal-secret"}}`),
		json.RawMessage(`{"type":"tool_search"}`),
		json.RawMessage(`{"type":"function","name":"f","description":"d","parameters":{"type":"object"}}`),
	}
	got := withoutToolSearch(tools)
	if len(got) != 2 {
		t.Fatalf("rendered %d tools, want 2 (tool_search left out)", len(got))
	}
	if strings.Contains(string(got[0]), "literal-secret") || strings.Contains(string(got[0]), "headers") {
		t.Errorf("the MCP declaration still carries its headers: %s", got[0])
	}
	if !strings.Contains(string(got[0]), `"server_url":"https://mcp.example.com/mcp"`) {
		t.Errorf("the MCP declaration lost its other members: %s", got[0])
	}
}
