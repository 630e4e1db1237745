package scenarios

import (
	"sort"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// Metrics is a trace subscriber that measures a run from the client's side:
// how many operations succeeded, how fast, and how often leadership moved.
type Metrics struct {
	calls        map[callKey]callInfo
	writes       opCount
	reads        opCount
	writeLatency []float64 // milliseconds, successful writes
	readLatency  []float64
	leaderTerms  map[uint64]bool
}

type callKey struct {
	client string
	op     uint64
}

type callInfo struct {
	at    sim.Time
	write bool
}

type opCount struct{ attempted, ok int }

// NewMetrics makes an empty collector; attach it with World.Subscribe.
func NewMetrics() *Metrics {
	return &Metrics{calls: map[callKey]callInfo{}, leaderTerms: map[uint64]bool{}}
}

// Observe consumes one trace event.
func (m *Metrics) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.Call:
		write := d.Kind != etcdtrace.OpGet
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

// Values returns the metrics by name, as `run --json` prints them.
func (m *Metrics) Values() map[string]float64 {
	return map[string]float64{
		"write_availability":   ratio(m.writes),
		"read_availability":    ratio(m.reads),
		"writes_attempted":     float64(m.writes.attempted),
		"writes_ok":            float64(m.writes.ok),
		"reads_attempted":      float64(m.reads.attempted),
		"reads_ok":             float64(m.reads.ok),
		"leader_elections":     float64(len(m.leaderTerms)),
		"write_latency_p50_ms": percentile(m.writeLatency, 0.50),
		"write_latency_p99_ms": percentile(m.writeLatency, 0.99),
		"read_latency_p50_ms":  percentile(m.readLatency, 0.50),
		"read_latency_p99_ms":  percentile(m.readLatency, 0.99),
	}
}

// WriteLatencies returns the latency of every successful write, in
// milliseconds, in the order they returned.
func (m *Metrics) WriteLatencies() []float64 { return m.writeLatency }

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
	i := int(q*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}
