package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// trafficResult is a run of a traffic scenario: a full-stack run whose
// users made 100 requests, success of them answered, toTerminated reaching
// a pod no longer serving.
func trafficResult(scenario string, members int, seed uint64, profile string, success, toTerminated float64) scenarios.Result {
	r := result(scenario, members, seed, profile, 1, 0, true)
	for _, k := range []string{"write_availability", "read_availability"} {
		delete(r.Metrics, k)
	}
	r.Metrics["converge_s"] = 5
	r.Metrics["requests"] = 100
	r.Metrics["request_success"] = success
	r.Metrics["requests_to_terminated"] = toTerminated
	r.Metrics["requests_to_unready"] = 1
	r.Metrics["request_latency_p50_ms"] = 12
	r.Metrics["request_latency_p99_ms"] = 20
	return r
}

// noRequests is a traffic run whose users made no request: metrics.Traffic
// reports -1 for what it could not measure.
func noRequests(r scenarios.Result) scenarios.Result {
	r.Metrics["requests"] = 0
	r.Metrics["request_success"] = -1
	r.Metrics["request_latency_p50_ms"] = -1
	r.Metrics["request_latency_p99_ms"] = -1
	return r
}

const crashFast = "crash-restart:mttf=30s,mttr=20s"

// TestTrafficStat: a group's traffic summary is over the runs that made
// requests; a run without the metrics, or with -1 for want of requests,
// does not count, and latency is over the runs that measured it.
func TestTrafficStat(t *testing.T) {
	noLatency := trafficResult("t", 3, 3, crash, 0.8, 9)
	noLatency.Metrics["request_latency_p50_ms"] = -1
	noLatency.Metrics["request_latency_p99_ms"] = -1
	cases := []struct {
		name                  string
		runs                  []scenarios.Result
		n, latencyRuns        int
		success, toTerminated float64
	}{
		{"no traffic metrics", []scenarios.Result{result("t", 3, 1, crash, 1, 1, true)}, 0, 0, 0, 0},
		{"no request made", []scenarios.Result{noRequests(trafficResult("t", 3, 1, crash, 0, 0))}, 0, 0, 0, 0},
		{"two runs measured", []scenarios.Result{trafficResult("t", 3, 1, crash, 0.9, 4), trafficResult("t", 3, 2, crash, 1, 6)}, 2, 2, 0.95, 5},
		{"the run without requests is left out", []scenarios.Result{trafficResult("t", 3, 1, crash, 0.9, 4), noRequests(trafficResult("t", 3, 2, crash, 0, 0))}, 1, 1, 0.9, 4},
		{"latency over the runs that had it", []scenarios.Result{trafficResult("t", 3, 1, crash, 1, 0), noLatency}, 2, 1, 0.9, 4.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			groups := Aggregate(c.runs)
			require.Len(t, groups, 1)
			tr := groups[0].Traffic
			assert.Equal(t, c.n, tr.Runs)
			assert.Equal(t, c.n, tr.Success.N)
			assert.Equal(t, c.latencyRuns, tr.LatencyRuns)
			assert.InDelta(t, c.success, tr.Success.Mean, 1e-12)
			assert.InDelta(t, c.toTerminated, tr.ToTerminated, 1e-12)
			if c.latencyRuns > 0 {
				assert.InDelta(t, 12, tr.LatencyP50Ms, 1e-12)
				assert.InDelta(t, 20, tr.LatencyP99Ms, 1e-12)
			}
		})
	}
}

// trafficSweep is members × profiles × 2 seeds of one traffic scenario.
func trafficSweep(scenario string, members []int, profiles ...string) []scenarios.Result {
	var rs []scenarios.Result
	for _, p := range profiles {
		for _, m := range members {
			rs = append(rs, trafficResult(scenario, m, 1, p, 0.9, 4), trafficResult(scenario, m, 2, p, 1, 6))
		}
	}
	return rs
}

// TestRequestSuccessPlot: the request success plot is drawn, written as
// PNG and SVG and embedded in the report after the quorum's fault-rate
// plot only when runs measured request_success; against the fault rate
// with two rates or more, by member count otherwise.
func TestRequestSuccessPlot(t *testing.T) {
	etcd := []scenarios.Result{result("etcd-profile", 3, 1, crash, 0.9, 0.9, true), result("etcd-profile", 3, 1, crashFast, 0.8, 0.8, true)}
	var requestless []scenarios.Result
	for _, r := range trafficSweep("rolling-update-traffic", []int{3}, crash, crashFast) {
		requestless = append(requestless, noRequests(r))
	}
	twoScenarios := append(trafficSweep("rolling-update-traffic", []int{3, 5}, crash, crashFast),
		trafficSweep("rolling-update-traffic-no-prestop", []int{3, 5}, crash, crashFast)...)
	cases := []struct {
		name    string
		runs    []scenarios.Result
		drawn   bool
		title   string // in the plot's title
		xLabel  string
		caption string // in the caption
	}{
		{"runs without traffic", etcd, false, "", "", ""},
		{"traffic runs without a request", requestless, false, "", "", ""},
		{"two fault rates", trafficSweep("rolling-update-traffic", []int{3, 5}, crash, crashFast), true,
			"Request success against fault rate\nrolling-update-traffic / crash-restart", UnitCrashes, "one line per member count."},
		{"two scenarios at two rates", twoScenarios, true, "Request success against fault rate", UnitCrashes, "one glyph per scenario"},
		{"one fault rate", trafficSweep("rolling-update-traffic", []int{3, 5}, crash), true,
			"Request success by etcd member count\nrolling-update-traffic / " + crash, "etcd members", "fewer than two fault rates"},
		{"the scenario's own faults", trafficSweep("apiserver-down-traffic", []int{3, 5}, ""), true,
			"Request success by etcd member count", "etcd members", "fewer than two fault rates"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := &Set{Results: c.runs}
			f, err := RequestSuccessFigure(set)
			require.NoError(t, err)
			require.Equal(t, c.drawn, f != nil)
			if c.drawn {
				assert.Equal(t, PlotRequestSuccess, f.Name)
				assert.Contains(t, f.Plot.Title.Text, c.title)
				assert.Equal(t, c.xLabel, f.Plot.X.Label.Text)
				assert.Contains(t, f.Caption, c.caption)
			}

			dir := t.TempDir()
			paths, err := WritePlots(dir, set)
			require.NoError(t, err)
			want := 2 * (len(PlotNames) + 1) // and the latency plot: the runs made writes
			if c.drawn {
				want += 2
			}
			assert.Len(t, paths, want)
			for _, ext := range []string{".png", ".svg"} {
				_, err := os.Stat(filepath.Join(dir, PlotRequestSuccess+ext))
				assert.Equal(t, c.drawn, err == nil, PlotRequestSuccess+ext)
			}

			html, err := RenderHTML(set)
			require.NoError(t, err)
			page := string(html)
			fig := strings.Index(page, `<figure id="`+PlotRequestSuccess+`">`)
			assert.Equal(t, c.drawn, fig >= 0)
			if c.drawn {
				quorum := strings.Index(page, `<figure id="`+PlotFaultRate+`">`)
				latency := strings.Index(page, `<figure id="`+PlotLatency+`">`)
				assert.True(t, quorum < fig && fig < latency, "beside the quorum plots")
			}
		})
	}
}

// TestStaleRequestSuccessPlotRemoved: a report written over one that had
// the request success plot, from results without it, leaves no stale plot.
func TestStaleRequestSuccessPlotRemoved(t *testing.T) {
	dir := t.TempDir()
	_, err := WritePlots(dir, &Set{Results: trafficSweep("rolling-update-traffic", []int{3}, crash, crashFast)})
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, PlotRequestSuccess+".png"))
	_, err = WritePlots(dir, &Set{Results: []scenarios.Result{result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)}})
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(dir, PlotRequestSuccess+".png"))
	assert.NoFileExists(t, filepath.Join(dir, PlotRequestSuccess+".svg"))
	assert.FileExists(t, filepath.Join(dir, PlotFaultRate+".png"))
}

// TestTrafficSummary: the markdown and the HTML carry request success
// with its 95% interval and the means of requests, requests to terminated
// and to unready pods and latency, per group with traffic; a set without
// traffic has no such table.
func TestTrafficSummary(t *testing.T) {
	// Success 0.9 and 1: mean 0.95, s = 0.0707, half = 1.96·s/√2 = 0.098.
	rs := append(trafficSweep("rolling-update-traffic-no-prestop", []int{3}, crash), result("etcd-profile", 3, 1, crash, 1, 1, true))
	set := &Set{Results: rs}
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	assert.Contains(t, md.String(), "## What the users saw (runs with traffic)")
	assert.Contains(t, md.String(), "| rolling-update-traffic-no-prestop / "+crash+" | 3 | 2 | 0.9500 ± 0.0980 | 100.0 | 5.0 | 1.0 | 12.0 / 20.0 |")
	assert.NotContains(t, md.String(), "| etcd-profile / "+crash+" | 3 | 1 |", "the etcd group has no traffic row")

	html, err := RenderHTML(set)
	require.NoError(t, err)
	containsAll(t, string(html), "<h2>What the users saw</h2>",
		"<td>2</td><td>0.9500 ± 0.0980</td><td>100.0</td><td>5.0</td><td>1.0</td><td>12.0 / 20.0</td>")

	etcd := &Set{Results: []scenarios.Result{result("etcd-profile", 3, 1, crash, 1, 1, true)}}
	md.Reset()
	require.NoError(t, WriteMarkdown(&md, etcd))
	assert.NotContains(t, md.String(), "What the users saw")
	html, err = RenderHTML(etcd)
	require.NoError(t, err)
	assert.NotContains(t, string(html), "What the users saw")
}

// TestFracTicksLabelsReadAsValues: every labelled tick of an availability
// axis reads as its value, also when the ticks are not multiples of their
// step (0.55, 0.75, 0.95 used to read 0.6, 0.8, 1.0), and close values
// keep the digits that tell them apart.
func TestFracTicksLabelsReadAsValues(t *testing.T) {
	cases := []struct{ lo, hi float64 }{
		{0.5098606666110764, 0.9934680432423454},
		{0, 1.0001},
		{0.9, 1.0001},
		{0.99, 1},
		{0.995, 1.0001},
	}
	for _, c := range cases {
		seen := map[string]bool{}
		for _, tk := range (fracTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			require.NoError(t, err)
			assert.InDelta(t, tk.Value, v, 1e-9, "[%g, %g]: label %q at %g", c.lo, c.hi, tk.Label, tk.Value)
			assert.False(t, seen[tk.Label], "[%g, %g]: label %q twice", c.lo, c.hi, tk.Label)
			seen[tk.Label] = true
		}
		assert.NotEmpty(t, seen)
	}
}
