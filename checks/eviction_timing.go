package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Defaults of EvictionTimingOptions: Kubernetes' own.
const (
	// DefaultEvictionGrace is the node lifecycle controller's
	// --node-monitor-grace-period (50 s since Kubernetes 1.29).
	DefaultEvictionGrace = 50 * time.Second
	// DefaultEvictionToleration is the tolerationSeconds the
	// DefaultTolerationSeconds admission plugin gives every pod for the
	// not-ready and unreachable NoExecute taints (300 s).
	DefaultEvictionToleration = 300 * time.Second
	// DefaultEvictionMonitorPeriod is --node-monitor-period (5 s).
	DefaultEvictionMonitorPeriod = 5 * time.Second
	// DefaultEvictionSlack absorbs the informer and request delays between
	// the controller's decision and the admitted delete.
	DefaultEvictionSlack = time.Second
	// DefaultEvictionOverdue: the kubelet renews its node Lease every 10 s
	// (a quarter of its 40 s duration), so a deletion less than 15 s after
	// the node's last heartbeat is on a node that is still heard from.
	DefaultEvictionOverdue = 15 * time.Second
	// DefaultEvictionMargin is how long past the latest allowed eviction a
	// pod may still be undeleted on a lost node.
	DefaultEvictionMargin = 10 * time.Second
)

// EvictionTimingOptions configure the eviction-timing check; zero fields
// take the defaults above.
type EvictionTimingOptions struct {
	Grace, Toleration, MonitorPeriod, Slack time.Duration
	// Overdue is how long after a node's last heartbeat a deletion must
	// come to be judged as an eviction.
	Overdue time.Duration
	// Margin is added to the latest eviction time before a pod still on a
	// lost node is a failure.
	Margin time.Duration
	// TaintsTraced says that the node lifecycle controller traces every
	// NoExecute taint it adds (spoketrace.NodeTaint), as kubesim's does:
	// an eviction from a node with none traced is then a failure, since
	// the taint manager evicts only for a NoExecute taint.
	TaintsTraced bool
}

func (o EvictionTimingOptions) withDefaults() EvictionTimingOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Grace, DefaultEvictionGrace)
	def(&o.Toleration, DefaultEvictionToleration)
	def(&o.MonitorPeriod, DefaultEvictionMonitorPeriod)
	def(&o.Slack, DefaultEvictionSlack)
	def(&o.Overdue, DefaultEvictionOverdue)
	def(&o.Margin, DefaultEvictionMargin)
	return o
}

// EvictionTiming checks when the controller manager evicts the pods of a
// node whose heartbeats stopped, against the real node lifecycle
// controller's algorithm. It works in monitor passes (every 5 s): the pass
// that sees a Lease renewal records its own time as the node's probe time
// (0 to 5 s after the renewal); the first pass at least the grace period
// (50 s) after that marks the node Ready=Unknown; the pass after that
// (it taints from the Ready condition it observed before updating it)
// taints the node unreachable:NoExecute; every pod tolerates that taint
// for 300 s, then the taint manager deletes it. So an eviction comes
// between Grace+MonitorPeriod+Toleration (355 s) and
// Grace+2*MonitorPeriod+Toleration (360 s, +Slack) after the node's last
// heartbeat (spoketrace.NodeHeartbeat, an acknowledged Lease renewal): the
// design's "about 350 s", to within the controller's own 5 s granularity.
//
// A deletion of a pod by the controller manager (apitrace.Admit by
// "system:kube-controller-manager", verb delete, resource pods, NodeName N)
// is judged as an eviction when it came at least Overdue after N's last
// heartbeat and that heartbeat gap (until N's next heartbeat, or the end
// of the run) lasted longer than Grace; other deletions are scale-downs of
// a live node and ignored, and so are deletions of the pods of a node
// whose Node object was deleted since its last heartbeat (the pod garbage
// collector force-deletes those). A scale-down of a lost node's pod cannot
// be told apart from an eviction, so scenarios using this check must not
// scale down while nodes are lost. It fails on:
//   - an eviction whose delay since the last heartbeat lies outside
//     [Grace+MonitorPeriod+Toleration, Grace+2*MonitorPeriod+Toleration+Slack];
//   - a pod known on N (bound to it, or a container started there) by N's
//     last heartbeat and still not deleted (by anyone) Margin after the
//     latest eviction time, when the gap lasted that long.
//
// Where the node lifecycle controller traced the NoExecute taint
// (spoketrace.NodeTaint), an eviction must also come Toleration (to within
// Slack) after it: the design's 300 s, to the second. With TaintsTraced,
// an eviction from a node with no NoExecute taint traced fails too.
//
// In a run with BUGGIFY on, both windows widen on each side by the delays
// its points drew around the events they measure from and to
// (BuggifyDelays.Stretch, over the Slack before, and for a heartbeat the
// monitor period after, each): a taint update or a Lease renewal whose
// acknowledgement lagged, an informer behind, a delete refused with 429
// and sent again after its Retry-After.
//
// It measures "eviction_delay_s" (the mean delay of the evictions),
// "eviction_delay_max_s" (the longest; both -1 without evictions),
// "evictions", and "eviction_after_taint_s" (the mean delay since the
// taint, -1 without).
type EvictionTiming struct {
	opts   EvictionTimingOptions
	lo, hi time.Duration
	nodes  map[string]*evictNode
	rec    earliestOffenses
	delays []time.Duration
	// afterTaint are the evictions' delays since their node's NoExecute
	// taint, where it was traced.
	afterTaint []time.Duration
	end        sim.Time
	done       bool
	buggify    BuggifyDelays
}

// evictNode is what the check knows of one node.
type evictNode struct {
	hb      bool // a heartbeat was seen
	lastHB  sim.Time
	hbSeq   uint64
	pods    map[string]*evictPod // pod key -> its life on the node
	deletes []evictCandidate     // controller-manager deletions in the current gap
	deleted int                  // pods with deleted set
	gone    bool                 // its Node was deleted since its last heartbeat
	taints  map[string]sim.Time  // NoExecute taints present -> when added
}

// evictPod is a pod known on a node.
type evictPod struct {
	known   sim.Time
	deleted sim.Time // first admitted delete; 0 while none
	wasDel  bool
}

// evictCandidate is a controller-manager deletion of a pod on a node.
type evictCandidate struct {
	key   string
	at    sim.Time
	seq   uint64
	delay time.Duration
	// sinceTaint is how long the node's oldest NoExecute taint had been
	// there (spoketrace.NodeTaint), -1 when it had none.
	sinceTaint time.Duration
}

// NewEvictionTiming returns the "eviction-timing" check.
func NewEvictionTiming(opts EvictionTimingOptions) *EvictionTiming {
	o := opts.withDefaults()
	return &EvictionTiming{opts: o, lo: o.Grace + o.MonitorPeriod + o.Toleration, hi: o.Grace + 2*o.MonitorPeriod + o.Toleration + o.Slack,
		nodes: map[string]*evictNode{}}
}

// Name implements Check.
func (c *EvictionTiming) Name() string { return "eviction-timing" }

func (c *EvictionTiming) node(name string) *evictNode {
	return getOrNew(c.nodes, name, func() *evictNode {
		return &evictNode{pods: map[string]*evictPod{}, taints: map[string]sim.Time{}}
	})
}

// Observe implements Check.
func (c *EvictionTiming) Observe(e *sim.Event) {
	c.end = max(c.end, e.At)
	c.buggify.Observe(e)
	switch d := e.NodeData().(type) {
	case *spoketrace.NodeHeartbeat:
		n := c.node(d.Node)
		if n.hb {
			c.closeGap(d.Node, n, e.At)
		}
		n.hb, n.lastHB, n.hbSeq, n.gone = true, e.At, e.Seq, false
	case *spoketrace.NodeTaint:
		n := c.node(d.Node)
		if _, ok := n.taints[d.Taint]; d.Added && !ok {
			n.taints[d.Taint] = e.At
		} else if !d.Added {
			delete(n.taints, d.Taint)
		}
	case *spoketrace.Bound:
		c.notePod(d.Node, d.Pod, e.At)
	case *spoketrace.ContainerStart:
		c.notePod(d.Node, d.Pod, e.At)
	case *apitrace.Admit:
		switch {
		case d.Verb == "delete" && d.Resource == "pods" && d.NodeName != "":
			c.handleDelete(e, d)
		case d.Verb == "delete" && d.Resource == "nodes":
			c.node(d.Key).gone = true
		}
	}
}

// notePod notes that pod key is on node since at, unless already known
// (a container restarting in a pod being deleted does not undo the delete).
func (c *EvictionTiming) notePod(node, key string, at sim.Time) {
	n := c.node(node)
	if n.pods[key] == nil {
		n.pods[key] = &evictPod{known: at}
	}
}

// handleDelete notes an admitted delete of a pod bound to a node.
func (c *EvictionTiming) handleDelete(e *sim.Event, d *apitrace.Admit) {
	n := c.node(d.NodeName)
	p := getOrNew(n.pods, d.Key, func() *evictPod { return &evictPod{known: e.At} })
	if p.wasDel {
		return // already being deleted: the first delete counts
	}
	p.deleted, p.wasDel = e.At, true
	n.deleted++
	if d.User == controllerManagerUser && n.hb && !n.gone {
		since := time.Duration(-1)
		for _, t := range sim.SortedKeys(n.taints) {
			since = max(since, e.At.Sub(n.taints[t]))
		}
		n.deletes = append(n.deletes, evictCandidate{key: d.Key, at: e.At, seq: e.Seq, delay: e.At.Sub(n.lastHB), sinceTaint: since})
	}
}

// closeGap judges node's heartbeat gap, which ends at t (its next
// heartbeat, or the end of the run), and forgets its deleted pods.
func (c *EvictionTiming) closeGap(name string, n *evictNode, t sim.Time) {
	gap := t.Sub(n.lastHB)
	if gap > c.opts.Grace {
		for _, d := range n.deletes {
			if d.delay < c.opts.Overdue {
				continue
			}
			c.delays = append(c.delays, d.delay)
			atEvict := c.buggify.Stretch(d.at.Add(-c.opts.Slack), d.at)
			s := atEvict + c.buggify.Stretch(n.lastHB.Add(-c.opts.Slack), n.lastHB.Add(c.opts.MonitorPeriod))
			if d.delay < c.lo-s || d.delay > c.hi+s {
				c.rec.add(d.at, d.seq, "pod %s evicted from node %s %.1f s after its last heartbeat (at %v), outside [%v, %v]",
					d.key, name, d.delay.Seconds(), n.lastHB, c.lo, c.hi)
			}
			if d.sinceTaint < 0 && c.opts.TaintsTraced {
				c.rec.add(d.at, d.seq, "pod %s evicted from node %s, which has no NoExecute taint traced", d.key, name)
			}
			if d.sinceTaint >= 0 {
				c.afterTaint = append(c.afterTaint, d.sinceTaint)
				taint := d.at.Add(-d.sinceTaint)
				s := atEvict + c.buggify.Stretch(taint.Add(-c.opts.Slack), taint)
				if d.sinceTaint < c.opts.Toleration-s || d.sinceTaint > c.opts.Toleration+c.opts.Slack+s {
					c.rec.add(d.at, d.seq, "pod %s evicted from node %s %.3f s after its NoExecute taint, not within %v of the %v toleration",
						d.key, name, d.sinceTaint.Seconds(), c.opts.Slack, c.opts.Toleration)
				}
			}
		}
	}
	if deadline := n.lastHB.Add(c.hi + c.opts.Margin); t > deadline {
		for _, key := range sim.SortedKeys(n.pods) {
			p := n.pods[key]
			if p.known > n.lastHB || (p.wasDel && p.deleted <= deadline) {
				continue
			}
			late := "not deleted by the end of the gap"
			if p.wasDel {
				late = fmt.Sprintf("deleted only at %v", p.deleted)
			}
			c.rec.add(n.lastHB, n.hbSeq, "node %s sent no heartbeat for %.1f s after %v, but pod %s on it was still not deleted at %v (%s)",
				name, gap.Seconds(), n.lastHB, key, deadline, late)
		}
	}
	n.deletes = n.deletes[:0]
	if n.deleted > 0 {
		for _, key := range sim.SortedKeys(n.pods) {
			if n.pods[key].wasDel {
				delete(n.pods, key)
			}
		}
		n.deleted = 0
	}
}

// finish closes every open gap at the end of the run, once.
func (c *EvictionTiming) finish() {
	if c.done {
		return
	}
	c.done = true
	for _, name := range sim.SortedKeys(c.nodes) {
		if n := c.nodes[name]; n.hb {
			c.closeGap(name, n, c.end)
		}
	}
}

// Finish implements Check.
func (c *EvictionTiming) Finish() Result {
	c.finish()
	taint := ""
	if len(c.afterTaint) > 0 {
		taint = fmt.Sprintf(" and %d within %v after %v of NoExecute taint", len(c.afterTaint), c.opts.Slack, c.opts.Toleration)
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d eviction(s) of pods on lost nodes, all within [%v, %v] of the last heartbeat%s; no pod left on a lost node",
		len(c.delays), c.lo, c.hi, taint))
}

// Measures implements Measurer: eviction_delay_s, eviction_delay_max_s and
// evictions.
func (c *EvictionTiming) Measures() map[string]float64 {
	c.finish()
	mean, most := -1.0, -1.0
	if len(c.delays) > 0 {
		var sum time.Duration
		for _, d := range c.delays {
			sum += d
			most = max(most, d.Seconds())
		}
		mean = sum.Seconds() / float64(len(c.delays))
	}
	after := -1.0
	if len(c.afterTaint) > 0 {
		var sum time.Duration
		for _, d := range c.afterTaint {
			sum += d
		}
		after = sum.Seconds() / float64(len(c.afterTaint))
	}
	return map[string]float64{"eviction_delay_s": mean, "eviction_delay_max_s": most, "evictions": float64(len(c.delays)),
		"eviction_after_taint_s": after}
}

var (
	_ Check    = (*EvictionTiming)(nil)
	_ Measurer = (*EvictionTiming)(nil)
)
