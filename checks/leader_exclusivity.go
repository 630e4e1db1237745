package checks

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Defaults of LeaderExclusivityOptions: client-go's leader election
// defaults, as kube-controller-manager and kube-scheduler use them
// (--leader-elect-renew-deadline, --leader-elect-retry-period). The lease
// duration (15 s) is read from each Lease record, as a candidate reads it.
const (
	DefaultLeaderRenewDeadline = 10 * time.Second
	DefaultLeaderRetryPeriod   = 2 * time.Second
	// leaderClockSlack absorbs the rounding of a drifting clock's readings
	// (the kernel rounds each to the nanosecond).
	leaderClockSlack = time.Microsecond
)

// LeaderComponent is a leader-elected component, as spoketrace events name
// it, and its Lease ("namespace/name").
type LeaderComponent struct {
	Component string
	Lease     string
	// ReleaseOnCancel is the component's leader election setting: when
	// set, a leader whose renew round ended releases its Lease before it
	// stops, and acts on while it does (see LeaderExclusivity).
	ReleaseOnCancel bool
}

// DefaultLeaderComponents are the control plane's: kube-controller-manager
// and kube-scheduler, on the Leases of the same names in kube-system.
func DefaultLeaderComponents() []LeaderComponent {
	return []LeaderComponent{
		// kube-controller-manager leaves ReleaseOnCancel off
		// (cmd/kube-controller-manager/app/controllermanager.go,
		// leaderElectAndRun); kube-scheduler turns it on
		// (cmd/kube-scheduler/app/options/options.go,
		// makeLeaderElectionConfig).
		{"kube-controller-manager", "kube-system/kube-controller-manager", false},
		{"kube-scheduler", "kube-system/kube-scheduler", true},
	}
}

// LeaderExclusivityOptions configure the leader-exclusivity check; zero
// fields take the defaults.
type LeaderExclusivityOptions struct {
	Components                 []LeaderComponent
	RenewDeadline, RetryPeriod time.Duration
}

// LeaderExclusivity checks that leader-elected components act as leaders
// only within what client-go's Lease algorithm guarantees
// (k8s.io/client-go/tools/leaderelection/leaderelection.go). That
// algorithm has no fencing ("does not guarantee that only one client is
// acting as a leader", its package doc): each side judges time on its own
// clock only, and the guarantee is the two rules that follow, each on the
// clock of the replica it binds (rebuilt from the trace's clock-drift
// faults):
//
//   - the leader stops: a replica sends writes as leader
//     (spoketrace.LeaderWrite, as they leave) only while it leads
//     (spoketrace.Leading), and only until its renew deadline: renew()
//     runs a round at once after acquiring and RetryPeriod (2 s) after
//     each renewal (spoketrace.LeaderRenewed, the answer received), and a
//     round that has not renewed by RenewDeadline (10 s) ends the
//     leadership; so 10 s after acquiring, 12 s after the last renewal,
//     on its own monotonic clock. Both are timers, and a process frozen
//     (a pause) when one falls due runs it when it resumes, after the
//     work that fell due before it: a leader frozen between rounds
//     resumes into a fresh round of 10 s, however long it was frozen (it
//     acts on, though its first try finds another holder: a round ends
//     on success or at its deadline only), and one frozen within a round
//     sends its overdue work at the instant it resumes, then steps down.
//     A component with ReleaseOnCancel (kube-scheduler) then releases
//     its Lease before it stops, and its work goes on meanwhile: Run
//     cancels OnStartedLeading's context only once renew has returned,
//     and renew calls release last, which is bounded by a context of
//     RenewDeadline; so its writes may go on RenewDeadline (10 s) past
//     the renew deadline, on its clock.
//   - a candidate waits: a replica takes a Lease that another holds (its
//     record, committed in etcd, names it after naming the other) only
//     once its own clock has advanced the record's leaseDurationSeconds
//     (15 s) since the other's last record was committed: client-go takes
//     over when the record it observed has not changed for the lease
//     duration since it observed it (tryAcquireOrRenew, observedTime, a
//     monotonic reading), and it observed it after the commit.
//
// Two leaders may still act at once, and the check counts it: a deposed
// leader's writes while the committed record names another (the clocks'
// rates differ by more than client-go tolerates, a renewal's answer came
// late, or a frozen leader resumed). It measures "zombie_writes" and
// "leader_overlap_s", the longest time from a takeover to such a write.
type LeaderExclusivity struct {
	opts    LeaderExclusivityOptions
	clocks  hostClocks
	comps   []*lxComponent
	byKey   map[string]*lxComponent // etcd key of the Lease
	byName  map[string]*lxComponent
	revs    appliedRevs
	faults  FaultWindows
	pauses  map[sim.HostID][]lxPause
	rec     earliestOffenses
	overlap time.Duration
}

// lxComponent is what the check knows of one component.
type lxComponent struct {
	name, lease string
	release     bool     // ReleaseOnCancel
	rec         lxRecord // the Lease as last committed
	hasRec      bool
	replicas    map[string]*lxReplica
	pending     []lxTakeover // takeovers by a replica whose host is not known yet
	writes      int
	takeovers   int
	zombies     int
	firstZombie string
}

// lxRecord is a committed Lease record.
type lxRecord struct {
	holder string
	dur    time.Duration
	at     sim.Time // first applied
	since  sim.Time // when its holder's first record was committed
}

// lxTakeover is a record that named a new holder after another.
type lxTakeover struct {
	from, to string
	prev     lxRecord
	at       sim.Time
	seq      uint64
}

// lxReplica is one replica (an identity) of a component.
type lxReplica struct {
	host      sim.HostID
	led       bool // it led at some point
	leading   bool
	renewAt   sim.Time // its acquisition or last renewal
	renewed   bool     // renewAt is a renewal, not the acquisition
	stoppedAt sim.Time
	stopWhy   string
}

// lxPause is a pause of a host.
type lxPause struct {
	start, resumed sim.Time
	hasResumed     bool
}

// NewLeaderExclusivity returns the "leader-exclusivity" check.
func NewLeaderExclusivity(opts LeaderExclusivityOptions) *LeaderExclusivity {
	if len(opts.Components) == 0 {
		opts.Components = DefaultLeaderComponents()
	}
	if opts.RenewDeadline <= 0 {
		opts.RenewDeadline = DefaultLeaderRenewDeadline
	}
	if opts.RetryPeriod <= 0 {
		opts.RetryPeriod = DefaultLeaderRetryPeriod
	}
	c := &LeaderExclusivity{opts: opts, clocks: newHostClocks(), byKey: map[string]*lxComponent{},
		byName: map[string]*lxComponent{}, pauses: map[sim.HostID][]lxPause{}, overlap: -1}
	for _, lc := range opts.Components {
		comp := &lxComponent{name: lc.Component, lease: lc.Lease, release: lc.ReleaseOnCancel, replicas: map[string]*lxReplica{}}
		c.comps = append(c.comps, comp)
		c.byKey[registryRoot+model.ResourceLeasesName+"/"+lc.Lease] = comp
		c.byName[lc.Component] = comp
	}
	return c
}

// Name implements Check.
func (c *LeaderExclusivity) Name() string { return "leader-exclusivity" }

// Observe implements Check.
func (c *LeaderExclusivity) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		c.clocks.observe(e)
		c.fault(e)
		return
	}
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.apply(e, d)
	case *spoketrace.Leading:
		if comp := c.byName[d.Component]; comp != nil {
			r := c.replica(comp, d.Identity, e.Host)
			if d.Leading {
				r.led, r.leading, r.renewAt, r.renewed = true, true, e.At, false
			} else if r.leading {
				r.leading, r.stoppedAt, r.stopWhy = false, e.At, "it stepped down"
			}
		}
	case *spoketrace.LeaderRenewed:
		if comp := c.byName[d.Component]; comp != nil {
			if r := c.replica(comp, d.Identity, e.Host); r.leading {
				r.renewAt, r.renewed = e.At, true
			}
		}
	case *spoketrace.LeaderWrite:
		if comp := c.byName[d.Component]; comp != nil {
			c.write(e, comp, d)
		}
	}
}

// fault follows crashes (a crashed leader leads no more) and pauses (a
// crash ends one, unresumed).
func (c *LeaderExclusivity) fault(e *sim.Event) {
	if e.Host == sim.NoHost {
		return
	}
	wasPaused, wasCrashed := c.faults.Paused(e.Host), c.faults.Crashed(e.Host)
	c.faults.Observe(e)
	switch paused := c.faults.Paused(e.Host); {
	case paused && !wasPaused:
		c.pauses[e.Host] = append(c.pauses[e.Host], lxPause{start: e.At})
	case wasPaused && !paused:
		ps := c.pauses[e.Host]
		ps[len(ps)-1].resumed, ps[len(ps)-1].hasResumed = e.At, true
	}
	if wasCrashed || !c.faults.Crashed(e.Host) {
		return
	}
	for _, comp := range c.comps {
		for _, id := range sim.SortedKeys(comp.replicas) {
			if r := comp.replicas[id]; r.host == e.Host && r.leading {
				r.leading, r.stoppedAt, r.stopWhy = false, e.At, "its host crashed"
			}
		}
	}
}

// replica returns comp's replica id, learning its host.
func (c *LeaderExclusivity) replica(comp *lxComponent, id string, host sim.HostID) *lxReplica {
	r := comp.replicas[id]
	if r == nil {
		r = &lxReplica{host: host}
		comp.replicas[id] = r
		var still []lxTakeover
		for _, t := range comp.pending {
			if t.to == id {
				c.judgeTakeover(comp, t, r)
			} else {
				still = append(still, t)
			}
		}
		comp.pending = still
	}
	return r
}

// apply follows the committed Lease records: the first Apply with changes
// at a revision defines it (every member applies the same entries).
func (c *LeaderExclusivity) apply(e *sim.Event, d *etcdtrace.Apply) {
	if !c.revs.fresh(d) {
		return
	}
	for i := range d.Changes {
		ch := &d.Changes[i]
		comp := c.byKey[ch.Key]
		if comp == nil {
			continue
		}
		if ch.Type == etcdtrace.ChangeDelete {
			comp.hasRec = false
			continue
		}
		obj, err := model.Decode([]byte(ch.Value))
		lease, ok := obj.(*model.Lease)
		if err != nil || !ok {
			continue
		}
		rec := lxRecord{holder: model.Deref(lease.Spec.HolderIdentity, ""),
			dur: time.Duration(model.Deref(lease.Spec.LeaseDurationSeconds, 0)) * time.Second, at: e.At, since: e.At}
		if comp.hasRec && comp.rec.holder == rec.holder {
			rec.since = comp.rec.since
		}
		if comp.hasRec && comp.rec.holder != "" && rec.holder != "" && rec.holder != comp.rec.holder {
			comp.takeovers++
			t := lxTakeover{from: comp.rec.holder, to: rec.holder, prev: comp.rec, at: e.At, seq: e.Seq}
			if r := comp.replicas[t.to]; r != nil {
				c.judgeTakeover(comp, t, r)
			} else {
				comp.pending = append(comp.pending, t)
			}
		}
		comp.rec, comp.hasRec = rec, true
	}
}

// judgeTakeover: the new holder's clock advanced the lease duration since
// the previous holder's last record was committed.
func (c *LeaderExclusivity) judgeTakeover(comp *lxComponent, t lxTakeover, r *lxReplica) {
	el, ok := c.clocks.elapsed(r.host, t.prev.at, t.at)
	if ok && el+leaderClockSlack < t.prev.dur {
		c.rec.add(t.at, t.seq, "%s took the Lease %s from %s %.3f s (on its clock) after %s's last record was committed at %v: client-go takes a Lease over only once the record has not changed for its lease duration (%v) since it saw it",
			t.to, comp.lease, t.from, el.Seconds(), t.from, t.prev.at, t.prev.dur)
	}
}

// write judges a write sent as leader.
func (c *LeaderExclusivity) write(e *sim.Event, comp *lxComponent, d *spoketrace.LeaderWrite) {
	comp.writes++
	r := c.replica(comp, d.Identity, e.Host)
	what := d.Verb + " " + d.Resource + " " + d.Key
	other := ""
	if comp.hasRec && comp.rec.holder != "" && comp.rec.holder != d.Identity {
		other = fmt.Sprintf("; %s had held the Lease since %v", comp.rec.holder, comp.rec.since)
		comp.zombies++
		c.overlap = max(c.overlap, e.At.Sub(comp.rec.since))
		if comp.firstZombie == "" {
			comp.firstZombie = fmt.Sprintf("%s's %s at %v, %.1f s after %s took the Lease", d.Identity, what, e.At, e.At.Sub(comp.rec.since).Seconds(), comp.rec.holder)
		}
	}
	switch {
	case !r.led:
		c.rec.add(e.At, e.Seq, "%s sent %s as leader of %s without ever holding its Lease%s", d.Identity, what, comp.name, other)
	case !r.leading:
		c.rec.add(e.At, e.Seq, "%s sent %s as leader of %s after it stopped leading at %v (%s)%s", d.Identity, what, comp.name, r.stoppedAt, r.stopWhy, other)
	default:
		if dl, ok := c.writeDeadline(e.Host, comp, r); ok && e.At-sim.Time(leaderClockSlack) > dl {
			el, _ := c.clocks.elapsed(e.Host, r.renewAt, e.At)
			last := "acquisition"
			if r.renewed {
				last = "renewal"
			}
			c.rec.add(e.At, e.Seq, "%s sent %s as leader of %s past its renew deadline at %v: %.3f s (on its clock) after its last %s at %v%s",
				d.Identity, what, comp.name, dl, el.Seconds(), last, r.renewAt, other)
		}
	}
}

// deadline is when r's leadership ends unless it renews: its renew round
// starts at once after it acquired the Lease, and when the RetryPeriod
// timer after a renewal fires; the round's RenewDeadline timer then ends
// it. Both are timers of its host, measured on its clock, and fire late
// if the host is frozen when they fall due: at its resume. ok is false
// when the host's clock is unknown.
func (c *LeaderExclusivity) deadline(host sim.HostID, r *lxReplica) (sim.Time, bool) {
	start := r.renewAt
	if r.renewed {
		due, ok := c.clocks.after(host, r.renewAt, c.opts.RetryPeriod)
		if !ok {
			return 0, false
		}
		start = c.firesAt(host, due)
	}
	due, ok := c.clocks.after(host, start, c.opts.RenewDeadline)
	return c.firesAt(host, due), ok
}

// writeDeadline is the last instant r may write as leader of comp: its
// renew deadline, or, for a component that releases its Lease on
// stopping, RenewDeadline later on its clock, the bound of release's
// context (client-go tools/leaderelection/leaderelection.go, Run, renew
// and release).
func (c *LeaderExclusivity) writeDeadline(host sim.HostID, comp *lxComponent, r *lxReplica) (sim.Time, bool) {
	dl, ok := c.deadline(host, r)
	if !ok || !comp.release || dl == sim.Time(math.MaxInt64) {
		return dl, ok
	}
	return c.clocks.after(host, dl, c.opts.RenewDeadline)
}

// firesAt is when a timer of host due at t fires: at t, or when the host
// resumes from a pause it was frozen in at t (never, while it is; a crash
// ends a pause, and its timers with it, and is taken for its end).
func (c *LeaderExclusivity) firesAt(host sim.HostID, t sim.Time) sim.Time {
	for _, p := range c.pauses[host] {
		switch {
		case p.start > t || p.hasResumed && p.resumed <= t:
		case !p.hasResumed:
			return sim.Time(math.MaxInt64)
		default:
			return p.resumed
		}
	}
	return t
}

// Finish implements Check.
func (c *LeaderExclusivity) Finish() Result {
	var parts []string
	for _, comp := range c.comps {
		s := fmt.Sprintf("%s: %d leader writes, %d takeovers", comp.name, comp.writes, comp.takeovers)
		if comp.zombies > 0 {
			s += fmt.Sprintf("; %d writes by a deposed leader while another held the Lease (no fencing), the first %s", comp.zombies, comp.firstZombie)
		}
		parts = append(parts, s)
	}
	return c.rec.result(c.Name(), strings.Join(parts, "; "))
}

// Measures implements Measurer: zombie_writes and leader_overlap_s.
func (c *LeaderExclusivity) Measures() map[string]float64 {
	n := 0
	for _, comp := range c.comps {
		n += comp.zombies
	}
	overlap := -1.0
	if c.overlap >= 0 {
		overlap = c.overlap.Seconds()
	}
	return map[string]float64{"zombie_writes": float64(n), "leader_overlap_s": overlap}
}

var (
	_ Check    = (*LeaderExclusivity)(nil)
	_ Measurer = (*LeaderExclusivity)(nil)
)
