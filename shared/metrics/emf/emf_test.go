package emf_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/metrics/emf"
	"github.com/baton-run/baton/shared/metrics/emf/emfcheck"
)

func TestRecordWritesOneCheckedEMFLinePerMeasurement(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clock := func() time.Time { return time.UnixMilli(1_700_000_000_123) }
	w := emf.New(&buf, clock)
	w.Record(context.Background(), engine.Measurement{Name: engine.MetricTurnFailures, Count: 1,
		Dimensions: map[string]string{engine.DimensionHarness: "baton", engine.DimensionCause: "States.HeartbeatTimeout"},
		SessionID:  "sess_1", TurnID: "turn_1"})
	w.Record(context.Background(), engine.Measurement{Name: engine.MetricToolResultsAccepted, Count: 3,
		Dimensions: map[string]string{engine.DimensionHarness: "baton"}, SessionID: "sess_1"})

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	want := []map[string]any{
		{
			"_aws": map[string]any{"Timestamp": float64(1_700_000_000_123), "CloudWatchMetrics": []any{map[string]any{
				"Namespace": "Baton", "Dimensions": []any{[]any{"Cause", "Harness"}},
				"Metrics": []any{map[string]any{"Name": "TurnFailures", "Unit": "Count"}}}}},
			"TurnFailures": float64(1), "Harness": "baton", "Cause": "States.HeartbeatTimeout",
			"session_id": "sess_1", "turn_id": "turn_1",
		},
		{
			"_aws": map[string]any{"Timestamp": float64(1_700_000_000_123), "CloudWatchMetrics": []any{map[string]any{
				"Namespace": "Baton", "Dimensions": []any{[]any{"Harness"}},
				"Metrics": []any{map[string]any{"Name": "ToolResultsAccepted", "Unit": "Count"}}}}},
			"ToolResultsAccepted": float64(3), "Harness": "baton", "session_id": "sess_1",
		},
	}
	for i, line := range lines {
		got, err := emfcheck.Check([]byte(line))
		if err != nil {
			t.Fatalf("line %d %s: %v", i, line, err)
		}
		if d := cmp.Diff(want[i], got); d != "" {
			t.Errorf("line %d (-want +got):\n%s", i, d)
		}
	}
}

func TestCheckRejectsLinesCloudWatchCannotExtract(t *testing.T) {
	t.Parallel()
	const directive = `"CloudWatchMetrics":[{"Namespace":"Baton","Dimensions":[["Harness"]],"Metrics":[{"Name":"TurnsStarted","Unit":"Count"}]}]`
	cases := map[string]string{
		"no _aws member":               `{"Harness":"baton","TurnsStarted":1}`,
		"no timestamp":                 `{"_aws":{` + directive + `},"Harness":"baton","TurnsStarted":1}`,
		"timestamp as a string":        `{"_aws":{"Timestamp":"now",` + directive + `},"Harness":"baton","TurnsStarted":1}`,
		"no directive":                 `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[]},"Harness":"baton","TurnsStarted":1}`,
		"no namespace":                 `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Dimensions":[["Harness"]],"Metrics":[{"Name":"TurnsStarted"}]}]},"Harness":"baton","TurnsStarted":1}`,
		"unknown unit":                 `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Baton","Dimensions":[["Harness"]],"Metrics":[{"Name":"TurnsStarted","Unit":"Turns"}]}]},"Harness":"baton","TurnsStarted":1}`,
		"metric value missing":         `{"_aws":{"Timestamp":1,` + directive + `},"Harness":"baton"}`,
		"metric value not a number":    `{"_aws":{"Timestamp":1,` + directive + `},"Harness":"baton","TurnsStarted":"1"}`,
		"dimension value missing":      `{"_aws":{"Timestamp":1,` + directive + `},"TurnsStarted":1}`,
		"dimension value not a string": `{"_aws":{"Timestamp":1,` + directive + `},"Harness":7,"TurnsStarted":1}`,
		"not JSON":                     `{"_aws":`,
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := emfcheck.Check([]byte(line)); err == nil {
				t.Errorf("Check accepted %s", line)
			}
		})
	}
	if _, err := emfcheck.Check([]byte(`{"_aws":{"Timestamp":1,` + directive + `},"Harness":"baton","TurnsStarted":1}`)); err != nil {
		t.Errorf("Check refused a valid line: %v", err)
	}
}
