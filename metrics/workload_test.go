package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// workloadMetrics are the metrics of the etcd KV workload.
var workloadMetrics = []string{"write_availability", "writes_attempted", "writes_ok", "write_latency_p50_ms", "write_latency_p99_ms",
	"read_availability", "reads_attempted", "reads_ok", "read_latency_p50_ms", "read_latency_p99_ms",
	"recovery_mean_s", "recovery_max_s", "faults_unrecovered"}

// TestMetricsOmitWhatWasNotMeasured: a run without KV operations has no
// workload metrics at all (not zeros); writes alone give the write metrics
// and not the read ones; a recovery time needs a fault that a successful
// write followed.
func TestMetricsOmitWhatWasNotMeasured(t *testing.T) {
	m := metrics.NewWorkload()
	m.Observe(&sim.Event{Kind: sim.KindFault, At: 1e9, Host: 0, Name: "crash"})
	v := m.Values()
	for _, k := range workloadMetrics {
		assert.NotContains(t, v, k)
	}
	assert.Equal(t, 1.0, v["faults"], "faults are counted whatever the workload")
	assert.Contains(t, v, "leader_elections")

	m.Observe(&sim.Event{Kind: sim.KindNode, At: 2e9, Data: &etcdtrace.Call{Client: "c", Op: 1, Kind: etcdtrace.OpPut, Key: "k"}})
	v = m.Values()
	assert.Equal(t, 0.0, v["write_availability"], "a write attempted and not answered is measured unavailability")
	assert.Equal(t, 1.0, v["faults_unrecovered"])
	assert.NotContains(t, v, "write_latency_p50_ms", "no successful write, no latency")
	assert.NotContains(t, v, "recovery_mean_s")

	m.Observe(&sim.Event{Kind: sim.KindNode, At: 2e9 + 5e6, Data: &etcdtrace.Return{Client: "c", Op: 1, Outcome: etcdtrace.OutcomeOK}})
	v = m.Values()
	assert.Equal(t, 1.0, v["write_availability"])
	assert.Equal(t, 5.0, v["write_latency_p50_ms"])
	assert.InDelta(t, 1.005, v["recovery_mean_s"], 1e-9)
	assert.Equal(t, 0.0, v["faults_unrecovered"])
	for _, k := range []string{"read_availability", "reads_attempted", "read_latency_p50_ms"} {
		assert.NotContains(t, v, k, "no read was made")
	}
}
