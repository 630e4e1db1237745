package checks

import (
	"fmt"
	"sort"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// DefaultUnreadyRoutingBound is how long after a kubelet reports a pod not
// ready the nodes may still route requests to it, with no fault to slow
// the news: the kubelet's status manager writes the change at once, the
// EndpointSlice controller syncs the Service at once (its endpoint-updates
// batch period defaults to 0), and kube-proxy programs the slice within
// its --iptables-min-sync-period (1 s); a second covers the writes and
// watch deliveries between them.
const DefaultUnreadyRoutingBound = 2 * time.Second

// NoTrafficToUnreadyOptions configure the no-traffic-to-unready check.
type NoTrafficToUnreadyOptions struct {
	// Bound is how long routing may lag a pod's readiness when no fault
	// is active; default DefaultUnreadyRoutingBound.
	Bound time.Duration
	// Recovery is added to Bound after a fault heals (a watch broken by
	// it resumes after client-go's backoff); default
	// DefaultDoubleRunningRecovery.
	Recovery time.Duration
}

// NoTrafficToUnready checks that application requests reach only pods
// that are ready, as the Service rotation promises: kube-proxy never
// routes to an endpoint its slices say is not ready (a request routed in
// state proxytrace.StateNotReady is an offense at once; the terminating
// fallback is allowed), and a request routed as ready to a pod its kubelet
// had already reported not ready when the request was sent is an offense
// when the report is older than Bound and no fault was active within
// Recovery before it. In a run with BUGGIFY on, Bound stretches by the
// delays its points drew between the report and the request
// (BuggifyDelays.Stretch). It reads apptrace.Request, spoketrace.PodReady,
// the kernel's fault events and BUGGIFY's firings.
type NoTrafficToUnready struct {
	opts    NoTrafficToUnreadyOptions
	ready   map[string][]readyAt // pod key -> its kubelet's reports, in time order
	faults  FaultWindows
	buggify BuggifyDelays
	judged  int
	rec     Recorder
}

// readyAt is a kubelet's report of a pod's readiness.
type readyAt struct {
	at    sim.Time
	ready bool
}

// NewNoTrafficToUnready returns the "no-traffic-to-unready" check.
func NewNoTrafficToUnready(opts NoTrafficToUnreadyOptions) *NoTrafficToUnready {
	if opts.Bound == 0 {
		opts.Bound = DefaultUnreadyRoutingBound
	}
	if opts.Recovery == 0 {
		opts.Recovery = DefaultDoubleRunningRecovery
	}
	return &NoTrafficToUnready{opts: opts, ready: map[string][]readyAt{}}
}

// Name implements Check.
func (c *NoTrafficToUnready) Name() string { return "no-traffic-to-unready" }

// Observe implements Check.
func (c *NoTrafficToUnready) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		c.faults.Observe(e)
		return
	}
	c.buggify.Observe(e)
	switch d := e.Data.(type) {
	case *spoketrace.PodReady:
		c.ready[d.Pod] = append(c.ready[d.Pod], readyAt{at: e.At, ready: d.Ready})
	case *apptrace.Request:
		c.judge(e, d)
	}
}

// judge judges one request.
func (c *NoTrafficToUnready) judge(e *sim.Event, r *apptrace.Request) {
	if r.Pod == "" {
		return
	}
	c.judged++
	sent := e.At - sim.Time(r.Latency)
	if r.Routed == proxytrace.StateNotReady {
		c.rec.Add(e, "request of %s sent at %v was routed by %s to %s, an endpoint its slices say is not ready", r.Client, sent, r.Entry, r.Pod)
		return
	}
	if r.Routed != proxytrace.StateReady {
		return
	}
	since, unready := c.unreadySince(r.Pod, sent)
	if !unready || sent.Sub(since) <= c.opts.Bound {
		return
	}
	if sent.Sub(since) <= c.opts.Bound+c.buggify.Stretch(since, sent) {
		return // BUGGIFY's delays: a late status write, a cache behind
	}
	if quiet, ok := c.faults.QuietSince(); c.faults.Active() || (ok && sent.Sub(quiet) <= c.opts.Recovery+c.opts.Bound) {
		return // the news of a fault-time change may be late
	}
	c.rec.Add(e, "request of %s sent at %v was routed by %s to %s as ready, %v after its kubelet reported it not ready (bound %v)",
		r.Client, sent, r.Entry, r.Pod, sent.Sub(since), c.opts.Bound)
}

// unreadySince reports whether pod's kubelet had last reported it not
// ready at t, and since when.
func (c *NoTrafficToUnready) unreadySince(pod string, t sim.Time) (sim.Time, bool) {
	l := c.ready[pod]
	i := sort.Search(len(l), func(i int) bool { return l[i].at > t }) - 1
	if i < 0 || l[i].ready {
		return 0, false
	}
	for i > 0 && !l[i-1].ready {
		i--
	}
	return l[i].at, true
}

// Finish implements Check.
func (c *NoTrafficToUnready) Finish() Result {
	if c.judged == 0 {
		return Result{Name: c.Name(), Detail: "no request reached a pod: nothing was judged"}
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("%d request(s) to pods, none routed to an unready pod beyond %v", c.judged, c.opts.Bound))
}

var _ Check = (*NoTrafficToUnready)(nil)
