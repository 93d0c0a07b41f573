package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
)

func TestResolveEndpoint(t *testing.T) {
	t.Parallel()
	const rtURL, rtKey = "https://models.internal/v1", "sk-runtime"
	withProvider := func(mp agent.ModelProvider) agent.Config {
		return agent.Config{Model: "agent-model", XBaton: &agent.Extension{ModelProvider: &mp}}
	}
	cases := []struct {
		name string
		cfg  agent.Config
		want Endpoint
	}{
		{"no provider settings use the runtime endpoint and key", agent.Config{Model: "m"}, Endpoint{Model: "m", BaseURL: rtURL, APIKey: rtKey}},
		{"the provider's model wins over the agent's", withProvider(agent.ModelProvider{Model: "pm"}), Endpoint{Model: "pm", BaseURL: rtURL, APIKey: rtKey}},
		{"the runtime's own base_url keeps the runtime key", withProvider(agent.ModelProvider{BaseURL: rtURL}), Endpoint{Model: "agent-model", BaseURL: rtURL, APIKey: rtKey}},
		{"another base_url never gets the runtime key", withProvider(agent.ModelProvider{BaseURL: "http://evil.example/v1"}),
			Endpoint{Model: "agent-model", BaseURL: "http://evil.example/v1", CallerChosen: true}},
		{"another base_url gets the session's own key", withProvider(agent.ModelProvider{BaseURL: "http://vllm:8001/v1", APIKey: "sk-own"}),
			Endpoint{Model: "agent-model", BaseURL: "http://vllm:8001/v1", APIKey: "sk-own", CallerChosen: true}},
		{"the session's key on the runtime endpoint replaces the runtime key", withProvider(agent.ModelProvider{APIKey: "sk-own"}),
			Endpoint{Model: "agent-model", BaseURL: rtURL, APIKey: "sk-own"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, ResolveEndpoint(c.cfg, rtURL, rtKey)); diff != "" {
				t.Errorf("ResolveEndpoint (-want +got):\n%s", diff)
			}
		})
	}
}
