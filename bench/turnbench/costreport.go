package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/baton-run/baton/bench/cost"
)

// lambdaPerTurn returns, per function, the mean invocations and billed milliseconds per counted turn: Park,
// Settle and any other function the Step Functions endpoint invoked (the Lambda host's counters), and ApiFunction
// and StreamFunction for the client's requests (the client meter: one invocation per request, as API Gateway
// makes them, lasting as long as the request).
func lambdaPerTurn(counted []turnCounts, memoryMB map[string]int) []cost.Invocations {
	if len(counted) == 0 {
		return nil
	}
	sum := map[string]*cost.Invocations{}
	at := func(fn string) *cost.Invocations {
		if sum[fn] == nil {
			sum[fn] = &cost.Invocations{Function: fn, MemoryMB: memoryMB[fn]}
		}
		return sum[fn]
	}
	for _, c := range counted {
		for fn, after := range c.lambdaAfter {
			before := c.lambdaBefore[fn]
			if n := after.Invocations - before.Invocations; n > 0 {
				at(fn).Count += float64(n)
				at(fn).BilledMillis += float64(after.BilledMillis - before.BilledMillis)
			}
		}
		for fn, after := range c.clientAfter {
			before := c.clientBefore[fn]
			if n := after.Requests - before.Requests; n > 0 {
				at(fn).Count += float64(n)
				at(fn).BilledMillis += float64(after.BilledMillis - before.BilledMillis)
			}
		}
	}
	out := make([]cost.Invocations, 0, len(sum))
	for _, inv := range sum {
		inv.Count /= float64(len(counted))
		inv.BilledMillis /= float64(len(counted))
		out = append(out, *inv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Function < out[j].Function })
	return out
}

// usageOf is the mean measured usage of one counted turn.
func usageOf(counted []turnCounts, memoryMB map[string]int) cost.Usage {
	n := float64(len(counted))
	if n == 0 {
		return cost.Usage{}
	}
	var u cost.Usage
	for _, c := range counted {
		u.StateTransitions += float64(c.transitions)
		for _, k := range []string{"DynamoDB.write.milliunits", "DynamoDB.read.milliunits"} {
			units := float64(c.apiAfter[k]-c.apiBefore[k]+c.runtimeAfter[k]-c.runtimeBefore[k]) / 1000
			if k == "DynamoDB.write.milliunits" {
				u.WriteUnits += units
			} else {
				u.ReadUnits += units
			}
		}
		for fn, after := range c.clientAfter {
			u.APIRequests += float64(after.Requests - c.clientBefore[fn].Requests)
		}
	}
	u.StateTransitions /= n
	u.WriteUnits /= n
	u.ReadUnits /= n
	u.APIRequests /= n
	u.Lambda = lambdaPerTurn(counted, memoryMB)
	return u
}

// reportCost prints the Lambda invocations behind the estimate, then the estimate itself.
func reportCost(out io.Writer, counted []turnCounts, memoryMB map[string]int, e cost.Estimate) {
	fmt.Fprintf(out, "\nLambda invocations per turn (mean over %d turns; Park/Settle timed by the local Lambda host, API and stream functions at the client)\n", len(counted))
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "function\tinvocations\tbilled ms\tMemorySize MB\tGB-s\t")
	for _, inv := range lambdaPerTurn(counted, memoryMB) {
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%d\t%.5f\t\n", inv.Function, inv.Count, inv.BilledMillis, inv.MemoryMB, inv.GBSeconds())
	}
	w.Flush()
	fmt.Fprintf(out, "\nCost of one inline handoff turn at public us-east-1 on-demand prices (bench/cost; session creation excluded)\n")
	_ = e.Write(out, false)
}
