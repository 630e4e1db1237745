package checks

import (
	"fmt"
	"math"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// DefaultEndpointsBound is how long the EndpointSlice controller may take
// to put a pod's change into its Services' slices with no fault about: a
// watch event to its informer, a sync (the endpoint updates batch period
// defaults to 0: pkg/controller/endpointslice, --endpoint-updates-batch-
// period), one write per slice, and a retry after a conflict.
const DefaultEndpointsBound = 2 * time.Second

// EndpointsTimelyOptions configure endpoints-timely.
type EndpointsTimelyOptions struct {
	// Bound is how long after a committed change a pod's endpoint may
	// still differ from it; default DefaultEndpointsBound.
	Bound time.Duration
	// Recovery is how long after the last fault (any kind) the bound of
	// a goal set near it waits to start; default
	// DefaultDoubleRunningRecovery.
	Recovery time.Duration
}

// EndpointsTimely checks that the EndpointSlice controller follows every
// pod in time: once a change of a pod, of its Service or of the set of
// Nodes is committed (the etcd Apply events), each Service selecting the
// pod (before or after the change) must show the pod's endpoint as
// endpoints-converge defines it (or none) in its slices within Bound,
// unless a later change of the same pod or Service set a new goal first.
// A change of a slice sets goals too, for the pods either version of it
// lists, in the Service it was labelled with before and after: a slice
// that a user deleted, edited or relabelled away from its Service must be
// undone (its pods shown again as they are) within Bound, as the
// controller's slice handlers promise (onEndpointSliceDelete,
// onEndpointSliceUpdate), except a user's deletion of a slice the leading
// controller has not written since it began to lead, which is not in its
// tracker and requeues nothing (sliceTracking). A Service without a
// selector (or being deleted) is no longer the controller's: its goals
// are dropped.
// A goal set before the controller wrote its first slice counts from that
// slice. A goal set while a fault was active or within Recovery after one,
// or met by no slice before the next fault, is not excused but deferred:
// its bound counts from Recovery after the last fault, once none is
// active (the controller may have been down, cut off or behind until
// then), so a pod relabelled, made ready or deleted under faults must
// still be shown once the cluster has recovered; one still pending at the
// end, with a fault active or recent, is left unjudged.
// A sync of the Service that failed while a goal was pending (traced as
// spoketrace.ControllerRetry: most often the controller's slice informer
// had not caught up with its own writes) moves the goal's bound to count
// from the retry the controller scheduled: a burst of such failures backs
// the Service off for seconds, as the real work queue's per-item
// exponential backoff does (1 s, doubling).
// In a run with BUGGIFY on, the bound stretches by the delays its points
// drew while the goal was pending (BuggifyDelays.Stretch): a request
// refused with 429 and its Retry-After, a watch cache behind etcd.
// Where endpoints-converge judges states that stood still, this one
// judges every change, including those a later change would hide: a pod
// that began terminating, turned ready or unready, got its IP, or moved
// from one Service's selector to another's (every condition: ready,
// serving and terminating).
type EndpointsTimely struct {
	bound, recovery time.Duration
	revs            appliedRevs
	now             sim.Time
	pods            map[string]*model.Pod                      // "namespace/name"
	services        map[string]*model.Service                  // "namespace/name"
	slices          map[string]map[string]*model.EndpointSlice // by Service, then slice key
	sliceSvc        map[string]string                          // each slice's Service, by slice key
	nodes           map[string]bool
	sliced          bool
	slicedAt        sim.Time // the controller's first slice
	pending         map[endpointGoal]*pendingEndpoint
	// nextCheck is the earliest a pending goal can fall due: expire
	// looks at them again only past it (0: at the next event).
	nextCheck     sim.Time
	faults        FaultWindows
	buggify       BuggifyDelays
	met, deferred int // deferred: goals met after faults delayed them
	tracking      sliceTracking
	retries       sliceRetries
	retried       int // goals whose bound a retry of their Service moved
	untracked     int // users' deletions of slices the controller did not track
	stretched     int // met later than bound, within BUGGIFY's stretch
	lateDeferred  int // late ones among the deferred
	rec           Recorder
}

// endpointGoal is one pod of one Service.
type endpointGoal struct{ svc, pod string }

// pendingEndpoint is an endpoint the slices do not show yet.
type pendingEndpoint struct {
	want  wantEndpoint
	none  bool // the pod must have no endpoint
	since sim.Time
	seq   uint64
	// nearFault: a fault delayed its bound (see EndpointsTimely).
	nearFault bool
	// stretched: it is pending past the bound, within BUGGIFY's stretch.
	stretched bool
}

// NewEndpointsTimely returns the "endpoints-timely" check.
func NewEndpointsTimely(opts EndpointsTimelyOptions) *EndpointsTimely {
	if opts.Bound <= 0 {
		opts.Bound = DefaultEndpointsBound
	}
	if opts.Recovery <= 0 {
		opts.Recovery = DefaultDoubleRunningRecovery
	}
	return &EndpointsTimely{bound: opts.Bound, recovery: opts.Recovery,
		pods: map[string]*model.Pod{}, services: map[string]*model.Service{},
		slices: map[string]map[string]*model.EndpointSlice{}, sliceSvc: map[string]string{}, nodes: map[string]bool{},
		pending: map[endpointGoal]*pendingEndpoint{}, tracking: newSliceTracking(), retries: newSliceRetries()}
}

// Name implements Check.
func (c *EndpointsTimely) Name() string { return "endpoints-timely" }

// Observe implements Check.
func (c *EndpointsTimely) Observe(e *sim.Event) {
	if e.At > c.now {
		c.expire(e.At)
		c.now = e.At
	}
	if e.Kind == sim.KindFault {
		c.faults.Observe(e)
		c.nextCheck = 0 // a fault moves the deadlines
	}
	c.buggify.Observe(e)
	c.tracking.observe(e)
	c.retries.observe(e)
	d, ok := c.revs.of(e)
	if !ok {
		return
	}
	for i := range d.Changes {
		c.change(e, &d.Changes[i])
	}
}

// change applies one committed change and sets the goals it makes.
func (c *EndpointsTimely) change(e *sim.Event, ch *etcdtrace.Change) {
	res, key, ok := splitRegistryKey(ch.Key)
	if !ok {
		return
	}
	var obj model.Object
	if ch.Type == etcdtrace.ChangePut {
		switch res {
		case model.ResourcePodsName, model.ResourceServicesName, model.ResourceEndpointSlicesName, model.ResourceNodesName:
			o, err := model.Decode([]byte(ch.Value))
			if err != nil {
				c.rec.Add(e, "committed %s %s does not decode: %v", res, key, err)
				return
			}
			obj = o
		default:
			return
		}
	}
	switch res {
	case model.ResourcePodsName:
		old := c.pods[key]
		if obj == nil {
			delete(c.pods, key)
		} else {
			c.pods[key] = obj.(*model.Pod)
		}
		for _, svc := range c.servicesOf(old, c.pods[key]) {
			c.setGoal(e, svc, key)
		}
	case model.ResourceServicesName:
		if obj == nil {
			delete(c.services, key)
			c.dropGoals(key)
			return
		}
		svc := obj.(*model.Service)
		c.services[key] = svc
		if len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil {
			// The controller leaves a Service without a selector alone:
			// its slices are no longer the controller's business.
			c.dropGoals(key)
			return
		}
		c.setGoals(e, func(string, *model.Pod) bool { return true }, key)
	case model.ResourceNodesName:
		existed := c.nodes[key]
		c.nodes[key] = obj != nil
		if existed != (obj != nil) {
			c.setGoals(e, func(_ string, p *model.Pod) bool { return p.Spec.NodeName == key }, "")
		}
	case model.ResourceEndpointSlicesName:
		// A slice's Service is the one it is labelled with now; a change
		// of that label moves it from one Service's slices to another's.
		oldSvc, had := c.sliceSvc[key]
		var old, cur *model.EndpointSlice
		if had {
			old = c.slices[oldSvc][key]
			delete(c.slices[oldSvc], key)
			delete(c.sliceSvc, key)
		}
		svc := ""
		if obj != nil {
			cur = obj.(*model.EndpointSlice)
			ns, _, _ := splitNamespaced(key)
			svc = ns + "/" + cur.Labels[model.LabelServiceName]
			if c.slices[svc] == nil {
				c.slices[svc] = map[string]*model.EndpointSlice{}
			}
			c.slices[svc][key], c.sliceSvc[key] = cur, svc
			if !c.sliced {
				c.sliced, c.slicedAt = true, e.At
				c.nextCheck = 0
			}
		}
		if obj == nil && c.tracking.untrackedUserDelete(key) {
			// Not in the controller's tracker: nothing requeues its
			// Service (sliceTracking); a later change of the Service or
			// its pods sets their goals again.
			c.untracked++
		} else {
			c.sliceGoals(e, []string{oldSvc, svc}, old, cur)
		}
		if had && oldSvc != svc {
			c.recheck(oldSvc)
		}
		if svc != "" {
			c.recheck(svc)
		}
	}
}

// sliceGoals sets, after a change of a slice (old before it, cur after,
// either nil), the goal of every pod either version lists in each of the
// Services svcs that the controller manages (it has a selector and is not
// being deleted): whoever changed the slice (the controller on its way,
// or a user who deleted or edited it, or relabelled it away from its
// Service), its Service's slices must show those pods as their pods say
// within the bound.
func (c *EndpointsTimely) sliceGoals(e *sim.Event, svcs []string, old, cur *model.EndpointSlice) {
	var pods []string
	seen := map[string]bool{}
	for _, s := range []*model.EndpointSlice{old, cur} {
		if s == nil {
			continue
		}
		for _, ep := range s.Endpoints {
			if p, _ := sliceEndpoint(ep); ep.TargetRef != nil && !seen[p] {
				seen[p] = true
				pods = append(pods, p)
			}
		}
	}
	for i, svc := range svcs {
		s := c.services[svc]
		if svc == "" || (i > 0 && svc == svcs[0]) || s == nil || len(s.Spec.Selector) == 0 || s.DeletionTimestamp != nil {
			continue
		}
		for _, p := range pods {
			c.setGoal(e, svc, p)
		}
	}
}

// splitNamespaced splits "namespace/name".
func splitNamespaced(key string) (ns, name string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// servicesOf returns, sorted, the Services that select either version of
// a pod.
func (c *EndpointsTimely) servicesOf(pods ...*model.Pod) []string {
	var out []string
	for _, k := range sim.SortedKeys(c.services) {
		svc := c.services[k]
		if len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil {
			continue
		}
		sel := model.SelectorFromSet(svc.Spec.Selector)
		for _, p := range pods {
			if p != nil && p.Namespace == svc.Namespace && sel.Matches(p.Labels) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// setGoals sets the goal of every pod that match picks for the Service svc
// ("" for all Services selecting it).
func (c *EndpointsTimely) setGoals(e *sim.Event, match func(string, *model.Pod) bool, svc string) {
	for _, k := range sim.SortedKeys(c.pods) {
		p := c.pods[k]
		if !match(k, p) {
			continue
		}
		for _, s := range c.servicesOf(p) {
			if svc == "" || s == svc {
				c.setGoal(e, s, k)
			}
		}
	}
}

// goal is what svc's slices must show of pod now.
func (c *EndpointsTimely) goal(svc, pod string) (want wantEndpoint, none bool) {
	p, s := c.pods[pod], c.services[svc]
	if p == nil || s == nil || len(s.Spec.Selector) == 0 || s.DeletionTimestamp != nil || p.Namespace != s.Namespace ||
		!model.SelectorFromSet(s.Spec.Selector).Matches(p.Labels) {
		return wantEndpoint{}, true
	}
	ep, ok := podEndpoint(p, c.nodes[p.Spec.NodeName])
	return ep, !ok
}

// shows reports whether svc's slices show want (or nothing, for none) for
// pod: exactly one endpoint, equal to want.
func (c *EndpointsTimely) shows(svc, pod string, want wantEndpoint, none bool) bool {
	s := c.services[svc]
	var got []wantEndpoint
	for _, k := range sim.SortedKeys(c.slices[svc]) {
		sl := c.slices[svc][k]
		if s != nil && !sliceOf(sl, s) {
			continue
		}
		for _, ep := range sl.Endpoints {
			if p, g := sliceEndpoint(ep); p == pod {
				got = append(got, g)
			}
		}
	}
	if none {
		return len(got) == 0
	}
	return len(got) == 1 && got[0] == want
}

// setGoal makes the pod's current endpoint the goal of svc's slices,
// unless they show it already.
func (c *EndpointsTimely) setGoal(e *sim.Event, svc, pod string) {
	k := endpointGoal{svc, pod}
	want, none := c.goal(svc, pod)
	if c.shows(svc, pod, want, none) {
		if p := c.pending[k]; p != nil {
			c.meet(svc, p)
		}
		delete(c.pending, k)
		return
	}
	if p := c.pending[k]; p != nil && p.want == want && p.none == none {
		return // the same goal: its clock keeps running
	}
	c.pending[k] = &pendingEndpoint{want: want, none: none, since: e.At, seq: e.Seq}
	c.nextCheck = min(c.nextCheck, e.At.Add(c.bound))
}

// meet counts a pending goal the slices now show.
func (c *EndpointsTimely) meet(svc string, p *pendingEndpoint) {
	if p.stretched {
		c.stretched++
		return
	}
	if c.retries.after(svc) > max(p.since, c.slicedAt) && c.now.Sub(max(p.since, c.slicedAt)) > c.bound {
		c.retried++ // later than the bound, not later than it after the retry
	}
	c.met++
	if p.nearFault || c.faults.looselyNear(max(p.since, c.slicedAt), c.recovery) {
		c.deferred++
	}
}

// dropGoals forgets the goals of a deleted Service: its slices go with it.
func (c *EndpointsTimely) dropGoals(svc string) {
	// determinism: deletions only
	for k := range c.pending {
		if k.svc == svc {
			delete(c.pending, k)
		}
	}
}

// recheck clears the goals of svc its slices now meet.
func (c *EndpointsTimely) recheck(svc string) {
	// determinism: deletions and a count only
	for k, p := range c.pending {
		if k.svc == svc && c.shows(svc, k.pod, p.want, p.none) {
			delete(c.pending, k)
			c.meet(svc, p)
		}
	}
}

// expire reports the goals not met within the bound by now.
func (c *EndpointsTimely) expire(now sim.Time) {
	if len(c.pending) == 0 || !c.sliced || now <= c.nextCheck {
		return // before its first slice, the controller is not running yet
	}
	c.nextCheck = sim.Time(math.MaxInt64)
	for _, k := range sortedGoals(c.pending) {
		p := c.pending[k]
		due, ok := c.due(k, p)
		if !ok || now <= due {
			if ok {
				c.nextCheck = min(c.nextCheck, due)
			}
			continue
		}
		if stretch := c.buggify.Stretch(due.Add(-c.bound), now); stretch > 0 && now <= due.Add(stretch) {
			p.stretched = true
			c.nextCheck = min(c.nextCheck, due.Add(stretch))
			continue
		}
		delete(c.pending, k)
		what := "no endpoint"
		if !p.none {
			what = "the endpoint " + p.want.String()
		}
		after := ""
		if p.nearFault {
			c.lateDeferred++
			after = fmt.Sprintf(" of the recovery (%v) after the last fault", c.recovery)
		}
		c.rec.Add(&sim.Event{At: p.since, Seq: p.seq}, "service %s: pod %s called for %s, but the slices did not show it within %v%s",
			k.svc, k.pod, what, c.bound, after)
	}
}

// due is when a pending goal falls due: Bound after it was set (or after
// the controller's first slice, for a goal set before it, or after the
// latest retry the controller scheduled for its Service since), or, when a
// fault was active or recent since then, Bound after Recovery after the
// last fault; ok is false while a fault is active (no deadline yet).
func (c *EndpointsTimely) due(k endpointGoal, p *pendingEndpoint) (sim.Time, bool) {
	start := max(p.since, c.slicedAt)
	if r := c.retries.after(k.svc); r > start {
		// The controller's sync of the Service failed meanwhile and
		// waits its backoff: the bound counts from the retry.
		start = r
	}
	if c.faults.looselyNear(start, c.recovery) {
		p.nearFault = true
		if c.faults.unhealed > 0 {
			return 0, false
		}
		start = max(start, c.faults.last.Add(c.recovery))
	}
	return start.Add(c.bound), true
}

// sortedGoals returns the goals in a fixed order.
func sortedGoals(m map[endpointGoal]*pendingEndpoint) []endpointGoal {
	byKey := make(map[string]endpointGoal, len(m))
	// determinism: collection only; sorted below
	for k := range m {
		byKey[k.svc+"\x00"+k.pod] = k
	}
	out := make([]endpointGoal, 0, len(byKey))
	for _, s := range sim.SortedKeys(byKey) {
		out = append(out, byKey[s])
	}
	return out
}

// Finish implements Check.
func (c *EndpointsTimely) Finish() Result {
	detail := fmt.Sprintf("%d endpoint changes shown within %v (%d of them set or pending near a fault, shown within %v of the %v recovery after it); %d still pending at the end",
		c.met, c.bound, c.deferred, c.bound, c.recovery, len(c.pending))
	if c.stretched > 0 {
		detail += fmt.Sprintf("; %d shown later, within the delays BUGGIFY drew", c.stretched)
	}
	if c.untracked > 0 {
		detail += fmt.Sprintf("; %d user deletion(s) of slices the leading controller had not written owed nothing", c.untracked)
	}
	if c.retried > 0 {
		detail += fmt.Sprintf("; %d shown later than %v after they were set, within %v of the controller's retry of their Service's failed sync", c.retried, c.bound, c.bound)
	}
	return c.rec.Result(c.Name(), detail)
}
