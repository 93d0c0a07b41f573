// Command baton-demo (`make demo`) starts a fresh local stack on free ports and runs one job through each of its
// two front doors, printing a readable transcript of both, then stops the stack. The job: a weather question, a
// caller-side function get_weather the model calls, the caller's result, the answer.
//   - Agents API (README.md), with the official openai-go client: an agent with the function tool
//     get_weather, an idle session, a message, the required action, the tool result, the streamed answer.
//   - AgentCore Harness API (docs/agentcore.md), with the official bedrockagentcorecontrol and bedrockagentcore
//     clients: a harness with the inline function get_weather, an InvokeHarness whose event stream pauses on the
//     toolUse, the follow-up toolResult on the same runtimeSessionId, the streamed answer.
//
// Both use the scripted model (docs/scripted-model.md), so the demo needs no network and no model credentials. It
// needs bin/baton-local and bin/baton-runtime (`make build`).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/local/stackproc"
)

func main() {
	question := flag.String("message", "What's the weather in Paris?", "the user message")
	output := flag.String("tool-output", `{"temp_c":21,"sky":"sunny"}`, "what the caller's get_weather returns")
	timeout := flag.Duration("timeout", 3*time.Minute, "overall time limit")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, *question, *output); err != nil {
		fmt.Fprintln(os.Stderr, "baton-demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, question, toolOutput string) error {
	fmt.Println("Starting a fresh local stack (DynamoDB Local, Step Functions endpoint, Lambda host, API, runtime)…")
	started := time.Now()
	p, err := stackproc.Start(ctx, stackproc.Options{})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("\nStopping the stack.")
		_ = p.Stop()
	}()
	fmt.Printf("Ready in %s: base URL %s, API key %s\n\n", time.Since(started).Round(100*time.Millisecond), p.BaseURL, p.APIKey)

	client := openai.NewClient(option.WithBaseURL(p.BaseURL), option.WithAPIKey(p.APIKey))
	agents := client.Beta.Agents
	agent, err := agents.New(ctx, openai.BetaAgentNewParams{
		Model:        "scripted",
		Instructions: openai.String("Answer weather questions."),
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required": []string{"city"}, "additionalProperties": false,
			})},
	}, option.WithJSONSet("x_baton", map[string]any{
		"model_provider": map[string]any{"protocol": "scripted"},
		"script": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"user_matches": `(?i)weather in (?P<city>\w+)`},
				"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "{{.Match.city}}"}}}},
			map[string]any{"when": map[string]any{"after_tool": "get_weather"},
				"reply": `Here is the weather in {{tool_arg "get_weather" "city"}}: {{tool_output "get_weather"}}`},
		}},
	}))
	if err != nil {
		return explain("create agent", err)
	}
	fmt.Printf("agent    %s  (model scripted, function tool get_weather)\n", agent.ID)
	sess, err := agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{AgentID: openai.String(agent.ID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}}})
	if err != nil {
		return explain("create session", err)
	}
	fmt.Printf("session  %s  (%s)\n\n", sess.ID, sess.Status)

	stream := agents.Sessions.Events.StreamStreaming(ctx, sess.ID)
	defer stream.Close()
	if err := stream.Err(); err != nil {
		return explain("open the event stream", err)
	}
	msg := openai.AgentSessionInputParamOfParamAgentSessionInputMessage([]openai.AgentSessionInputMessageParam{
		{Content: []openai.InputContentParamUnion{openai.InputContentParamOfParamInputText(question)}}})
	if err := agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{msg}}); err != nil {
		return explain("post the message", err)
	}
	fmt.Printf("user       %s\n", question)

	var turnID string
	var resultAt time.Time
	answering, ended := false, false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "agent.session.turn.created":
			if turnID == "" {
				turnID = ev.TurnID
			}
		case "agent.session.turn.item.added":
			if ev.Item.Type == "function_call" {
				args, _ := json.Marshal(ev.Item.Arguments)
				fmt.Printf("assistant  calls %s(%s)  [call %s]\n", ev.Item.Name, args, ev.Item.CallID)
			}
			if ev.Item.Type == "message" && ev.Item.Role == "assistant" {
				fmt.Printf("assistant  ")
				answering = true
			}
		case "agent.session.turn.output_text.delta":
			fmt.Print(ev.Delta) // streamed as it arrives
		case "agent.session.turn.item.done":
			if answering && ev.Item.Type == "message" {
				fmt.Println()
				answering = false
			}
		case "agent.session.requires_action":
			s, err := agents.Sessions.Get(ctx, sess.ID)
			if err != nil {
				return explain("read the session", err)
			}
			fmt.Printf("session    %s, required action:\n", s.Status)
			for _, a := range s.RequiredActions {
				fmt.Printf("           %s\n", a.RawJSON())
				result := openai.AgentSessionInputParamOfParamAgentSessionInputToolResult(a.CallID, true, a.TurnID)
				result.OfParamAgentSessionInputToolResult.Output = openai.AgentFunctionCallOutputParamUnion{OfString: openai.String(toolOutput)}
				resultAt = time.Now()
				if err := agents.Sessions.Events.New(ctx, sess.ID, openai.BetaAgentSessionEventNewParams{Events: []openai.AgentSessionInputParamUnion{result}}); err != nil {
					return explain("post the tool result", err)
				}
				fmt.Printf("caller     tool result for %s: %s\n", a.CallID, toolOutput)
			}
		case "agent.session.turn.completed", "agent.session.turn.failed", "agent.session.turn.cancelled":
			if ev.TurnID == turnID {
				fmt.Printf("turn       %s %s (%s after the tool result)\n", turnID, ev.Turn.Status, time.Since(resultAt).Round(time.Millisecond))
				ended = true
			}
		case "agent.session.idle":
			if ended {
				fmt.Println("session    idle")
			}
		}
		if ended && ev.Type == "agent.session.idle" {
			break
		}
	}
	if err := stream.Err(); err != nil && ctx.Err() == nil && !ended {
		return explain("event stream", err)
	}
	if !ended {
		return errors.New("the stream ended before the turn did")
	}

	page, err := agents.Sessions.Items.List(ctx, sess.ID, openai.BetaAgentSessionItemListParams{Order: openai.BetaAgentSessionItemListParamsOrderAsc})
	if err != nil {
		return explain("list items", err)
	}
	var kinds []string
	for _, it := range page.Data {
		k := it.Type
		if it.Type == "message" {
			k += "(" + string(it.Role) + ")"
		}
		kinds = append(kinds, k)
	}
	fmt.Printf("\nitems      %s\n", strings.Join(kinds, ", "))
	return nil
}

// explain adds the Agents API error body to an SDK error.
func explain(what string, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%s: %d %s: %s", what, apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
