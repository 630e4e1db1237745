package checks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// DefaultDoubleRunningGrace is how long a ReplicaSet may run more pods than
// it wants without a fault to explain it: a scaled-down pod keeps running
// for its termination grace period (terminationGracePeriodSeconds, 30 s by
// default) plus the time its kubelet takes to notice the deletion.
const DefaultDoubleRunningGrace = 45 * time.Second

// DefaultDoubleRunningRecovery is how long after the last fault healed a
// kubelet may still not know what happened meanwhile: a reflector whose
// watch failed during the faults waits client-go's backoff (capped at 30 s,
// with up to 100% jitter) before it lists again.
const DefaultDoubleRunningRecovery = 60 * time.Second

// DoubleRunningOptions configure the double-running check.
type DoubleRunningOptions struct {
	// ReplicaSetInformer names the observer informer of replicasets
	// (apitrace.InformerEvent.Informer) that tells the check each
	// ReplicaSet's desired count over time. Its client must trace each
	// ReplicaSet's value as ReplicaSetValue does: client.Config.ValueOf =
	// checks.ReplicaSetValue, so that an event's Value is
	// "<uid>/<spec.replicas>" (e.g. "6f1c02e4-.../3"). Its events are keyed
	// "namespace/name"; a delete event ends what the check knows of that
	// ReplicaSet. Required.
	ReplicaSetInformer string
	// Grace is how long an excess may last with no fault active and none
	// ended within it; default DefaultDoubleRunningGrace.
	Grace time.Duration
	// Recovery is added to Grace after a fault heals; default
	// DefaultDoubleRunningRecovery.
	Recovery time.Duration
}

// ReplicaSetValue is the value the double-running check reads from its
// ReplicaSet informer: "<uid>/<spec.replicas>" of a ReplicaSet
// (spec.replicas defaulting to 1), "" for any other object. Use it as the
// observer informer client's client.Config.ValueOf.
func ReplicaSetValue(obj model.Object) string {
	rs, ok := obj.(*model.ReplicaSet)
	if !ok || rs == nil {
		return ""
	}
	return string(rs.UID) + "/" + strconv.Itoa(int(model.Deref(rs.Spec.Replicas, 1)))
}

// parseReplicaSetValue parses ReplicaSetValue's form.
func parseReplicaSetValue(v string) (uid string, replicas int, ok bool) {
	i := strings.LastIndexByte(v, '/')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return v[:i], n, true
}

// DoubleRunning measures how much a ReplicaSet runs more pods than it
// wants, and fails where Kubernetes does not allow it. Kubernetes lets a
// ReplicaSet run more than spec.replicas while a node is partitioned away:
// the pod on the lost node keeps running (its kubelet cannot learn that it
// was evicted) while its replacement runs elsewhere. Per owner (the
// controller the API servers last committed for the pod, apitrace.Owners,
// so that an adopted or released pod changes owner; before any such
// commit, the controlling owner UID of ContainerStart):
//   - running(t) is the number of its pods with a container running on an
//     up host (a crashed host runs nothing; a paused one is frozen), a pod
//     running on two nodes counting twice;
//   - desired(t) is the ReplicaSet's spec.replicas as the observer
//     informer last reported it (owners it does not hold are not measured);
//   - excess(t) = max(0, running(t) - desired(t)).
//
// It measures "double_running_s", the integral of the excess over the run
// in replica-seconds (summed over owners), and "double_running_max", the
// largest excess of one owner at any time. It fails when an owner's excess
// stays above zero for longer than Grace while no fault is active, and for
// longer than Recovery+Grace after the last fault healed (a kubelet cut off
// meanwhile learns of a deletion only when its reflector lists again). A
// fault is active while a fault window is open (see FaultWindows: a crash
// until its restart, a pause until its resume, a cut until it heals); a
// process restart (restart-process) is no fault here: the host stays up
// and the new kubelet lists at once.
type DoubleRunning struct {
	opts    DoubleRunningOptions
	rt      *runtimeTruth         // its faults are the fault windows
	contrib map[string]runContrib // pod UID -> copies counted in its owner's running
	owners  map[string]*runOwner
	rsKeys  map[string]string // ReplicaSet key -> UID
	rsSeen  bool
	bad     []string // informer values that are not "<uid>/<replicas>"
	rec     earliestOffenses
	end     sim.Time
	done    bool

	inExcess     int  // owners whose excess is above zero
	dirty        bool // nextDeadline must be recomputed
	nextDeadline sim.Time
	integral     float64 // replica-nanoseconds
	maxExcess    int
}

// runContrib is what one pod counts in its owner's running: n copies
// for owner (a pod adopted or released changes owner while it runs).
type runContrib struct {
	n     int
	owner string
}

// runOwner is what the check knows of one owner.
type runOwner struct {
	key              string // the ReplicaSet's namespace/name, once known
	running, desired int
	known            bool // desired is known
	excess           int
	since            sim.Time // when excess last changed
	epAt             sim.Time // when the current excess episode began
	epSeq            uint64
	flagged          bool // the current episode has been reported
}

// NewDoubleRunning returns the "double-running" check.
func NewDoubleRunning(opts DoubleRunningOptions) *DoubleRunning {
	if opts.Recovery <= 0 {
		opts.Recovery = DefaultDoubleRunningRecovery
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultDoubleRunningGrace
	}
	return &DoubleRunning{opts: opts, rt: newRuntimeTruth(),
		contrib: map[string]runContrib{}, owners: map[string]*runOwner{}, rsKeys: map[string]string{}}
}

// Name implements Check.
func (c *DoubleRunning) Name() string { return "double-running" }

func (c *DoubleRunning) owner(uid string) *runOwner {
	return getOrNew(c.owners, uid, func() *runOwner { return &runOwner{} })
}

// Observe implements Check.
func (c *DoubleRunning) Observe(e *sim.Event) {
	c.end = max(c.end, e.At)
	if e.Kind != sim.KindFault && e.Kind != sim.KindNode {
		return
	}
	c.maybeFlag(e.At)
	if e.Kind == sim.KindFault {
		c.dirty = true // c.rt.observe takes the fault in below
	}
	if d, ok := e.Data.(*apitrace.InformerEvent); ok {
		if d.Informer == c.opts.ReplicaSetInformer {
			c.handleReplicaSet(e, d)
		}
		return
	}
	for _, p := range c.rt.observe(e) {
		n, cur := c.rt.copies(p), c.contrib[p.uid]
		if p.owner == "" {
			n = 0
		}
		if n == cur.n && (n == 0 || p.owner == cur.owner) {
			continue
		}
		if cur.n > 0 { // take it off the owner it counted for (it may have changed)
			o := c.owner(cur.owner)
			o.running -= cur.n
			c.syncExcess(o, e)
		}
		c.contrib[p.uid] = runContrib{n, p.owner}
		if n > 0 {
			o := c.owner(p.owner)
			o.running += n
			c.syncExcess(o, e)
		}
	}
}

// handleReplicaSet updates a ReplicaSet's desired count.
func (c *DoubleRunning) handleReplicaSet(e *sim.Event, d *apitrace.InformerEvent) {
	c.rsSeen = true
	if d.Type == "delete" {
		if uid, ok := c.rsKeys[d.Key]; ok {
			delete(c.rsKeys, d.Key)
			o := c.owner(uid)
			o.known = false
			c.syncExcess(o, e)
		}
		return
	}
	uid, n, ok := parseReplicaSetValue(d.Value)
	if !ok {
		if len(c.bad) < MaxOffenses {
			c.bad = append(c.bad, fmt.Sprintf("%s=%q", d.Key, d.Value))
		}
		return
	}
	if prev, had := c.rsKeys[d.Key]; had && prev != uid {
		// The name now holds a new ReplicaSet: the old one is gone.
		old := c.owner(prev)
		old.known = false
		c.syncExcess(old, e)
	}
	c.rsKeys[d.Key] = uid
	o := c.owner(uid)
	o.key, o.desired, o.known = d.Key, n, true
	c.syncExcess(o, e)
}

// syncExcess recomputes o's excess at event e, integrating the old one.
func (c *DoubleRunning) syncExcess(o *runOwner, e *sim.Event) {
	ex := 0
	if o.known {
		ex = max(0, o.running-o.desired)
	}
	if ex == o.excess {
		return
	}
	c.integral += float64(o.excess) * float64(e.At-o.since)
	switch {
	case o.excess == 0:
		c.inExcess++
		o.epAt, o.epSeq, o.flagged = e.At, e.Seq, false
	case ex == 0:
		c.inExcess--
	}
	o.excess, o.since = ex, e.At
	c.maxExcess = max(c.maxExcess, ex)
	c.dirty = true
}

// deadline is when o's current excess episode becomes a violation, if no
// fault starts before.
func (c *DoubleRunning) deadline(o *runOwner) sim.Time {
	d := o.epAt.Add(c.opts.Grace)
	if quiet, ok := c.rt.faults.QuietSince(); ok {
		d = max(d, quiet.Add(c.opts.Recovery+c.opts.Grace))
	}
	return d
}

// maybeFlag reports every excess episode that had lasted longer than
// Grace, with no fault active, before time t.
func (c *DoubleRunning) maybeFlag(t sim.Time) {
	if c.inExcess == 0 || c.rt.faults.Active() {
		return
	}
	if c.dirty {
		c.dirty = false
		c.nextDeadline = -1
		for _, uid := range sim.SortedKeys(c.owners) {
			if o := c.owners[uid]; o.excess > 0 && !o.flagged {
				if d := c.deadline(o); c.nextDeadline < 0 || d < c.nextDeadline {
					c.nextDeadline = d
				}
			}
		}
	}
	if c.nextDeadline < 0 || t <= c.nextDeadline {
		return
	}
	for _, uid := range sim.SortedKeys(c.owners) {
		o := c.owners[uid]
		if o.excess == 0 || o.flagged || t <= c.deadline(o) {
			continue
		}
		o.flagged = true
		quiet := "no fault in the run"
		if at, ok := c.rt.faults.QuietSince(); ok {
			quiet = fmt.Sprintf("the last fault ended at %v", at)
		}
		c.rec.add(o.epAt, o.epSeq, "replicaset %s (uid %s) ran %d pod(s) where %d desired from %v until past %v with no fault active (%s)",
			o.key, uid, o.running, o.desired, o.epAt, c.deadline(o), quiet)
	}
	c.dirty = true
}

// finish closes the run once.
func (c *DoubleRunning) finish() {
	if c.done {
		return
	}
	c.done = true
	c.maybeFlag(c.end)
	for _, uid := range sim.SortedKeys(c.owners) {
		o := c.owners[uid]
		c.integral += float64(o.excess) * float64(c.end-o.since)
		o.since = c.end
	}
}

// Finish implements Check.
func (c *DoubleRunning) Finish() Result {
	c.finish()
	switch {
	case c.opts.ReplicaSetInformer == "":
		return Result{Name: c.Name(), Detail: "no ReplicaSet informer named in the options: desired counts unknown"}
	case len(c.bad) > 0:
		return Result{Name: c.Name(), Detail: fmt.Sprintf("informer %s traces values that are not <uid>/<replicas> (use checks.ReplicaSetValue): %s",
			c.opts.ReplicaSetInformer, strings.Join(c.bad, ", "))}
	case !c.rsSeen && len(c.owners) > 0:
		return Result{Name: c.Name(), Detail: fmt.Sprintf("informer %s reported no ReplicaSet, though owned pods ran", c.opts.ReplicaSetInformer)}
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d owner(s): %.1f replica-seconds of excess, at most %d extra pod(s), none beyond %v without a fault (%v after one healed)",
		len(c.owners), c.integral/float64(time.Second), c.maxExcess, c.opts.Grace, c.opts.Grace+c.opts.Recovery))
}

// Measures implements Measurer: double_running_s and double_running_max.
func (c *DoubleRunning) Measures() map[string]float64 {
	c.finish()
	return map[string]float64{"double_running_s": c.integral / float64(time.Second), "double_running_max": float64(c.maxExcess)}
}

var (
	_ Check    = (*DoubleRunning)(nil)
	_ Measurer = (*DoubleRunning)(nil)
)
