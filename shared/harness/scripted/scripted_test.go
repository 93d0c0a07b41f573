package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/harness/scripted"
	"github.com/baton-run/baton/shared/session"
)

func text(s, phase string) harness.Part {
	return harness.Part{Kind: harness.PartText, Text: s, Phase: phase}
}

func fcall(id, name, args string) harness.Part {
	return harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}}
}

func use(in, out int64) harness.Part {
	return harness.Part{Kind: harness.PartUsage, Usage: &session.Usage{InputTokens: in, OutputTokens: out}}
}

func userMsg(s string) harness.Message { return harness.Message{Role: harness.RoleUser, Text: s} }

func calls(c ...harness.Call) harness.Message {
	return harness.Message{Role: harness.RoleAssistant, Calls: c}
}

func results(r ...harness.Result) harness.Message {
	return harness.Message{Role: harness.RoleTool, Results: r}
}

const tripScript = `{
  "chunk_size": 100,
  "rules": [
    {"when": {"user_matches": "(?i)weather in (?P<city>\\w+)"}, "commentary": "Looking up {{.Match.city}}.",
     "calls": [{"name": "get_weather", "arguments": {"city": "{{.Match.city}}", "days": 3, "tags": ["{{index .Match \"0\"}}"]}}]},
    {"when": {"user_contains": "TRIP"}, "calls": [
      {"name": "get_weather", "arguments": {"city": "Paris"}},
      {"name": "get_weather", "arguments": {"city": "Rome"}},
      {"name": "book_hotel", "arguments": {"city": "Rome"}}]},
    {"when": {"after_tool": "book_hotel"}, "reply": "{{tool_output 1}}|{{tool_output 2}}|{{tool_output \"book_hotel\"}}|{{tool_arg 2 \"city\"}}|{{json .UserText}}"},
    {"when": {"after_tool": "get_weather", "user_contains": "weather"}, "calls": [{"name": "get_time", "arguments": {"city": "{{tool_arg \"get_weather\" \"city\"}}"}}]},
    {"when": {"after_tool": "get_time"}, "reply": "{{range .Tools}}{{.Index}}:{{.Name}}={{.Output}}{{if .IsError}}!{{end}} {{end}}"},
    {"when": {"user_contains": "bad ref"}, "reply": "{{tool_output \"missing\"}}"}
  ]
}`

func TestStream(t *testing.T) {
	t.Parallel()
	weatherCall := harness.Call{ID: "call_t1_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	tests := []struct {
		name    string
		script  string
		req     harness.Request
		want    []harness.Part
		wantErr string
	}{
		{
			name:   "no script echoes the user in chunks of 8 runes with usage",
			script: ``,
			req:    harness.Request{Instructions: "be nice", Messages: []harness.Message{userMsg("héllo wörld, ça va")}},
			want: []harness.Part{
				text("You said", "final_answer"), text(": héllo ", "final_answer"), text("wörld, ç", "final_answer"), text("a va", "final_answer"),
				use(6, 6),
			},
		},
		{
			name:   "no matching rule after tools lists every result",
			script: `{"chunk_size":100}`,
			req: harness.Request{Messages: []harness.Message{
				userMsg("go"),
				calls(weatherCall, harness.Call{ID: "c2", Name: "other"}),
				results(harness.Result{CallID: "call_t1_1", Name: "get_weather", Output: "sun"}, harness.Result{CallID: "c2", Name: "other", Output: "x y"}),
			}},
			want: []harness.Part{text("get_weather: sun\nother: x y", "final_answer"), use(4, 5)},
		},
		{
			name:   "regular expression groups fill the commentary and the arguments",
			script: tripScript,
			req:    harness.Request{TurnID: "turn_0001abc", Messages: []harness.Message{userMsg("What is the weather in Lyon?")}},
			want: []harness.Part{
				text("Looking up Lyon.", "commentary"),
				fcall("call_0001abc_1", "get_weather", `{"city":"Lyon","days":3,"tags":["weather in Lyon"]}`),
				use(6, 7),
			},
		},
		{
			name:   "three parallel calls number after the calls already in the conversation",
			script: tripScript,
			req: harness.Request{TurnID: "turn_t2", Messages: []harness.Message{
				userMsg("weather in Oslo"), calls(weatherCall), results(harness.Result{CallID: "call_t1_1", Name: "get_weather", Output: "cold"}),
				{Role: harness.RoleAssistant, Text: "done"}, userMsg("plan my trip"),
			}},
			want: []harness.Part{
				fcall("call_t2_2", "get_weather", `{"city":"Paris"}`),
				fcall("call_t2_3", "get_weather", `{"city":"Rome"}`),
				fcall("call_t2_4", "book_hotel", `{"city":"Rome"}`),
				use(8, 6),
			},
		},
		{
			name:   "after tools the reply embeds outputs by index and name, arguments and the user text",
			script: tripScript,
			req: harness.Request{Messages: []harness.Message{
				userMsg("plan my trip"),
				calls(harness.Call{ID: "a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					harness.Call{ID: "b", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
					harness.Call{ID: "c", Name: "book_hotel", Arguments: json.RawMessage(`{"city":"Rome"}`)}),
				results(harness.Result{CallID: "a", Name: "get_weather", Output: "sun"},
					harness.Result{CallID: "b", Name: "get_weather", Output: "rain"},
					harness.Result{CallID: "c", Name: "book_hotel", Output: "booked"}),
			}},
			want: []harness.Part{text(`sun|rain|booked|Rome|"plan my trip"`, "final_answer"), use(6, 3)},
		},
		{
			name:   "a second round chains calls and the final answer sees every round",
			script: tripScript,
			req: harness.Request{TurnID: "turn_t1", Messages: []harness.Message{
				userMsg("weather in Paris"), calls(weatherCall),
				results(harness.Result{CallID: "call_t1_1", Name: "get_weather", Output: "sun"}),
			}},
			want: []harness.Part{fcall("call_t1_2", "get_time", `{"city":"Paris"}`), use(4, 2)},
		},
		{
			name:   "after_tool rules see results of earlier rounds of the turn",
			script: tripScript,
			req: harness.Request{Messages: []harness.Message{
				userMsg("weather in Paris"), calls(weatherCall),
				results(harness.Result{CallID: "call_t1_1", Name: "get_weather", Output: "sun"}),
				calls(harness.Call{ID: "call_t1_2", Name: "get_time", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
				results(harness.Result{CallID: "call_t1_2", Name: "get_time", Output: "noon", IsError: true}),
			}},
			want: []harness.Part{text("1:get_weather=sun 2:get_time=noon! ", "final_answer"), use(5, 2)},
		},
		{
			name:   "omit_usage emits no usage",
			script: `{"omit_usage":true,"default_reply":"ok"}`,
			req:    harness.Request{Messages: []harness.Message{userMsg("x")}},
			want:   []harness.Part{text("ok", "final_answer")},
		},
		{
			name:   "an empty reply emits only usage",
			script: `{"rules":[{"reply":""}]}`,
			req:    harness.Request{Messages: []harness.Message{userMsg("x")}},
			want:   []harness.Part{use(1, 0)},
		},
		{
			name:    "an error rule streams its reply and then fails",
			script:  `{"chunk_size":2,"rules":[{"when":{"user_contains":"x"},"reply":"abc","error":"boom"}]}`,
			req:     harness.Request{Messages: []harness.Message{userMsg("x")}},
			want:    []harness.Part{text("ab", "final_answer"), text("c", "final_answer")},
			wantErr: "model error: scripted model: boom",
		},
		{
			name:    "a reference to a missing tool result fails",
			script:  tripScript,
			req:     harness.Request{Messages: []harness.Message{userMsg("bad ref")}},
			wantErr: `model error: scripted model: template: script:1:2: executing "script" at <tool_output "missing">: error calling tool_output: no tool result of function "missing" in this turn`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := scripted.New(agent.Config{XBaton: &agent.Extension{Script: json.RawMessage(tc.script)}})
			if err != nil {
				t.Fatal(err)
			}
			var got []harness.Part
			var gotErr error
			st, err := m.Stream(context.Background(), tc.req)
			if err != nil {
				gotErr = err
			} else {
				defer st.Close()
				for {
					p, err := st.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						gotErr = err
						break
					}
					got = append(got, p)
				}
			}
			errText := ""
			if gotErr != nil {
				errText = gotErr.Error()
				var me *harness.ModelError
				if !errors.As(gotErr, &me) {
					t.Errorf("error %v is not a *harness.ModelError", gotErr)
				}
			}
			if errText != tc.wantErr {
				t.Errorf("error = %q, want %q", errText, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamIsDeterministic(t *testing.T) {
	t.Parallel()
	m, err := scripted.New(agent.Config{XBaton: &agent.Extension{Script: json.RawMessage(tripScript)}})
	if err != nil {
		t.Fatal(err)
	}
	req := harness.Request{TurnID: "turn_z", Messages: []harness.Message{userMsg("trip")}}
	drain := func() []harness.Part {
		st, err := m.Stream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var out []harness.Part
		for {
			p, err := st.Next()
			if err != nil {
				return out
			}
			out = append(out, p)
		}
	}
	first := drain()
	for range 5 {
		if diff := cmp.Diff(first, drain()); diff != "" {
			t.Fatalf("second run differs (-first +again):\n%s", diff)
		}
	}
}

func TestStreamStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	m, err := scripted.New(agent.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := m.Stream(ctx, harness.Request{Messages: []harness.Message{userMsg("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := st.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel = %v, want context.Canceled", err)
	}
}
