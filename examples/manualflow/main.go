// Command manualflow is the README's manual flow: the same inline-function round trip as examples/quickstart, made
// of separate calls with the official OpenAI Go SDK instead of the Sessions.Stream helper — create a Session, open
// its live event stream, post the user message, answer the required action with a tool result when the Session
// asks, reconnect the stream with Last-Event-ID, and cancel a second turn that waits for a tool result (docs/agents-api.md §2.5,
// §2.6). Run it while `make local` runs (OPENAI_BASE_URL / OPENAI_API_KEY select another stack).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	ctx := context.Background()
	var opts []option.RequestOption
	if os.Getenv("OPENAI_API_KEY") == "" {
		opts = append(opts, option.WithAPIKey("baton-local-key"))
	}
	if os.Getenv("OPENAI_BASE_URL") == "" {
		opts = append(opts, option.WithBaseURL("http://127.0.0.1:8080/v1"))
	}
	client := openai.NewClient(opts...)

	// An agent whose scripted model calls get_weather, then answers with its output.
	agent, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
			})},
	}, option.WithJSONSet("x_baton", map[string]any{"script": map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "weather"},
			"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"}, "reply": `In Paris: {{tool_output "get_weather"}}`},
	}}}))
	check(err)
	sess, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{
		AgentID:     openai.String(agent.ID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}},
	})
	check(err)

	// 1. Open the live event stream first, then post the message: no event of the turn is missed.
	stream := client.Beta.Agents.Sessions.Events.StreamStreaming(ctx, sess.ID)
	check(stream.Err())
	check(client.Beta.Agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{
		Events: []openai.AgentSessionInputParamUnion{userMessage("What's the weather in Paris?")}}))

	var lastEventID string
	for stream.Next() {
		ev := stream.Current()
		lastEventID = ev.EventID
		switch ev.Type {
		case "agent.session.turn.output_text.delta":
			fmt.Print(ev.Delta)
		case "agent.session.requires_action":
			// 2. The Session carries the pending calls; answer each with a tool result (an identical retry is
			// accepted, a different one is 409).
			for _, a := range ev.Session.RequiredActions {
				if a.Type != "function_call" {
					continue
				}
				fmt.Printf("[%s(%v)]\n", a.Name, a.Arguments)
				result := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(a.CallID, true, a.TurnID)
				result.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{
					OfString: openai.String(`{"city":"Paris","temp_c":21}`)}
				check(client.Beta.Agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{
					Events: []openai.AgentSessionInputParamUnion{result}}))
			}
		}
		if ev.Type == "agent.session.turn.completed" {
			break
		}
	}
	check(stream.Err())
	_ = stream.Close()
	fmt.Println()

	// 3. A dropped stream resumes after the last event it delivered: Last-Event-ID replays nothing twice.
	resumed := client.Beta.Agents.Sessions.Events.StreamStreaming(ctx, sess.ID, option.WithHeader("Last-Event-ID", lastEventID))
	check(resumed.Err())
	check(client.Beta.Agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{
		Events: []openai.AgentSessionInputParamUnion{userMessage("And the weather tomorrow?")}}))

	// 4. This time, cancel instead of answering: the turn ends cancelled and the Session is idle again.
	for resumed.Next() {
		ev := resumed.Current()
		switch ev.Type {
		case "agent.session.requires_action":
			check(client.Beta.Agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{
				Events: []openai.AgentSessionInputParamUnion{{OfParamAgentSessionInputCancel: &openai.AgentSessionInputParamAgentSessionInputCancel{}}}}))
		case "agent.session.turn.cancelled", "agent.session.turn.completed":
			fmt.Println("second turn:", strings.TrimPrefix(ev.Type, "agent.session.turn."))
			_ = resumed.Close()
			return
		}
	}
	check(resumed.Err())
}

func userMessage(text string) openai.AgentSessionInputParamUnion {
	return openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText(text)}}})
}

// check prints the API's own error message and exits. The SDK's err.Error() is only "<status> <status text>"; the
// message, code and param Baton sent are on *openai.Error (docs/agents-api.md §5).
func check(err error) {
	if err == nil {
		return
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		log.Fatalf("%d %s (code %s, param %s): %s", apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message)
	}
	log.Fatal(err)
}
