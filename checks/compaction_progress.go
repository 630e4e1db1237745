package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// CompactionSlack is what compaction-progress allows beyond its rounds: an
// etcd election after the last fault healed, a Txn's round trip and the
// compaction's commit and apply.
const CompactionSlack = 10 * time.Second

// CompactionProgress checks that the API servers keep compacting etcd once
// the faults are over. kube-apiserver's compactor (k8s.io/apiserver
// pkg/storage/etcd3/compact.go, compactor and compact) ticks every
// --etcd-compaction-interval on every replica: a Txn bumps compact_rev_key
// if its version is the one the replica last saw, and otherwise reads the
// key and learns its version. So after one round in which every replica's
// Txn is answered, every replica knows the version, and in each round after
// that the first replica to tick wins and compacts to the revision it
// recorded a round earlier. With every fault healed at FaultEnd, a new
// compaction (a revision above every earlier one) must be applied by some
// member at most 3 intervals plus CompactionSlack after FaultEnd, after the
// compaction before it, and before the end of the run. A replica that
// restarted starts at version 0 and learns it from its first lost Txn; one
// that cannot learn it (or a winner whose Txn timed out) stops compaction
// for good, and etcd's history then grows without bound. Runs whose settle
// window is shorter than the bound are not judged.
type CompactionProgress struct {
	interval time.Duration
	faultEnd sim.Time
	last     sim.Event // the last event (its time is the run's end)
	maxRev   int64     // the highest compaction revision applied so far
	before   int64     // the highest applied by FaultEnd
	since    sim.Time  // when the current gap began (FaultEnd or a compaction)
	count    int       // new compactions after FaultEnd
	rec      Recorder
}

// NewCompactionProgress judges API servers that compact every interval
// (0: they do not compact, and nothing is judged) in a run whose faults
// end at faultEnd.
func NewCompactionProgress(interval time.Duration, faultEnd sim.Time) *CompactionProgress {
	return &CompactionProgress{interval: interval, faultEnd: faultEnd, since: faultEnd}
}

// Name implements Check.
func (c *CompactionProgress) Name() string { return "compaction-progress" }

// bound is the longest a judged gap between compactions may last.
func (c *CompactionProgress) bound() time.Duration { return 3*c.interval + CompactionSlack }

// Observe implements Check.
func (c *CompactionProgress) Observe(e *sim.Event) {
	c.last = sim.Event{At: e.At, Seq: e.Seq}
	a, ok := e.Data.(*etcdtrace.Apply)
	if !ok || a.Compact <= c.maxRev {
		return
	}
	c.maxRev = a.Compact
	if e.At <= c.faultEnd {
		c.before = a.Compact
		return
	}
	c.gap(e, fmt.Sprintf("the next compaction (to revision %d)", a.Compact))
	c.since = e.At
	c.count++
}

// gap judges the gap from c.since to e, which ended with what.
func (c *CompactionProgress) gap(e *sim.Event, what string) {
	if d := time.Duration(e.At - c.since); d > c.bound() {
		c.rec.Add(e, "%s", fmt.Sprintf("no compaction for %.1f s after %v (more than 3 × the %v compaction interval + %v) until %s: the API servers stopped compacting etcd",
			d.Seconds(), c.since, c.interval, CompactionSlack, what))
	}
}

// Finish implements Check.
func (c *CompactionProgress) Finish() Result {
	if c.interval <= 0 {
		return Result{Name: c.Name(), OK: true, Detail: "the API servers do not compact"}
	}
	if after := time.Duration(c.last.At - c.faultEnd); after < c.bound() {
		return Result{Name: c.Name(), OK: true, Detail: fmt.Sprintf("not judged: the %.0f s after the faults are shorter than %v", after.Seconds(), c.bound())}
	}
	c.gap(&c.last, "the end of the run")
	return c.rec.Result(c.Name(), fmt.Sprintf("%d compaction(s) after the faults (to revision %d; %d before)", c.count, c.maxRev, c.before))
}
