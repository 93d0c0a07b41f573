package cost

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Public prices, us-east-1 (US East, N. Virginia), on-demand, first pricing tier, in USD per single unit. Read on
// 2026-12-01; docs/bench.md "Cost" names the sources and which ones could not be confirmed on AWS's own page.
const (
	// StateTransitionUSD is one Step Functions Standard Workflows state transition: $0.025 per 1,000, as
	// published on aws.amazon.com/step-functions/pricing (retries are transitions too).
	StateTransitionUSD = 0.025 / 1_000
	// WriteRequestUnitUSD is one DynamoDB on-demand write request unit (Standard table class): $0.625 per million
	// since the on-demand price cut of 2024-11-01. AWS's page renders this number client-side; the value is the
	// one quoted by secondary sources (not confirmed on aws.amazon.com itself).
	WriteRequestUnitUSD = 0.625 / 1_000_000
	// ReadRequestUnitUSD is one DynamoDB on-demand read request unit (Standard table class): $0.125 per million,
	// same source and caveat as WriteRequestUnitUSD.
	ReadRequestUnitUSD = 0.125 / 1_000_000
	// LambdaRequestUSD is one Lambda invocation: $0.20 per million requests (the rate AWS's Lambda pricing page
	// states in its text; the same for x86_64 and arm64).
	LambdaRequestUSD = 0.20 / 1_000_000
	// LambdaArmGBSecondUSD is one GB-second of arm64 Lambda duration (first 7.5 billion GB-seconds a month):
	// $0.0000133334. AWS's page renders this number client-side; the value is the one quoted by secondary
	// sources (not confirmed on aws.amazon.com itself). Every Baton function is arm64 (template.yaml Globals).
	LambdaArmGBSecondUSD = 0.0000133334
	// RESTAPIRequestUSD is one API Gateway REST API call received (first 333 million a month): $3.50 per million,
	// as stated in AWS's API Gateway private-APIs whitepaper (docs.aws.amazon.com, "Cost optimization").
	RESTAPIRequestUSD = 3.50 / 1_000_000
)

// Invocations is what one Lambda function did during one turn.
type Invocations struct {
	// Function is the function's logical ID in template.yaml (e.g. "ParkFunction").
	Function string
	// Count is the number of invocations per turn (a mean, so it may be fractional).
	Count float64
	// BilledMillis is the summed duration of those invocations, each rounded up to a whole millisecond as Lambda
	// bills it, per turn.
	BilledMillis float64
	// MemoryMB is the function's configured MemorySize in MB.
	MemoryMB int
}

// GBSeconds is the billed compute of the invocations: memory in GB (MB / 1024) × seconds.
func (i Invocations) GBSeconds() float64 {
	return float64(i.MemoryMB) / 1024 * i.BilledMillis / 1000
}

// Usage is what one turn consumed, as measured (means over the measured turns).
type Usage struct {
	// StateTransitions are the turn's Step Functions state transitions (retries included).
	StateTransitions float64
	// WriteUnits and ReadUnits are the DynamoDB capacity units the turn's requests consumed (ConsumedCapacity
	// TOTAL, every process: API, stream, Lambda functions and the harness runtime).
	WriteUnits, ReadUnits float64
	// Lambda lists each function invoked during the turn.
	Lambda []Invocations
	// APIRequests are the HTTP requests the client sent through API Gateway for the turn.
	APIRequests float64
}

// Line is one term of an Estimate.
type Line struct {
	// Term names the priced quantity, e.g. "Step Functions state transitions".
	Term string
	// Quantity is the amount per turn, in Unit.
	Quantity float64
	Unit     string
	// UnitUSD is the price of one Unit.
	UnitUSD float64
	// PerTurnUSD is Quantity × UnitUSD.
	PerTurnUSD float64
}

// Estimate is the priced Usage of one turn: one Line per term and their sum.
type Estimate struct {
	Lines    []Line
	TotalUSD float64
}

// Price multiplies each measured quantity by its price. Lambda requests and GB-seconds are summed over the
// functions (all arm64). A zero Usage costs zero.
func Price(u Usage) Estimate {
	var e Estimate
	add := func(term string, q float64, unit string, price float64) {
		e.Lines = append(e.Lines, Line{Term: term, Quantity: q, Unit: unit, UnitUSD: price, PerTurnUSD: q * price})
		e.TotalUSD += q * price
	}
	add("Step Functions Standard state transitions", u.StateTransitions, "transitions", StateTransitionUSD)
	add("DynamoDB on-demand write request units", u.WriteUnits, "WRU", WriteRequestUnitUSD)
	add("DynamoDB on-demand read request units", u.ReadUnits, "RRU", ReadRequestUnitUSD)
	fns := append([]Invocations(nil), u.Lambda...)
	sort.Slice(fns, func(i, j int) bool { return fns[i].Function < fns[j].Function })
	var requests, gbs float64
	for _, f := range fns {
		requests += f.Count
		gbs += f.GBSeconds()
	}
	add("Lambda requests", requests, "invocations", LambdaRequestUSD)
	add("Lambda duration (arm64)", gbs, "GB-s", LambdaArmGBSecondUSD)
	add("API Gateway REST API requests", u.APIRequests, "requests", RESTAPIRequestUSD)
	return e
}

// Write prints the estimate as a table: each term with its quantity per turn, unit price, USD per turn and USD
// per 1,000 turns, then the total; markdown selects a GitHub table instead of aligned columns.
func (e Estimate) Write(w io.Writer, markdown bool) error {
	rows := [][]string{{"term", "per turn", "unit price (USD)", "USD per turn", "USD per 1,000 turns"}}
	for _, l := range e.Lines {
		rows = append(rows, []string{l.Term, fmt.Sprintf("%s %s", qty(l.Quantity), l.Unit), "$" + strconv.FormatFloat(l.UnitUSD, 'f', -1, 64),
			usd(l.PerTurnUSD), usd(l.PerTurnUSD * 1000)})
	}
	rows = append(rows, []string{"total", "", "", usd(e.TotalUSD), usd(e.TotalUSD * 1000)})
	if markdown {
		for i, r := range rows {
			if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | ")); err != nil {
				return err
			}
			if i == 0 {
				if _, err := fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// qty prints a per-turn quantity with up to three significant decimals.
func qty(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.4f", v)
	}
}

// usd prints a dollar amount in a fixed notation precise enough for micro-dollars.
func usd(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v >= 0.01:
		return fmt.Sprintf("$%.4f", v)
	default:
		return fmt.Sprintf("$%.8f", v)
	}
}
