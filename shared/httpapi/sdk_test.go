package httpapi

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/shared/session"
)

// TestOfficialClientSmoke drives the handler with the official Go SDK (on the in-memory store, no runtime):
// agent create/get/list, session create, a creation stream, event post, turn and item lists, and the error
// fields the SDK decodes. Full-stack behaviour is tests/e2e's job.
func TestOfficialClientSmoke(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey(testKey), option.WithMaxRetries(0))

	ag, err := client.Beta.Agents.New(ctx, openai.BetaAgentNewParams{Model: "gpt-x", Name: openai.String("weather")})
	if err != nil {
		t.Fatalf("Agents.New: %v", err)
	}
	if got, err := client.Beta.Agents.Get(ctx, ag.ID); err != nil || got.Name != "weather" {
		t.Fatalf("Agents.Get: %+v %v", got, err)
	}
	page, err := client.Beta.Agents.List(ctx, openai.BetaAgentListParams{})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("Agents.List: %v %v", page, err)
	}

	s, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{
		AgentID:     openai.String(ag.ID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}},
	})
	if err != nil || s.Status != "idle" {
		t.Fatalf("Sessions.New: %+v %v", s, err)
	}

	stream := client.Beta.Agents.Sessions.NewStreaming(ctx, openai.BetaAgentSessionNewParams{
		AgentID:     openai.String(ag.ID),
		Environment: openai.EnvironmentParamUnion{OfParamNone: &openai.EnvironmentParamNone{}},
		Input:       openai.BetaAgentSessionNewParamsInputUnion{OfString: openai.String("hi")},
	})
	if !stream.Next() {
		t.Fatalf("creation stream: %v", stream.Err())
	}
	first := stream.Current()
	if first.Type != session.EventSessionCreated || first.Session.ID == "" {
		t.Fatalf("first event %s", first.RawJSON())
	}
	sid := first.Session.ID
	_ = stream.Close()

	err = client.Beta.Agents.Sessions.Events.New(ctx, sid, openai.BetaAgentSessionEventNewParams{
		Events: []openai.AgentSessionInputParamUnion{{OfParamAgentSessionInputCancel: &openai.AgentSessionInputParamAgentSessionInputCancel{}}},
	})
	if err != nil {
		t.Fatalf("Events.New: %v", err)
	}
	turns, err := client.Beta.Agents.Sessions.Turns.List(ctx, sid, openai.BetaAgentSessionTurnListParams{})
	if err != nil || len(turns.Data) != 1 || turns.Data[0].Status != "cancelled" {
		t.Fatalf("Turns.List: %+v %v", turns, err)
	}
	items, err := client.Beta.Agents.Sessions.Turns.Items.List(ctx, sid, turns.Data[0].ID, openai.BetaAgentSessionTurnItemListParams{})
	if err != nil || len(items.Data) != 1 {
		t.Fatalf("Turns.Items.List: %+v %v", items, err)
	}

	_, err = client.Beta.Agents.Get(ctx, "agent_missing")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "not_found_error" || apiErr.Message != "Resource not found." {
		t.Fatalf("missing agent error: %v", err)
	}
}
