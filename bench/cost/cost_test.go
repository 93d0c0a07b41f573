package cost

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPriceMultipliesEachTermByItsPrice(t *testing.T) {
	t.Parallel()
	u := Usage{
		StateTransitions: 6,
		WriteUnits:       20,
		ReadUnits:        8,
		Lambda: []Invocations{
			{Function: "SettleFunction", Count: 1, BilledMillis: 12, MemoryMB: 256},
			{Function: "ApiFunction", Count: 2, BilledMillis: 30, MemoryMB: 256},
			{Function: "ParkFunction", Count: 1, BilledMillis: 6, MemoryMB: 256},
		},
		APIRequests: 4,
	}
	// 256 MB = 0.25 GB; 48 ms in all = 0.048 s → 0.012 GB-s.
	want := []Line{
		{Term: "Step Functions Standard state transitions", Quantity: 6, Unit: "transitions", UnitUSD: 0.000025, PerTurnUSD: 0.00015},
		{Term: "DynamoDB on-demand write request units", Quantity: 20, Unit: "WRU", UnitUSD: 0.000000625, PerTurnUSD: 0.0000125},
		{Term: "DynamoDB on-demand read request units", Quantity: 8, Unit: "RRU", UnitUSD: 0.000000125, PerTurnUSD: 0.000001},
		{Term: "Lambda requests", Quantity: 4, Unit: "invocations", UnitUSD: 0.0000002, PerTurnUSD: 0.0000008},
		{Term: "Lambda duration (arm64)", Quantity: 0.012, Unit: "GB-s", UnitUSD: 0.0000133334, PerTurnUSD: 0.012 * 0.0000133334},
		{Term: "API Gateway REST API requests", Quantity: 4, Unit: "requests", UnitUSD: 0.0000035, PerTurnUSD: 0.000014},
	}
	got := Price(u)
	approx := cmpopts.EquateApprox(1e-12, 0)
	if d := cmp.Diff(want, got.Lines, approx); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	total := 0.00015 + 0.0000125 + 0.000001 + 0.0000008 + 0.012*0.0000133334 + 0.000014
	if math.Abs(got.TotalUSD-total) > 1e-15 {
		t.Errorf("total = %.12f, want %.12f", got.TotalUSD, total)
	}
}

func TestPriceOfNothingIsZero(t *testing.T) {
	t.Parallel()
	e := Price(Usage{})
	if e.TotalUSD != 0 {
		t.Errorf("total = %v, want 0", e.TotalUSD)
	}
	if len(e.Lines) != 6 {
		t.Errorf("%d lines, want every term listed (6)", len(e.Lines))
	}
}

func TestGBSecondsUsesMemoryInGiB(t *testing.T) {
	t.Parallel()
	// 1024 MB for 1,000 ms is exactly one GB-second; 128 MB for 4 ms is 0.0005.
	for _, tc := range []struct {
		inv  Invocations
		want float64
	}{
		{Invocations{MemoryMB: 1024, BilledMillis: 1000}, 1},
		{Invocations{MemoryMB: 128, BilledMillis: 4}, 0.0005},
		{Invocations{MemoryMB: 256}, 0},
	} {
		if got := tc.inv.GBSeconds(); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%+v: GBSeconds = %v, want %v", tc.inv, got, tc.want)
		}
	}
}

func TestWriteShowsPerTurnAndPerThousandTurns(t *testing.T) {
	t.Parallel()
	e := Price(Usage{StateTransitions: 10})
	var md bytes.Buffer
	if err := e.Write(&md, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(md.String()), "\n")
	if len(lines) != 9 { // header, separator, 6 terms, total
		t.Fatalf("markdown table has %d lines, want 9:\n%s", len(lines), md.String())
	}
	// 10 transitions × $0.000025 = $0.00025 a turn, $0.25 for 1,000 turns.
	if want := "| Step Functions Standard state transitions | 10.0 transitions | $0.000025 | $0.00025000 | $0.2500 |"; lines[2] != want {
		t.Errorf("transitions row = %q, want %q", lines[2], want)
	}
	if want := "| total |  |  | $0.00025000 | $0.2500 |"; lines[8] != want {
		t.Errorf("total row = %q, want %q", lines[8], want)
	}
	var plain bytes.Buffer
	if err := e.Write(&plain, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.String(), "$0.2500") || strings.Contains(plain.String(), "|") {
		t.Errorf("plain table:\n%s", plain.String())
	}
}
