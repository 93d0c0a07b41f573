package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/baton-run/baton/bench/cost"
)

// writeOutputs writes dir/results.md (the printed report, and the cost table as markdown) and dir/latency.png
// (the histogram of the tool-result POST → turn.completed latencies).
func writeOutputs(dir, report string, e cost.Estimate, latencies, updates []time.Duration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := latencyPNG(filepath.Join(dir, "latency.png"), latencies, updates); err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	var md strings.Builder
	md.WriteString("# `make bench` results\n\n")
	fmt.Fprintf(&md, "Written by `make bench` (bench/turnbench) on %s; what each number means: docs/bench.md.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	md.WriteString("## Cost of one inline handoff turn (us-east-1 on-demand prices, bench/cost)\n\n")
	_ = e.Write(&md, true)
	md.WriteString("\n## Latency, tool-result POST → `turn.completed`\n\n![latency histogram](latency.png)\n\n")
	md.WriteString("## The printed report\n\n```text\n")
	lines := strings.Split(strings.TrimSpace(report), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // tabwriter pads every cell, the last one too
	}
	md.WriteString(strings.Join(lines, "\n"))
	md.WriteString("\n```\n")
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(md.String()), 0o644)
}

// latencyPNG draws the histogram of latencies in milliseconds, with p50/p95 and the UpdateItem p50 in the title.
func latencyPNG(path string, latencies, updates []time.Duration) error {
	if len(latencies) == 0 {
		return nil
	}
	values := make(plotter.Values, len(latencies))
	for i, d := range latencies {
		values[i] = float64(d.Microseconds()) / 1000
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("tool-result POST → turn.completed, n=%d: p50 %.1f ms, p95 %.1f ms (UpdateItem p50 %.2f ms)",
		len(latencies), ms(percentile(latencies, 50)), ms(percentile(latencies, 95)), ms(percentile(updates, 50)))
	p.X.Label.Text = "latency (ms)"
	p.Y.Label.Text = "turns"
	bins := 20
	if len(latencies) < 40 {
		bins = max(5, len(latencies)/2)
	}
	h, err := plotter.NewHist(values, bins)
	if err != nil {
		return err
	}
	p.Add(h, plotter.NewGrid())
	return p.Save(9*vg.Inch, 4*vg.Inch, path)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
