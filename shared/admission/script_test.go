package admission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
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
			c.XBaton.ModelProvider = &agent.ModelProvider{Protocol: protocol, Model: "m"}
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
	t.Run("no script is admitted", func(t *testing.T) {
		t.Parallel()
		if err := (Execution{}).AdmitSession(agent.Config{Model: "m"}); err != nil {
			t.Errorf("AdmitSession = %v, want admitted", err)
		}
	})
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
