package reports

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown prints a summary of the set as markdown: per group, the
// member count, the runs, the quorum-up fraction with its 95% interval
// beside the binomial prediction, write availability (a dash when the runs
// had no KV workload to measure it), elections, and how
// many runs passed and failed their checks; for full-stack runs the time
// to converge, pods run twice, healthy restarts and pods created; for runs
// with traffic, request success with its 95% interval and the means per run
// of requests, requests to terminated and to unready pods, and latency;
// then the claims and the failing runs' replay commands.
func WriteMarkdown(w io.Writer, set *Set) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# kubesim report: %d runs, %d groups\n\n", len(set.Results), len(set.Groups()))
	for _, s := range series(set.Groups()) {
		fmt.Fprintf(&b, "## %s\n\n", s[0].SeriesName())
		b.WriteString("| members | runs | quorum up (95% CI) | binomial | write availability (95% CI) | elections | checks ok / failed |\n")
		b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, g := range s {
			pred := "—"
			if g.HasPrediction {
				pred = fmt.Sprintf("%.4f", g.Prediction)
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %.1f | %d / %d |\n",
				g.Members, len(g.Runs), statCell(g.QuorumUp), pred, statCell(g.WriteAvail), g.Elections, g.Passed, g.Failed)
		}
		b.WriteString("\n")
	}
	var stack []*Group
	for _, g := range set.Groups() {
		if g.Stack.Runs > 0 {
			stack = append(stack, g)
		}
	}
	if len(stack) > 0 {
		b.WriteString("## The control plane (full-stack runs)\n\n")
		b.WriteString("| group | members | runs | converged in s (95% CI) | not converged | double-running (replica-s) | healthy restarts | pods created |\n")
		b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, g := range stack {
			st := g.Stack
			fmt.Fprintf(&b, "| %s | %d | %d | %.1f ± %.1f | %d | %.1f | %.1f | %.1f |\n", g.SeriesName(), g.Members, st.Runs,
				st.Converge.Mean, st.Converge.Half, st.NotConverged, st.DoubleRunning, st.HealthyRestarts, st.PodCreates)
		}
		b.WriteString("\n")
	}
	if traffic := trafficGroups(set.Groups()); len(traffic) > 0 {
		b.WriteString("## What the users saw (runs with traffic)\n\n")
		b.WriteString("| group | members | runs | request success (95% CI) | requests | to terminated | to unready | latency p50 / p99 (ms) |\n")
		b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, g := range traffic {
			tr := g.Traffic
			lat := "—"
			if tr.LatencyRuns > 0 {
				lat = fmt.Sprintf("%.1f / %.1f", tr.LatencyP50Ms, tr.LatencyP99Ms)
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %.1f | %.1f | %.1f | %s |\n", g.SeriesName(), g.Members, tr.Runs,
				tr.Success, tr.Requests, tr.ToTerminated, tr.ToUnready, lat)
		}
		b.WriteString("\n")
	}
	if claims := Claims(set); len(claims) > 0 {
		b.WriteString("## Claims\n\n")
		for _, c := range claims {
			fmt.Fprintf(&b, "- **%s** — %s (%s): %s\n", c.Outcome, c.Text, c.Series, c.Verdict)
		}
		b.WriteString("\n")
	}
	var failed []string
	for i := range set.Results {
		if r := &set.Results[i]; !r.OK {
			var names []string
			for _, c := range r.Failed() {
				names = append(names, c.Name)
			}
			failed = append(failed, fmt.Sprintf("- `%s` (failed: %s)\n", ReplayCommand(*r), strings.Join(names, ", ")))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "## Failing runs (%d)\n\n", len(failed))
		const most = 20
		for i, l := range failed {
			if i == most {
				fmt.Fprintf(&b, "- … and %d more (see the report)\n", len(failed)-most)
				break
			}
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
