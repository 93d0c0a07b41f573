package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/internal/modeltest"
	"github.com/baton-run/baton/shared/harness/openai"
)

// TestTheRuntimeKeyOnlyGoesToTheRuntimeEndpoint: the runtime's own key (Options.APIKey, OPENAI_API_KEY) is sent
// only to the runtime's own endpoint; an agent that names another base_url gets only the api_key it configures
// itself, never the runtime's — otherwise any project key holder could collect the deployment's provider key.
func TestTheRuntimeKeyOnlyGoesToTheRuntimeEndpoint(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	runtimeEndpoint, callerEndpoint := newFake(t), newFake(t)
	for _, f := range []*fakeOpenAI{runtimeEndpoint, callerEndpoint} {
		f.events = []sse{{name: "response.completed", data: `{"type":"response.completed","response":{"id":"r","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}`}}
	}
	opts := openai.Options{APIKey: "sk-runtime", BaseURL: runtimeEndpoint.URL + "/v1", ClientOptions: []option.RequestOption{option.WithMaxRetries(0)}}
	cases := []struct {
		name     string
		provider agent.ModelProvider
		server   *fakeOpenAI
		wantAuth string
	}{
		{"no base_url uses the runtime endpoint with the runtime key", agent.ModelProvider{}, runtimeEndpoint, "Bearer sk-runtime"},
		{"the runtime's own base_url keeps the runtime key", agent.ModelProvider{BaseURL: runtimeEndpoint.URL + "/v1"}, runtimeEndpoint, "Bearer sk-runtime"},
		{"another base_url without api_key gets no key at all", agent.ModelProvider{BaseURL: callerEndpoint.URL + "/v1"}, callerEndpoint, ""},
		{"another base_url gets the agent's own api_key", agent.ModelProvider{BaseURL: callerEndpoint.URL + "/v1", APIKey: "sk-agent"}, callerEndpoint, "Bearer sk-agent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := harness.Providers{}
			openai.Register(p, opts)
			mp := c.provider
			mp.Protocol, mp.Model = openai.ProtocolResponses, "gpt-test"
			m, err := p.Model(agent.Config{Model: "gpt-test", XBaton: &agent.Extension{ModelProvider: &mp}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := modeltest.Collect(t, m, userRequest("hi")); err != nil {
				t.Fatalf("stream: %v", err)
			}
			c.server.mu.Lock()
			got := c.server.auth
			c.server.auth = "unset"
			c.server.mu.Unlock()
			if got != c.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, c.wantAuth)
			}
		})
	}
}
