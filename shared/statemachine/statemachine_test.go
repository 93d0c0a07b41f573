package statemachine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/statemachine"
)

// definitions reads every state machine definition of the repository.
func definitions(t *testing.T) map[string]map[string]any {
	t.Helper()
	paths, err := filepath.Glob("../../statemachines/*.asl.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no state machine definitions found (%v)", err)
	}
	out := map[string]map[string]any{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var def map[string]any
		if err := json.Unmarshal(b, &def); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = def
	}
	return out
}

// errorNames collects every error name a definition uses: Retry/Catch ErrorEquals entries and the Error of Fail
// states and of Pass results.
func errorNames(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch {
			case k == "ErrorEquals":
				for _, n := range e.([]any) {
					into[n.(string)] = true
				}
			case k == "Error":
				if s, ok := e.(string); ok {
					into[s] = true
				}
			default:
				errorNames(e, into)
			}
		}
	case []any:
		for _, e := range x {
			errorNames(e, into)
		}
	}
}

func TestEveryBatonErrorNameInTheDefinitionsIsAGoConstant(t *testing.T) {
	t.Parallel()
	for file, def := range definitions(t) {
		names := map[string]bool{}
		errorNames(def, names)
		var baton []string
		for n := range names {
			if strings.HasPrefix(n, "Baton.") {
				baton = append(baton, n)
			} else if !strings.HasPrefix(n, "States.") && !strings.HasPrefix(n, "Lambda.") {
				t.Errorf("%s uses error name %q, neither Baton.*, States.* nor Lambda.*", file, n)
			}
		}
		sort.Strings(baton)
		if len(baton) == 0 {
			t.Errorf("%s names no Baton error; the walk is broken", file)
		}
		for _, n := range baton {
			if !slices.Contains(statemachine.ErrorNames, n) {
				t.Errorf("%s uses %q, which is not in statemachine.ErrorNames", file, n)
			}
		}
	}
}

func TestTheTurnDefinitionRetriesRuntimeIncapableAndEndsWithTurnFailed(t *testing.T) {
	t.Parallel()
	states := definitions(t)["turn.asl.json"]["States"].(map[string]any)
	run, ok := states["Run"].(map[string]any)
	if !ok {
		t.Fatal("no Run state found")
	}
	if got := run["Resource"]; got != "${ActivityArn}" {
		t.Errorf("Run.Resource = %v, want the ${ActivityArn} substitution (one state machine per harness kind)", got)
	}
	retry := run["Retry"].([]any)[0].(map[string]any)["ErrorEquals"].([]any)
	if diff := cmp.Diff([]any{statemachine.ErrorRuntimeIncapable}, retry); diff != "" {
		t.Errorf("Run retries (-want +got):\n%s", diff)
	}
	if got := states["TurnFailed"].(map[string]any)["Error"]; got != statemachine.ErrorTurnFailed {
		t.Errorf("TurnFailed.Error = %v, want %s", got, statemachine.ErrorTurnFailed)
	}
	for name, s := range states {
		if s.(map[string]any)["Type"] == "Choice" {
			if strings.Contains(mustJSON(t, s), "$.harness") {
				t.Errorf("Choice %s routes on $.harness; each harness kind has its own state machine", name)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTheNormalPathTakesThreeTransitionsAndSixWithOneRoundTrip walks the definition as the activity outputs
// steer it: a completed turn the runtime settled, and one inline round trip before it.
func TestTheNormalPathTakesThreeTransitionsAndSixWithOneRoundTrip(t *testing.T) {
	t.Parallel()
	def := definitions(t)["turn.asl.json"]
	states := def["States"].(map[string]any)
	walk := func(outputs ...statemachine.ActivityOutput) []string {
		var path []string
		name := def["StartAt"].(string)
		var run map[string]any
		for len(path) < 20 {
			path = append(path, name)
			st := states[name].(map[string]any)
			switch st["Type"] {
			case "Succeed", "Fail":
				return path
			case "Choice":
				next, _ := st["Default"].(string)
				for _, c := range st["Choices"].([]any) {
					if choiceMatches(t, c.(map[string]any), run) {
						next = c.(map[string]any)["Next"].(string)
						break
					}
				}
				name = next
				continue
			}
			if name == "Run" {
				if len(outputs) == 0 {
					t.Fatalf("path %v runs more often than the test gave outputs", path)
				}
				raw := mustJSON(t, outputs[0])
				outputs = outputs[1:]
				run = nil
				if err := json.Unmarshal([]byte(raw), &run); err != nil {
					t.Fatal(err)
				}
			}
			name = st["Next"].(string)
		}
		t.Fatalf("no end state after %v", path)
		return nil
	}
	done := statemachine.ActivityOutput{Status: statemachine.StatusCompleted, Settled: true}
	if got, want := walk(done), []string{"Run", "AfterRun", "Done"}; !slices.Equal(got, want) {
		t.Errorf("completed turn: %v, want %v", got, want)
	}
	park := statemachine.ActivityOutput{Status: statemachine.StatusRequiresAction, Round: 1}
	if got, want := walk(park, done), []string{"Run", "AfterRun", "AwaitResults", "Run", "AfterRun", "Done"}; !slices.Equal(got, want) {
		t.Errorf("one round trip: %v, want %v", got, want)
	}
	unsettled := statemachine.ActivityOutput{Status: statemachine.StatusCompleted}
	if got, want := walk(unsettled), []string{"Run", "AfterRun", "Settle", "Settled", "Done"}; !slices.Equal(got, want) {
		t.Errorf("a completion the runtime did not commit: %v, want %v (Settle commits it)", got, want)
	}
}

// choiceMatches evaluates the JSONPath Choice rules the turn definition uses (StringEquals, BooleanEquals, And)
// on $.run; it fails the test on any other operator, so a definition change cannot slip past the walk.
func choiceMatches(t *testing.T, rule, run map[string]any) bool {
	t.Helper()
	if and, ok := rule["And"].([]any); ok {
		for _, r := range and {
			if !choiceMatches(t, r.(map[string]any), run) {
				return false
			}
		}
		return true
	}
	v, _ := rule["Variable"].(string)
	member, ok := strings.CutPrefix(v, "$.run.")
	if !ok {
		if v == "$.settled.status" {
			return rule["StringEquals"] == statemachine.StatusCompleted // Settle of a completed run answers completed
		}
		t.Fatalf("choice on %q: the walk knows only $.run.* and $.settled.status", v)
	}
	got, present := run[member]
	if !present {
		t.Fatalf("choice on %s, which the activity output %v lacks (a missing variable is a States.Runtime error)", v, run)
	}
	switch {
	case rule["StringEquals"] != nil:
		return got == rule["StringEquals"]
	case rule["BooleanEquals"] != nil:
		return got == rule["BooleanEquals"]
	}
	t.Fatalf("choice rule %v: operator not known to the walk", rule)
	return false
}

// jsonNames are the JSON member names of a struct type's fields.
func jsonNames(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// parameterNames are the member names of an ASL Parameters/Payload object, without the ".$" path suffix.
func parameterNames(params map[string]any) []string {
	var out []string
	for k := range params {
		out = append(out, strings.TrimSuffix(k, ".$"))
	}
	sort.Strings(out)
	return out
}

func TestThePayloadTypesMatchTheDefinition(t *testing.T) {
	t.Parallel()
	states := definitions(t)["turn.asl.json"]["States"].(map[string]any)
	state := func(name string) map[string]any { return states[name].(map[string]any) }

	if diff := cmp.Diff(jsonNames(statemachine.ActivityInput{}), parameterNames(state("Run")["Parameters"].(map[string]any))); diff != "" {
		t.Errorf("Run Parameters vs ActivityInput (-go +asl):\n%s", diff)
	}
	park := state("AwaitResults")["Parameters"].(map[string]any)["Payload"].(map[string]any)
	if diff := cmp.Diff(jsonNames(statemachine.ParkInput{}), parameterNames(park)); diff != "" {
		t.Errorf("AwaitResults Payload vs ParkInput (-go +asl):\n%s", diff)
	}
	settle := state("Settle")["Parameters"].(map[string]any)["Payload"].(map[string]any)
	if diff := cmp.Diff(jsonNames(statemachine.SettleInput{}), parameterNames(settle)); diff != "" {
		t.Errorf("Settle Payload vs SettleInput (-go +asl):\n%s", diff)
	}
	if got := state("AfterRun")["Choices"].([]any)[0].(map[string]any)["StringEquals"]; got != statemachine.StatusRequiresAction {
		t.Errorf("AfterRun tests %v, want %s", got, statemachine.StatusRequiresAction)
	}
	if got := state("Settled")["Choices"].([]any)[0].(map[string]any)["StringEquals"]; got != statemachine.StatusCompleted {
		t.Errorf("Settled tests %v, want %s", got, statemachine.StatusCompleted)
	}
	// The execution input's members are what the states read: $.session_id, $.turn_id, $.harness, $.timeouts.*.
	raw, _ := json.Marshal(statemachine.ExecutionInput{})
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	def, _ := json.Marshal(states)
	for k := range in {
		if !strings.Contains(string(def), `"$.`+k) {
			t.Errorf("ExecutionInput member %q is read by no state", k)
		}
	}
	for _, k := range jsonNames(statemachine.Timeouts{}) {
		if !strings.Contains(string(def), `"$.timeouts.`+k+`"`) {
			t.Errorf("Timeouts member %q is read by no state", k)
		}
	}
}

func TestRunOutcomeDecodesWhatReachesSettle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, run string
		completed bool
	}{
		{"a completed activity output is completed", `{"status":"completed"}`, true},
		{"a Catch error object is not completed", `{"Error":"Baton.ModelError","Cause":"boom"}`, false},
		{"a completion the runtime did not commit is completed", `{"status":"completed","settled":false}`, true},
		{"a reconciler outcome is not completed", `{"Error":"Baton.ExecutionEnded","Cause":"x"}`, false},
		{"an absent run is not completed", `null`, false},
		{"requires_action is not completed", `{"status":"requires_action","round":2}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var in statemachine.SettleInput
			if err := json.Unmarshal([]byte(`{"session_id":"s","turn_id":"t","run":`+tc.run+`}`), &in); err != nil {
				t.Fatal(err)
			}
			if got := in.Run.Completed(); got != tc.completed {
				t.Errorf("Completed() = %v, want %v (%+v)", got, tc.completed, in.Run)
			}
		})
	}
}
