package scripted_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
)

// FuzzScript: any x_baton.script either fails to parse or answers a user step and a tool step without panicking.
func FuzzScript(f *testing.F) {
	f.Add(tripScript, "weather in Paris")
	f.Add(`{"rules":[{"error":"x","reply":"{{.UserText}}"}],"chunk_size":1}`, "héllo")
	f.Add(`{"default_reply":"{{tool_output 3}}"}`, "")
	f.Fuzz(func(t *testing.T, script, userText string) {
		m, err := scripted.New(agent.Config{XBaton: &agent.Extension{Script: json.RawMessage(script)}})
		if err != nil {
			return
		}
		for _, req := range []harness.Request{
			{TurnID: "turn_f", Messages: []harness.Message{{Role: harness.RoleUser, Text: userText}}},
			{TurnID: "turn_f", Messages: []harness.Message{
				{Role: harness.RoleUser, Text: userText},
				{Role: harness.RoleAssistant, Calls: []harness.Call{{ID: "c", Name: "get_weather", Arguments: json.RawMessage(`{"city":"x"}`)}}},
				{Role: harness.RoleTool, Results: []harness.Result{{CallID: "c", Name: "get_weather", Output: userText}}},
			}},
		} {
			st, err := m.Stream(context.Background(), req)
			if err != nil {
				continue
			}
			for range 10000 {
				if _, err := st.Next(); err != nil {
					break
				}
			}
		}
	})
}
