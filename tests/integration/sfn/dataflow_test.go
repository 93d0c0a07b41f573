package sfn_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/sfn"
)

func pass(fields string) string {
	return `{"StartAt":"P","States":{"P":{"Type":"Pass",` + fields + `"End":true}}}`
}

func TestDataFlow(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	cases := []struct {
		name, def, input string
		want             string // output when SUCCEEDED
		wantErr, cause   string // error name and cause substring when FAILED
	}{
		{name: "D1 InputPath selects a subtree", def: pass(`"InputPath":"$.numbers",`), input: `{"title":"t","numbers":{"val1":3,"val2":4}}`, want: `{"val1":3,"val2":4}`},
		{name: "D2 ResultPath overwrites a field", def: pass(`"Result":6,"ResultPath":"$.master.detail",`), input: `{"master":{"detail":[1,2,3]}}`, want: `{"master":{"detail":6}}`},
		{name: "D3 ResultPath creates intermediate objects", def: pass(`"Result":6,"ResultPath":"$.master.result.sum",`), input: `{"master":{"detail":[1,2,3]}}`, want: `{"master":{"detail":[1,2,3],"result":{"sum":6}}}`},
		{name: "D4 ResultPath null keeps the input", def: pass(`"Result":1,"ResultPath":null,`), input: `{"a":1}`, want: `{"a":1}`},
		{name: "D5 InputPath null gives an empty object", def: pass(`"InputPath":null,`), input: `{"a":1}`, want: `{}`},
		{name: "D5 OutputPath null gives an empty object", def: pass(`"OutputPath":null,`), input: `{"a":1}`, want: `{}`},
		{name: "D6 Parameters spec example", def: pass(`"Parameters":{"flagged":true,"parts":{"first.$":"$.vals[0]","last3.$":"$.vals[-3:]"}},`), input: `{"flagged":7,"vals":[0,10,20,30,40,50]}`, want: `{"flagged":true,"parts":{"first":0,"last3":[30,40,50]}}`},
		{name: "D7 fields without .$ are literal", def: pass(`"Parameters":{"lit":"$.x","v.$":"$.x"},`), input: `{"x":1}`, want: `{"lit":"$.x","v":1}`},
		{name: "D8 a union path yields an array", def: pass(`"InputPath":"$.a[0,1]",`), input: `{"a":[1,2,3]}`, want: `[1,2]`},
		{name: "D9 a missing Parameters path is States.Runtime", def: pass(`"Parameters":{"v.$":"$.missing"},`), input: `{}`, wantErr: "States.Runtime", cause: "could not be found in the input"},
		{name: "D10 a missing InputPath is States.Runtime", def: pass(`"InputPath":"$.NoSuch",`), input: `{}`, wantErr: "States.Runtime", cause: "No results for path"},
		{name: "D10 a missing OutputPath is States.Runtime", def: pass(`"OutputPath":"$.NoSuch",`), input: `{}`, wantErr: "States.Runtime", cause: "No results for path"},
		{name: "D11 ResultPath into a string fails", def: pass(`"Result":1,"ResultPath":"$.x",`), input: `"foo"`, wantErr: "States.ResultPathMatchFailure"},
		{name: "P1 Pass Result with ResultPath", def: pass(`"Result":{"x-datum":0.381018,"y-datum":622.2269926397355},"ResultPath":"$.coords",`), input: `{"georefOf":"Home"}`, want: `{"georefOf":"Home","coords":{"x-datum":0.381018,"y-datum":622.2269926397355}}`},
		{name: "intrinsics Format, StringToJson, JsonToString, Array", def: pass(`"Parameters":{"f.$":"States.Format('Your name is {}, we are in the year {}', $.name, 2020)","j.$":"States.StringToJson($.s)","s.$":"States.JsonToString($.o)","a.$":"States.Array('Foo', 2020, $.o, null)","n.$":"States.ArrayGetItem(States.StringSplit($$.Execution.Name, '-'), 0)"},`), input: `{"name":"Foo","s":"{\"number\": 20}","o":{"year":2020}}`, want: `{"f":"Your name is Foo, we are in the year 2020","j":{"number":20},"s":"{\"year\":2020}","a":["Foo",2020,{"year":2020},null],"n":"exec"}`},
		{name: "a Format argument mismatch is States.IntrinsicFailure", def: pass(`"Parameters":{"f.$":"States.Format('{} {}', $.a)"},`), input: `{"a":1}`, wantErr: "States.IntrinsicFailure"},
		{name: "F1 Fail with Error and Cause", def: `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E","Cause":"C"}}}`, input: `{}`, wantErr: "E", cause: "C"},
		{name: "F2 Fail with ErrorPath and intrinsic CausePath", def: `{"StartAt":"F","States":{"F":{"Type":"Fail","ErrorPath":"$.e","CausePath":"States.Format('x{}',$.c)"}}}`, input: `{"e":"Boom","c":"y"}`, wantErr: "Boom", cause: "xy"},
		{name: "Wait SecondsPath negative is States.Runtime", def: `{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$.p","End":true}}}`, input: `{"p":-1}`, wantErr: "States.Runtime", cause: "negative"},
		{name: "Wait Seconds 0 continues", def: `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":0,"Next":"S"},"S":{"Type":"Succeed","OutputPath":"$.k"}}}`, input: `{"k":[1]}`, want: `[1]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			machine := s.createMachine(t, tc.def)
			out := s.await(t, s.start(t, machine, "exec-1", tc.input))
			if tc.wantErr != "" {
				if out.Status != types.ExecutionStatusFailed || aws.ToString(out.Error) != tc.wantErr || !strings.Contains(aws.ToString(out.Cause), tc.cause) {
					t.Fatalf("got %s %q %q, want FAILED %q with cause containing %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause), tc.wantErr, tc.cause)
				}
				if out.Output != nil {
					t.Errorf("a failed execution has output %q", aws.ToString(out.Output))
				}
				return
			}
			if out.Status != types.ExecutionStatusSucceeded {
				t.Fatalf("status %s error %q cause %q", out.Status, aws.ToString(out.Error), aws.ToString(out.Cause))
			}
			diffJSON(t, tc.want, aws.ToString(out.Output))
		})
	}
}

func TestContextObjectReachesParameters(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	machine := s.createMachine(t, pass(`"Parameters":{"name.$":"$$.Execution.Name","id.$":"$$.Execution.Id","sm.$":"$$.StateMachine.Id","state.$":"$$.State.Name","input.$":"$$.Execution.Input","retry.$":"$$.State.RetryCount"},`))
	execARN := s.start(t, machine, "ctx-run", `{"k":[1,2]}`)
	out := s.await(t, execARN)
	want := `{"name":"ctx-run","id":"` + execARN + `","sm":"` + machine + `","state":"P","input":{"k":[1,2]},"retry":0}`
	diffJSON(t, want, aws.ToString(out.Output))
}

func TestHistoryOfTwoPassStates(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	out := s.run(t, `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","End":true}}}`, `{}`)
	events := s.history(t, aws.ToString(out.ExecutionArn))
	want := []string{"ExecutionStarted", "PassStateEntered", "PassStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"}
	if d := cmp.Diff(want, eventTypes(events)); d != "" {
		t.Fatalf("history (-want +got):\n%s", d)
	}
	for i, e := range events {
		if e.Id != int64(i+1) {
			t.Errorf("event %d has id %d", i, e.Id)
		}
	}
	if events[1].StateEnteredEventDetails == nil || aws.ToString(events[1].StateEnteredEventDetails.Name) != "A" {
		t.Errorf("PassStateEntered details %+v", events[1].StateEnteredEventDetails)
	}
	// paging with maxResults 2 and reverse order
	page, err := s.client.GetExecutionHistory(ctx(t), &awssfn.GetExecutionHistoryInput{ExecutionArn: out.ExecutionArn, MaxResults: 2, ReverseOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"ExecutionSucceeded", "PassStateExited"}, eventTypes(page.Events)); d != "" || page.NextToken == nil {
		t.Errorf("reverse page (-want +got):\n%s next=%v", d, page.NextToken)
	}
	_, err = s.client.GetExecutionHistory(ctx(t), &awssfn.GetExecutionHistoryInput{ExecutionArn: out.ExecutionArn, NextToken: aws.String("bogus")})
	mustAs[*types.InvalidToken](t, err)
	stats := s.ep.Stats()
	if got := stats.Executions[aws.ToString(out.ExecutionArn)].StateTransitions; got != 2 {
		t.Errorf("state transitions = %d, want 2", got)
	}
}
