package metrics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

func sec(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }

func node(at sim.Time, d sim.Data) *sim.Event { return &sim.Event{Kind: sim.KindNode, At: at, Data: d} }

// req is a request to pod that ended at end after latency.
func req(end sim.Time, latency time.Duration, outcome, reason, pod, routed string) *sim.Event {
	return node(end, &apptrace.Request{Client: "c", Service: "default/web", Entry: "node-1", Outcome: outcome, Reason: reason,
		Latency: int64(latency), Pod: pod, Routed: routed})
}

// TestTrafficMetrics: success counts only timely successes; the
// percentiles are over successes, slow ones included; a request counts
// as to an unready pod by the readiness its kubelet reported when it was
// sent (not when it ended), the terminating fallback excepted; a request
// refused because its pod no longer served counts as to a terminated pod.
func TestTrafficMetrics(t *testing.T) {
	m := metrics.NewTraffic()
	require.Equal(t, map[string]float64{"requests": 0, "request_success": -1, "request_latency_p50_ms": -1,
		"request_latency_p99_ms": -1, "requests_to_unready": 0, "requests_to_terminated": 0}, m.Values(), "nothing measured yet")

	m.Observe(node(sec(1), &spoketrace.PodReady{Node: "node-1", Pod: "default/a", UID: "ua", Ready: true}))
	m.Observe(node(sec(1), &spoketrace.PodReady{Node: "node-2", Pod: "default/b", UID: "ub", Ready: true}))
	m.Observe(req(sec(2), 10*time.Millisecond, apptrace.OutcomeOK, "", "default/a", proxytrace.StateReady))
	m.Observe(req(sec(2.1), 30*time.Millisecond, apptrace.OutcomeOK, "", "default/b", proxytrace.StateReady))
	m.Observe(req(sec(3), 700*time.Millisecond, apptrace.OutcomeSlow, "", "default/a", proxytrace.StateReady))
	// b goes unready at 5 s: a request sent at 4.5 s is to a ready pod
	// even though it ends (a timeout) after 5 s; one sent at 5.5 s is not.
	m.Observe(node(sec(5), &spoketrace.PodReady{Node: "node-2", Pod: "default/b", UID: "ub", Ready: false}))
	m.Observe(req(sec(5.5), time.Second, apptrace.OutcomeTimeout, "", "default/b", proxytrace.StateReady))
	m.Observe(req(sec(6.5), time.Second, apptrace.OutcomeTimeout, "", "default/b", proxytrace.StateReady))
	// The terminating fallback is not a request to an unready pod, but a
	// refusal by a pod shut down after SIGTERM is one to a terminated pod.
	m.Observe(req(sec(7), 2*time.Millisecond, apptrace.OutcomeRefused, apptrace.RefusedShutdown, "default/b", proxytrace.StateTerminating))
	// A pod never reported ready (routed by the ablated rules), refused
	// because its container is not running.
	m.Observe(req(sec(8), 2*time.Millisecond, apptrace.OutcomeRefused, apptrace.RefusedNotRunning, "default/c", proxytrace.StateNotReady))
	// Refused before any pod: not to a terminated pod.
	m.Observe(req(sec(9), 0, apptrace.OutcomeRefused, apptrace.ReasonNoEndpoints, "", ""))

	v := m.Values()
	require.Equal(t, 8.0, v["requests"])
	require.InDelta(t, 2.0/8, v["request_success"], 1e-12)
	require.Equal(t, 30.0, v["request_latency_p50_ms"], "10, 30, 700: the median")
	require.Equal(t, 700.0, v["request_latency_p99_ms"])
	require.Equal(t, 2.0, v["requests_to_unready"], "sent at 5.5 s to b, and to c")
	require.Equal(t, 2.0, v["requests_to_terminated"])

	var c checks.Check = m
	res := c.Finish()
	require.True(t, res.OK, "it measures, it does not judge")
	require.Equal(t, "traffic", res.Name)
	require.Equal(t, v, checks.MeasuresOf(c))
}
