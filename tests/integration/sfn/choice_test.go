package sfn_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/baton-run/baton/local/sfn"
)

// choice builds a machine whose Choice sends matching input to "Yes" (output "yes") and everything else to
// "No" (output "no"), or, without a default, fails with States.NoChoiceMatched.
func choice(rule string, withDefault bool) string {
	def := ""
	if withDefault {
		def = `,"Default":"No"`
	}
	return `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[` + rule + `]` + def + `},` +
		`"Yes":{"Type":"Pass","Result":"yes","End":true},"No":{"Type":"Pass","Result":"no","End":true}}}`
}

func TestChoice(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	cases := []struct {
		name, rule, input string
		want              string // "yes", "no", or an error name
	}{
		{"C1 nested And matches", `{"And":[{"Variable":"$.type","StringEquals":"Private"},{"Variable":"$.value","NumericGreaterThanEquals":20},{"Variable":"$.value","NumericLessThan":30}],"Next":"Yes"}`, `{"type":"Private","value":22}`, "yes"},
		{"C2 BooleanEquals true", `{"Variable":"$.v","BooleanEquals":true,"Next":"Yes"}`, `{"v":true}`, "yes"},
		{"C2 BooleanEquals on a string is false", `{"Variable":"$.v","BooleanEquals":true,"Next":"Yes"}`, `{"v":"true"}`, "no"},
		{"C2 BooleanEquals on 1 is false", `{"Variable":"$.v","BooleanEquals":true,"Next":"Yes"}`, `{"v":1}`, "no"},
		{"C3 NumericEquals 0 matches 0.0", `{"Variable":"$.v","NumericEquals":0,"Next":"Yes"}`, `{"v":0.0}`, "yes"},
		{"C3 NumericEquals 0 on a string is false", `{"Variable":"$.v","NumericEquals":0,"Next":"Yes"}`, `{"v":"0"}`, "no"},
		{"C3 NumericGreaterThanPath", `{"Variable":"$.v","NumericGreaterThanPath":"$.t","Next":"Yes"}`, `{"v":5,"t":4}`, "yes"},
		{"C4 StringEquals does not trim", `{"Variable":"$.v","StringEquals":" ","Next":"Yes"}`, `{"v":"     "}`, "no"},
		{"C5 StringMatches with a star", `{"Variable":"$.v","StringMatches":"log-*.txt","Next":"Yes"}`, `{"v":"log-2024.txt"}`, "yes"},
		{"C5 StringMatches escaped star is literal", `{"Variable":"$.v","StringMatches":"a\\*b","Next":"Yes"}`, `{"v":"axb"}`, "no"},
		{"C6 IsPresent on a missing field", `{"Variable":"$.v","IsPresent":false,"Next":"Yes"}`, `{}`, "yes"},
		{"C6 IsPresent on null", `{"Variable":"$.v","IsPresent":true,"Next":"Yes"}`, `{"v":null}`, "yes"},
		{"C6 IsNull on 0", `{"Variable":"$.v","IsNull":true,"Next":"Yes"}`, `{"v":0}`, "no"},
		{"C7 StringEquals on a missing field fails", `{"Variable":"$.v","StringEquals":"x","Next":"Yes"}`, `{}`, "States.Runtime"},
		{"C9 TimestampGreaterThan", `{"Variable":"$.v","TimestampGreaterThan":"2001-01-01T12:00:00Z","Next":"Yes"}`, `{"v":"2002-01-01T00:00:00Z"}`, "yes"},
		{"C9 a date without time is not a timestamp", `{"Variable":"$.v","TimestampGreaterThan":"2001-01-01T12:00:00Z","Next":"Yes"}`, `{"v":"2002-01-01"}`, "no"},
		{"C10 And stops at the first false operand", `{"And":[{"Variable":"$.v","IsPresent":true},{"Variable":"$.v","StringEquals":"x"}],"Next":"Yes"}`, `{}`, "no"},
		{"C10 Not negates", `{"Not":{"Variable":"$.v","StringEquals":"x"},"Next":"Yes"}`, `{"v":"y"}`, "yes"},
		{"Or matches its second operand", `{"Or":[{"Variable":"$.v","NumericEquals":1},{"Variable":"$.v","NumericEquals":2}],"Next":"Yes"}`, `{"v":2}`, "yes"},
		{"Variable on the context object", `{"Variable":"$$.Execution.Name","StringEquals":"choice-run","Next":"Yes"}`, `{}`, "yes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := s.await(t, s.start(t, s.createMachine(t, choice(tc.rule, true)), "choice-run", tc.input))
			got := aws.ToString(out.Error)
			if out.Status == types.ExecutionStatusSucceeded {
				got = strings.Trim(aws.ToString(out.Output), `"`)
			}
			if got != tc.want {
				t.Fatalf("got %s %q (cause %q), want %q", out.Status, got, aws.ToString(out.Cause), tc.want)
			}
		})
	}
	t.Run("C8 no match and no Default fails", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, choice(`{"Variable":"$.v","NumericEquals":1,"Next":"Yes"}`, false), `{"v":2}`)
		if out.Status != types.ExecutionStatusFailed || aws.ToString(out.Error) != "States.NoChoiceMatched" {
			t.Fatalf("got %s %q", out.Status, aws.ToString(out.Error))
		}
	})
}
