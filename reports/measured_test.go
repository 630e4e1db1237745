package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
)

// stackResult is a full-stack run as kubesim now records it: no etcd KV
// workload, so no write or read metrics.
func stackResult(members int, seed uint64) scenarios.Result {
	r := result("stack-chaos", members, seed, "", 0.9+0.01*float64(seed), 0, true)
	for _, k := range []string{"write_availability", "read_availability", "faults_unrecovered", "recovery_mean_s", "recovery_max_s"} {
		delete(r.Metrics, k)
	}
	r.WriteLatencyHist = make([]int, len(metrics.LatencyBucketsMs)+1)
	r.Metrics["converge_s"] = 5
	return r
}

// TestUnmeasuredMetricsShowNoValue: the groups of full-stack runs have no
// write or read availability, latency or recovery (N is 0), the markdown
// and the HTML show a dash for them, and there is no latency plot; a result written before the metrics were left out (zeros with no
// operation attempted) counts as unmeasured too.
func TestUnmeasuredMetricsShowNoValue(t *testing.T) {
	old := stackResult(3, 3)
	old.Metrics["write_availability"], old.Metrics["writes_attempted"] = 0, 0
	old.Metrics["write_latency_p50_ms"], old.Metrics["writes_ok"] = 0, 0
	set := &Set{Results: []scenarios.Result{stackResult(3, 1), stackResult(3, 2), old}}
	require.Len(t, set.Groups(), 1)
	g := set.Groups()[0]
	assert.Equal(t, 3, g.QuorumUp.N)
	assert.Zero(t, g.WriteAvail.N)
	assert.Zero(t, g.ReadAvail.N)
	assert.Zero(t, g.WriteLatencyRuns)
	assert.Zero(t, g.RecoveryRuns)

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	assert.Contains(t, md.String(), "| 3 | 3 | "+g.QuorumUp.String()+" | — | — | ", "write availability is a dash:\n%s", md.String())
	assert.NotContains(t, md.String(), "0.0000 ± 0.0000")

	html, err := RenderHTML(set)
	require.NoError(t, err)
	row := "<td>" + g.QuorumUp.String() + "</td><td>—</td><td>—</td><td>—</td><td>" // prediction, write and read availability
	assert.Contains(t, string(html), row)
	assert.Contains(t, string(html), "<td>—</td><td>—</td><td class=\"good\">", "recovery and latency are dashes")

	f, err := LatencyFigure(set)
	require.NoError(t, err)
	assert.Nil(t, f, "no latency plot without a successful etcd KV write")
}

// TestMeasuredMetricsKeepTheirRuns: in a group where some runs measured a
// metric, its Stat is over those runs only.
func TestMeasuredMetricsKeepTheirRuns(t *testing.T) {
	a := result("mixed", 3, 1, "", 1, 0.5, true)
	b := result("mixed", 3, 2, "", 1, 0, true)
	delete(b.Metrics, "write_availability")
	g := Aggregate([]scenarios.Result{a, b})[0]
	assert.Equal(t, 1, g.WriteAvail.N)
	assert.InDelta(t, 0.5, g.WriteAvail.Mean, 1e-12, "the run without the metric does not pull the mean to 0")
}

// TestClaimsNeedTheirMetric: the report compares member counts on the
// fraction of time with a quorum up; full-stack runs measure that, so they
// get the claims; runs without it get none, in the markdown and the HTML.
func TestClaimsNeedTheirMetric(t *testing.T) {
	var rs []scenarios.Result
	for _, m := range []int{3, 5} {
		for s := uint64(1); s <= 3; s++ {
			rs = append(rs, stackResult(m, s))
		}
	}
	assert.Len(t, Claims(&Set{Results: rs}), 1, "5 against 3, on quorum up")
	for i := range rs {
		delete(rs[i].Metrics, "quorum_up_fraction")
	}
	set := &Set{Results: rs}
	assert.Empty(t, Claims(set))
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	assert.NotContains(t, md.String(), "## Claims")
	assert.NotContains(t, md.String(), "more available")
	dir := t.TempDir()
	require.NoError(t, WriteHTML(dir, set))
	html, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(html), "✔ supported") || strings.Contains(string(html), "? inconclusive"))
}
