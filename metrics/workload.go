package metrics

import (
	"sort"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Workload is a trace subscriber that measures a run from the client's side:
// how many operations succeeded, how fast, and how often leadership moved.
type Workload struct {
	calls        map[callKey]callInfo
	writes       opCount
	reads        opCount
	writeLatency []float64 // milliseconds, successful writes
	readLatency  []float64
	leaderTerms  map[uint64]bool
	latencyHist  []int // successful writes per LatencyBucketsMs bucket

	// Recovery: for each fault, the time until a write invoked after it
	// succeeded.
	openFaults []sim.Time
	lastFault  struct {
		at   sim.Time
		name string
	}
	recoveries []float64 // seconds
}

// LatencyBucketsMs are the upper bounds, in milliseconds, of the write
// latency histogram in a run's metrics; the last bucket is unbounded.
var LatencyBucketsMs = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

type callKey struct {
	client string
	op     uint64
}

type callInfo struct {
	at    sim.Time
	write bool
}

type opCount struct{ attempted, ok int }

// NewWorkload makes an empty collector; attach it with World.Subscribe.
func NewWorkload() *Workload {
	return &Workload{calls: map[callKey]callInfo{}, leaderTerms: map[uint64]bool{}, latencyHist: make([]int, len(LatencyBucketsMs)+1)}
}

// Observe consumes one trace event.
func (m *Workload) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		// A fault on several hosts emits one event per host: count it once.
		if sim.ParseFaultEvent(e.Name).Starts() && (e.At != m.lastFault.at || e.Name != m.lastFault.name) {
			m.openFaults = append(m.openFaults, e.At)
		}
		m.lastFault.at, m.lastFault.name = e.At, e.Name
		return
	}
	switch d := e.NodeData().(type) {
	case *etcdtrace.Call:
		if d.Kind == etcdtrace.OpList || d.Rev != 0 {
			return // a watcher's list, or a read at a past revision (which fails below a compaction by design), measures no availability
		}
		write := d.Kind.Writes()
		m.calls[callKey{d.Client, d.Op}] = callInfo{at: e.At, write: write}
		if write {
			m.writes.attempted++
		} else {
			m.reads.attempted++
		}
	case *etcdtrace.Return:
		k := callKey{d.Client, d.Op}
		c, ok := m.calls[k]
		if !ok {
			return
		}
		delete(m.calls, k)
		if d.Outcome != etcdtrace.OutcomeOK {
			return
		}
		ms := float64(e.At-c.at) / 1e6
		if c.write {
			m.writes.ok++
			m.writeLatency = append(m.writeLatency, ms)
			m.latencyHist[bucketOf(ms)]++
			m.recover(c.at, e.At)
		} else {
			m.reads.ok++
			m.readLatency = append(m.readLatency, ms)
		}
	case *etcdtrace.RaftState:
		if d.Role == "leader" {
			m.leaderTerms[d.Term] = true
		}
	}
}

// Values returns the metrics by name, as `run --json` prints them. A run
// measures only what its workload did: without KV writes (a full-stack or
// API scenario has no etcd KV workload) it has no write availability,
// write latency, write counts or recovery times, rather than zeros that
// would read as measurements; likewise for reads. Latency percentiles
// need a successful operation, and the recovery times a recovered fault.
func (m *Workload) Values() map[string]float64 {
	v := map[string]float64{
		"leader_elections": float64(len(m.leaderTerms)),
		"faults":           float64(len(m.recoveries) + len(m.openFaults)),
	}
	if m.writes.attempted > 0 {
		v["write_availability"] = ratio(m.writes)
		v["writes_attempted"] = float64(m.writes.attempted)
		v["writes_ok"] = float64(m.writes.ok)
		v["faults_unrecovered"] = float64(len(m.openFaults))
	}
	if len(m.writeLatency) > 0 {
		v["write_latency_p50_ms"] = percentile(m.writeLatency, 0.50)
		v["write_latency_p99_ms"] = percentile(m.writeLatency, 0.99)
	}
	if m.reads.attempted > 0 {
		v["read_availability"] = ratio(m.reads)
		v["reads_attempted"] = float64(m.reads.attempted)
		v["reads_ok"] = float64(m.reads.ok)
	}
	if len(m.readLatency) > 0 {
		v["read_latency_p50_ms"] = percentile(m.readLatency, 0.50)
		v["read_latency_p99_ms"] = percentile(m.readLatency, 0.99)
	}
	if len(m.recoveries) > 0 {
		v["recovery_mean_s"] = mean(m.recoveries)
		v["recovery_max_s"] = maxOf(m.recoveries)
	}
	return v
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// recover closes every open fault that began before a successful write was
// invoked at call and returned at ret.
func (m *Workload) recover(call, ret sim.Time) {
	kept := m.openFaults[:0]
	for _, at := range m.openFaults {
		if at <= call {
			m.recoveries = append(m.recoveries, (ret - at).Seconds())
		} else {
			kept = append(kept, at)
		}
	}
	m.openFaults = kept
}

func bucketOf(ms float64) int {
	for i, ub := range LatencyBucketsMs {
		if ms <= ub {
			return i
		}
	}
	return len(LatencyBucketsMs)
}

// LatencyHistogram returns successful writes per LatencyBucketsMs bucket.
func (m *Workload) LatencyHistogram() []int { return m.latencyHist }

// WriteLatencies returns the latency of every successful write, in
// milliseconds, in the order they returned.
func (m *Workload) WriteLatencies() []float64 { return m.writeLatency }

func ratio(c opCount) float64 {
	if c.attempted == 0 {
		return 0
	}
	return float64(c.ok) / float64(c.attempted)
}

// percentile returns the nearest-rank q-quantile of xs, or 0 when empty.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[rank(len(s), q)]
}

// rank is the index, in ascending order, of the nearest-rank q-quantile
// of n > 0 values.
func rank(n int, q float64) int {
	i := int(q*float64(n)+0.999999) - 1
	return min(max(i, 0), n-1)
}
