// Command quickstart is the README's example: an application using the official OpenAI Go SDK against a local
// Baton (`make local`; set OPENAI_BASE_URL to use another stack), with a function tool answered by the SDK's
// Sessions.Stream helper.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// localBaseURL is the Agents API of `make local`, used when OPENAI_BASE_URL is not set.
const localBaseURL = "http://127.0.0.1:8080/v1"

func main() {
	ctx := context.Background()
	// openai.NewClient reads OPENAI_BASE_URL itself; the local stack (`make local`) is only the default.
	var opts []option.RequestOption
	if os.Getenv("OPENAI_API_KEY") == "" {
		opts = append(opts, option.WithAPIKey("baton-local-key")) // make local's default key
	}
	if os.Getenv("OPENAI_BASE_URL") == "" {
		opts = append(opts, option.WithBaseURL(localBaseURL))
	}
	client := openai.NewClient(opts...)
	agent, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{
		Model: "scripted",
		Tools: []openai.PersistedAgentToolParamUnion{openai.PersistedAgentToolParamOfParamFunction(
			"Current weather for a city", "get_weather", map[string]any{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []string{"city"},
			})},
	}, option.WithJSONSet("x_baton", map[string]any{"script": map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"user_contains": "weather"},
			"calls": []any{map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
		map[string]any{"when": map[string]any{"after_tool": "get_weather"},
			"reply": `In Paris: {{tool_output "get_weather"}}`},
	}}}))
	if err != nil {
		fail(err)
	}
	sess, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{
		AgentID:     openai.String(agent.ID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}},
	})
	if err != nil {
		fail(err)
	}
	stream := client.Beta.Agents.Sessions.Stream(ctx, sess.ID, openai.AgentSessionStreamParams{
		Input: "What's the weather in Paris?",
		ToolHandlers: map[string]openai.AgentToolHandler{
			"get_weather": func(ctx context.Context, args map[string]any) (any, error) {
				return map[string]any{"city": args["city"], "temp_c": 21}, nil
			},
		},
	})
	defer stream.Close()
	result, err := stream.FinalResult()
	if err != nil {
		fail(err)
	}
	fmt.Println(result.OutputText())
}

// fail prints the API's own error message and exits. The SDK's err.Error() is only "<status> <status text>"; the
// message, code and param Baton sent are on *openai.Error (docs/agents-api.md §5).
func fail(err error) {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		log.Fatalf("%d %s (code %s, param %s): %s", apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message)
	}
	log.Fatal(err)
}
