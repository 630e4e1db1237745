package metrics

import (
	"fmt"
	"sort"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Traffic measures what the users of the applications saw, from the
// requests of package apptraffic (apptrace.Request) and the readiness the
// kubelets reported (spoketrace.PodReady):
//   - requests: the requests that ended;
//   - request_success: the fraction of them answered with a success in
//     time (apptrace.OutcomeOK; a slow answer is a failure);
//   - request_latency_p50_ms and request_latency_p99_ms: the latency of
//     the requests answered with a success, slow ones included;
//   - requests_to_unready: requests the rules sent to a pod that its
//     kubelet had last reported not ready (or never ready) when the
//     request was sent; the terminating fallback (a backend routed as
//     proxytrace.StateTerminating) is not counted, as kube-proxy sends
//     there only when no endpoint is ready;
//   - requests_to_terminated: requests that reached a pod no longer
//     serving: refused by its node because no pod had the address, its
//     container was not running, its application had shut down after
//     SIGTERM, or it stopped while answering.
//
// A value that could not be measured (a fraction or latency without
// requests) is -1. It is a checks.Check that always passes and a
// checks.Measurer, so that a scenario adds it from its Build hook.
type Traffic struct {
	// ready is each pod's readiness as its kubelet reported it, in trace
	// order, by namespace/name.
	ready      map[string][]readyAt
	requests   int
	ok         int
	latencies  latencies // of successful requests, slow ones included
	toUnready  int
	toTerminal int
}

type readyAt struct {
	at    sim.Time
	ready bool
}

// NewTraffic makes an empty collector.
func NewTraffic() *Traffic { return &Traffic{ready: map[string][]readyAt{}} }

// Name implements checks.Check.
func (m *Traffic) Name() string { return "traffic" }

// Observe implements checks.Check: it consumes one trace event.
func (m *Traffic) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *spoketrace.PodReady:
		m.ready[d.Pod] = append(m.ready[d.Pod], readyAt{e.At, d.Ready})
	case *apptrace.Request:
		m.request(e.At, d)
	}
}

func (m *Traffic) request(at sim.Time, d *apptrace.Request) {
	m.requests++
	switch d.Outcome {
	case apptrace.OutcomeOK:
		m.ok++
		m.latencies.add(d.Latency)
	case apptrace.OutcomeSlow:
		m.latencies.add(d.Latency)
	case apptrace.OutcomeRefused:
		switch d.Reason {
		case apptrace.RefusedNoPod, apptrace.RefusedNotRunning, apptrace.RefusedShutdown, apptrace.RefusedReset:
			m.toTerminal++
		}
	}
	if d.Pod != "" && d.Routed != proxytrace.StateTerminating && !m.readyAt(d.Pod, at-sim.Time(d.Latency)) {
		m.toUnready++
	}
}

// readyAt reports the readiness pod's kubelet last reported at or before
// t (false before any report).
func (m *Traffic) readyAt(pod string, t sim.Time) bool {
	h := m.ready[pod]
	i := sort.Search(len(h), func(i int) bool { return h[i].at > t })
	return i > 0 && h[i-1].ready
}

// Finish implements checks.Check: it measures, it does not judge.
func (m *Traffic) Finish() checks.Result {
	v := m.Values()
	return checks.Result{Name: m.Name(), OK: true, Detail: fmt.Sprintf("%d requests, success %.4f, to unready %d, to terminated %d",
		m.requests, v["request_success"], m.toUnready, m.toTerminal)}
}

// Measures implements checks.Measurer.
func (m *Traffic) Measures() map[string]float64 { return m.Values() }

// Values returns the metrics by name.
func (m *Traffic) Values() map[string]float64 {
	v := map[string]float64{
		"requests":               float64(m.requests),
		"request_success":        -1,
		"request_latency_p50_ms": -1,
		"request_latency_p99_ms": -1,
		"requests_to_unready":    float64(m.toUnready),
		"requests_to_terminated": float64(m.toTerminal),
	}
	if m.requests > 0 {
		v["request_success"] = float64(m.ok) / float64(m.requests)
	}
	if m.latencies.len() > 0 {
		v["request_latency_p50_ms"] = m.latencies.percentileMs(0.50)
		v["request_latency_p99_ms"] = m.latencies.percentileMs(0.99)
	}
	return v
}
