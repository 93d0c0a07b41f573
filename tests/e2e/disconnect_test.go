package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/baton-run/baton/tests/stack"
)

// TestAClientThatDisconnectsAfterSendingAResultStillResumesTheTurn: a client writes the tool result that completes
// the round and closes its connection at once, without reading the answer. Once the result is stored, the turn
// resumes and completes with no further request: neither the commit nor the work that follows it depends on the
// request's connection.
func TestAClientThatDisconnectsAfterSendingAResultStillResumesTheTurn(t *testing.T) {
	t.Parallel()
	st, client := stackClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessionID, rec, turnID, actions := pendingTurn(t, ctx, client, "weather in Paris")
	store := stack.Deps(st, nil).Store
	u, err := url.Parse(st.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"events": []any{map[string]any{"type": "agent.session.input.tool_result",
		"turn_id": turnID, "call_id": actions[0].CallID, "success": true, "output": "sunny"}}})
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/agents/sessions/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nOpenAI-Beta: agents=v1\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", sessionID, u.Host, st.APIKey, len(body), body)
	_ = conn.Close() // gone before the server answers
	stored := false
	for deadline := time.Now().Add(20 * time.Second); !stored && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		results, err := store.GetResults(ctx, sessionID, []string{actions[0].CallID})
		if err != nil {
			t.Fatal(err)
		}
		_, stored = results[actions[0].CallID]
	}
	if !stored {
		t.Fatal("the result of a request that arrived whole was never stored")
	}
	rec.WaitFor(t, 0, "turn.completed", isTurnEvent("agent.session.turn.completed", turnID))
}
