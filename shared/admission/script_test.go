package admission

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
)

// badScripts are x_baton.script values script.Parse rejects, with the parse error each message repeats.
var badScripts = []struct {
	name, script, parseError string
}{
	{"a bad regexp in user_matches is rejected", `{"rules":[{"when":{"user_matches":"(weather"},"reply":"x"}]}`,
		"rules[0].when.user_matches: error parsing regexp: missing closing ): `(weather`"},
	{"an unterminated template in reply is rejected", `{"rules":[{"when":{},"reply":"{{.UserText"}]}`,
		"rules[0].reply: template: script:1: unclosed action"},
	{"an unknown member is rejected", `{"rules":[],"chunk":8}`,
		`json: unknown field "chunk"`},
	{"a call without a name is rejected", `{"rules":[{"when":{},"calls":[{"arguments":{}}]}]}`,
		"rules[0].calls[0].name: required"},
	{"a non-object script is rejected", `[1]`,
		"json: cannot unmarshal array into Go value of type script.Script"},
}

func TestAgentScriptIsCheckedOnCreateAndUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range badScripts {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := badReq(ire, "x_baton.script", "Invalid 'x_baton.script': "+tc.parseError+".")
			_, err := AgentCreate([]byte(`{"model":"m","x_baton":{"script":` + tc.script + `}}`))
			if diff := cmp.Diff(want, asWant(t, err)); diff != "" {
				t.Errorf("create (-want +got):\n%s", diff)
			}
			_, err = AgentUpdate([]byte(`{"x_baton":{"script":` + tc.script + `}}`))
			if diff := cmp.Diff(want, asWant(t, err)); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a valid script is saved", func(t *testing.T) {
		t.Parallel()
		cfg, err := AgentCreate([]byte(`{"model":"m","x_baton":{"script":{"rules":[{"when":{"user_matches":"(?i)hi"},"reply":"{{.UserText}}"}]}}}`))
		if err != nil || cfg.XBaton == nil || len(cfg.XBaton.Script) == 0 {
			t.Errorf("AgentCreate = %+v, %v; want the script saved", cfg.XBaton, err)
		}
	})
}

func TestExecutionChecksTheScriptOfTheScriptedModel(t *testing.T) {
	t.Parallel()
	withScript := func(protocol, script string) agent.Config {
		c := agent.Config{Model: "m", XBaton: &agent.Extension{Script: json.RawMessage(script)}}
		if protocol != "" {
			c.XBaton.ModelProvider = &agent.ModelProvider{Protocol: protocol}
		}
		return c
	}
	for _, tc := range badScripts {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := badReq(ire, "agent.x_baton.script", "Invalid 'agent.x_baton.script': "+tc.parseError+".")
			for _, protocol := range []string{"", "scripted"} {
				err := Execution{}.AdmitSession(withScript(protocol, tc.script))
				if diff := cmp.Diff(want, asWant(t, err)); diff != "" {
					t.Errorf("protocol %q (-want +got):\n%s", protocol, diff)
				}
			}
		})
	}
	t.Run("another provider ignores the script", func(t *testing.T) {
		t.Parallel()
		if err := (Execution{}).AdmitSession(withScript("openai_chat", `{"rules":[{"when":{"user_matches":"("},"reply":"x"}]}`)); err != nil {
			t.Errorf("AdmitSession = %v, want admitted", err)
		}
	})
	t.Run("a valid script is admitted", func(t *testing.T) {
		t.Parallel()
		if err := (Execution{}).AdmitSession(withScript("", `{"rules":[{"when":{"user_contains":"x"},"reply":"y"}]}`)); err != nil {
			t.Errorf("AdmitSession = %v, want admitted", err)
		}
	})
	t.Run("the scripted model without a script is admitted", func(t *testing.T) {
		t.Parallel()
		if err := (Execution{}).AdmitSession(agent.Config{Model: agent.ScriptedModel}); err != nil {
			t.Errorf("AdmitSession = %v, want admitted", err)
		}
	})
}

// TestAModelIsNeverFakedByTheScriptedModel: a configuration that selects no provider is refused naming what to set
// (docs/model-providers.md "Choosing a model"); the scripted model answers only when selected.
func TestAModelIsNeverFakedByTheScriptedModel(t *testing.T) {
	t.Parallel()
	err := Execution{}.AdmitSession(agent.Config{Model: "gpt-5"})
	want := badReq(ire, "agent.x_baton.model_provider", "No model provider is selected for model 'gpt-5': set 'agent.x_baton.model_provider' (protocol bedrock_converse, openai_responses, openai_chat, anthropic_messages), set the deployment's default provider (BATON_MODEL_PROVIDER), or use model 'scripted' for the scripted test model.")
	if diff := cmp.Diff(want, asWant(t, err)); diff != "" {
		t.Errorf("gpt-5 without a provider (-want +got):\n%s", diff)
	}
	for _, cfg := range []agent.Config{
		{Model: "scripted"},
		{Model: "gpt-5", XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_responses"}}},
		{Model: "any", XBaton: &agent.Extension{Script: json.RawMessage(`{"rules":[{"reply":"x"}]}`)}},
	} {
		if err := (Execution{}).AdmitSession(cfg); err != nil {
			t.Errorf("AdmitSession(%+v) = %v, want admitted", cfg, err)
		}
	}
	// Saving an Agent refuses what its provider takes no value for, naming the member.
	for body, param := range map[string]string{
		`{"model":"m","x_baton":{"model_provider":{"protocol":"bedrock_converse","base_url":"https://h/v1"}}}`: "x_baton.model_provider.base_url",
		`{"model":"m","x_baton":{"model_provider":{"protocol":"bedrock_converse","api_key":"k"}}}`:             "x_baton.model_provider.api_key",
		`{"model":"m","x_baton":{"model_provider":{"protocol":"scripted","model":"x"}}}`:                       "x_baton.model_provider.model",
	} {
		_, err := AgentCreate([]byte(body))
		var e *engine.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Param != param {
			t.Errorf("AgentCreate(%s) = %v, want 400 with param %s", body, err, param)
		}
	}
}

func TestScriptErrorTextRepeatsOnlyEchoableText(t *testing.T) {
	t.Parallel()
	long := `{"rules":[{"when":{"user_matches":"(` + strings.Repeat("a", 300) + `"},"reply":"x"}]}`
	err := checkScript("x_baton.script", json.RawMessage(long))
	want := badReq(ire, "x_baton.script", "Invalid 'x_baton.script': rules[0].when.user_matches: invalid.")
	if diff := cmp.Diff(want, asWant(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
