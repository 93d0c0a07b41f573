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
	runs := 0
	for name, s := range states {
		st := s.(map[string]any)
		if !strings.HasPrefix(name, "Run") {
			continue
		}
		runs++
		retry := st["Retry"].([]any)[0].(map[string]any)["ErrorEquals"].([]any)
		if diff := cmp.Diff([]any{statemachine.ErrorRuntimeIncapable}, retry); diff != "" {
			t.Errorf("%s retries (-want +got):\n%s", name, diff)
		}
	}
	if runs == 0 {
		t.Fatal("no Run<Kind> state found")
	}
	if got := states["TurnFailed"].(map[string]any)["Error"]; got != statemachine.ErrorTurnFailed {
		t.Errorf("TurnFailed.Error = %v, want %s", got, statemachine.ErrorTurnFailed)
	}
	if got := states["UnknownHarness"].(map[string]any)["Result"].(map[string]any)["Error"]; got != statemachine.ErrorUnknownHarness {
		t.Errorf("UnknownHarness.Result.Error = %v, want %s", got, statemachine.ErrorUnknownHarness)
	}
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

	for name := range states {
		if strings.HasPrefix(name, "Run") {
			if diff := cmp.Diff(jsonNames(statemachine.ActivityInput{}), parameterNames(state(name)["Parameters"].(map[string]any))); diff != "" {
				t.Errorf("%s Parameters vs ActivityInput (-go +asl):\n%s", name, diff)
			}
		}
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
		{"the UnknownHarness result is not completed", `{"Error":"Baton.UnknownHarness","Cause":"x"}`, false},
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
