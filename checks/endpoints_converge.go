package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// DefaultEndpointsSettle is how long before the end of a run a Service and
// its pods must have stood still for endpoints-converge to judge it: the
// EndpointSlice controller's reaction (a watch event, a sync, a write, and
// a retry 1 s later on a conflict) fits well within it.
const DefaultEndpointsSettle = 5 * time.Second

// EndpointsConvergeOptions configure endpoints-converge.
type EndpointsConvergeOptions struct {
	// Settle is how long a Service and its pods must not have changed
	// before the end for the Service to be judged; default
	// DefaultEndpointsSettle.
	Settle time.Duration
	// Recovery is how long after the last fault (any kind, process
	// restarts too) the mid-run judgements wait: a controller manager
	// that lost its lease, or a watch broken by the fault, may take that
	// long to catch up. Default DefaultDoubleRunningRecovery.
	Recovery time.Duration
	// MaxEndpointsPerSlice is the most endpoints a slice may hold: the
	// controller managers' --max-endpoints-per-slice; default
	// model.MaxEndpointsPerSlice (100).
	MaxEndpointsPerSlice int
}

// EndpointsConverge checks, on the cluster's state as etcd committed it at
// the end of the run (rebuilt from the members' Apply events), that the
// EndpointSlice controller's slices of every Service with a selector
// (those labelled with its name and managed by the controller, controlled
// by it, not being deleted) hold exactly one endpoint for each pod of its
// namespace that its selector matches, that has an IP, is not terminal
// (Succeeded or Failed) and is bound to a node that exists, with that
// pod's address and node, ready = the pod is Ready and not being deleted,
// serving = the pod is Ready, terminating = the pod is being deleted; and
// that no slice holds more than MaxEndpointsPerSlice endpoints (the
// controller's --max-endpoints-per-slice).
//
// A Service whose object or whose pods (matching or listed) changed within
// Settle of the end is not judged: the controller may still be on its way.
// The detail counts them.
//
// The same judgement is made during the run, at every point where the
// Services, pods, EndpointSlices and the set of Nodes had all stood still
// for Settle (judged just before the next change is committed), once the
// controller wrote its first slice, with no fault active and none within
// Recovery before the quiet began: a pod that turned ready or unready
// must be in its Services' slices by then, not only when some later
// change makes the controller look at the Service again.
//
// A Service one of whose slices a user deleted while the leading
// controller did not track it (it had not written it since it began to
// lead: sliceTracking) is not judged until the controller writes one of
// its slices again or the Service changes: the real controller requeues a
// Service for a deleted slice only if its tracker has the slice
// (onEndpointSliceDelete), so nothing repairs it meanwhile. Nor is a
// Service whose sync failed since the quiet began, while the controller
// waits out its backoff before the retry it scheduled
// (spoketrace.ControllerRetry, sliceRetries), until 2 s past that retry.
type EndpointsConverge struct {
	settle, recovery time.Duration
	maxPerSlice      int
	revs             appliedRevs
	last             sim.Time
	// lastChange is when a judged resource last changed; changed, whether
	// one ever did; sliced, whether a slice was ever written.
	lastChange      sim.Time
	changed, sliced bool
	faults          FaultWindows
	checkpoints     int // quiet points judged during the run
	rec             Recorder
	// objs are the latest committed values of the resources it reads, by
	// resource then "namespace/name"; looked up, and ranged only sorted.
	objs map[string]map[string]*committed
	// unowed are Services a user deleted a slice of that the leading
	// controller had not written (sliceTracking): nothing requeues them,
	// so they are not judged until the controller writes one of their
	// slices again or the Service changes.
	tracking sliceTracking
	retries  sliceRetries
	// judgingAt is when the judgement in progress looks.
	judgingAt sim.Time
	unowed    map[string]bool
	untracked int
}

// committed is an object's latest committed value and when it was
// committed (its Apply event).
type committed struct {
	value   string
	deleted bool
	at      sim.Time
	seq     uint64
}

// endpointsResources are the resources endpoints-converge rebuilds.
var endpointsResources = []string{model.ResourcePodsName, model.ResourceNodesName, model.ResourceServicesName, model.ResourceEndpointSlicesName}

// NewEndpointsConverge returns the "endpoints-converge" check.
func NewEndpointsConverge(opts EndpointsConvergeOptions) *EndpointsConverge {
	if opts.Settle <= 0 {
		opts.Settle = DefaultEndpointsSettle
	}
	if opts.Recovery <= 0 {
		opts.Recovery = DefaultDoubleRunningRecovery
	}
	if opts.MaxEndpointsPerSlice <= 0 {
		opts.MaxEndpointsPerSlice = model.MaxEndpointsPerSlice
	}
	c := &EndpointsConverge{settle: opts.Settle, recovery: opts.Recovery, maxPerSlice: opts.MaxEndpointsPerSlice, objs: map[string]map[string]*committed{},
		tracking: newSliceTracking(), retries: newSliceRetries(), unowed: map[string]bool{}}
	for _, r := range endpointsResources {
		c.objs[r] = map[string]*committed{}
	}
	return c
}

// Name implements Check.
func (c *EndpointsConverge) Name() string { return "endpoints-converge" }

// Observe implements Check.
func (c *EndpointsConverge) Observe(e *sim.Event) {
	c.last = e.At
	c.faults.Observe(e)
	c.tracking.observe(e)
	c.retries.observe(e)
	d, ok := c.revs.of(e)
	if !ok {
		return
	}
	for ch := range registryChanges(d) {
		res, key := ch.res, ch.key
		m, ok := c.objs[res]
		if !ok {
			continue
		}
		deleted := ch.Type == etcdtrace.ChangeDelete
		if prev := m[key]; res != model.ResourceNodesName || prev == nil || prev.deleted || deleted {
			// A Node's status updates change no endpoint; its coming and
			// going does.
			c.maybeJudgeQuiet(e)
			c.lastChange, c.changed = e.At, true
		}
		if res == model.ResourceEndpointSlicesName {
			c.sliced = true
		}
		// After the quiet judgement of the state before the change.
		c.followUnowed(res, key, ch.Value, deleted)
		m[key] = &committed{value: ch.Value, deleted: deleted, at: e.At, seq: e.Seq}
	}
}

// followUnowed keeps unowed: a user's deletion of a slice the leading
// controller does not track leaves its Service unowed; a write of one of
// its slices by the controller, or a change of the Service, owes it again.
func (c *EndpointsConverge) followUnowed(res, key, value string, deleted bool) {
	switch res {
	case model.ResourceServicesName:
		delete(c.unowed, key)
	case model.ResourceEndpointSlicesName:
		ns, _, _ := splitNamespaced(key)
		if deleted {
			if prev := c.objs[res][key]; prev != nil && !prev.deleted && c.tracking.untrackedUserDelete(key) {
				if o, err := model.Decode([]byte(prev.value)); err == nil {
					c.unowed[ns+"/"+o.GetObjectMeta().Labels[model.LabelServiceName]] = true
					c.untracked++
				}
			}
			return
		}
		if c.tracking.controllerWrote(key) {
			if o, err := model.Decode([]byte(value)); err == nil {
				delete(c.unowed, ns+"/"+o.GetObjectMeta().Labels[model.LabelServiceName])
			}
		}
	}
}

// maybeJudgeQuiet judges the committed state before a change at e when
// everything stood still for Settle since the last change, away from
// faults.
func (c *EndpointsConverge) maybeJudgeQuiet(e *sim.Event) {
	if !c.changed || !c.sliced || e.At.Sub(c.lastChange) < c.settle || c.faults.looselyNear(c.lastChange, c.recovery) {
		return
	}
	c.checkpoints++
	c.judgingAt = e.At
	c.judge(&c.rec, c.lastChange, fmt.Sprintf("at %v, after %v without a change: ", e.At, e.At.Sub(c.lastChange)))
}

// final decodes the live objects of resource, by key.
func (c *EndpointsConverge) final(resource string) (map[string]model.Object, error) {
	out := map[string]model.Object{}
	for _, k := range sim.SortedKeys(c.objs[resource]) {
		o := c.objs[resource][k]
		if o.deleted {
			continue
		}
		obj, err := model.Decode([]byte(o.value))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", resource, k, err)
		}
		out[k] = obj
	}
	return out, nil
}

// wantEndpoint is an endpoint as the check compares it.
type wantEndpoint struct {
	addr, node                  string
	ready, serving, terminating bool
}

func (w wantEndpoint) String() string {
	return fmt.Sprintf("%s on %s ready=%t serving=%t terminating=%t", w.addr, w.node, w.ready, w.serving, w.terminating)
}

// Finish implements Check.
func (c *EndpointsConverge) Finish() Result {
	rec := &c.rec
	c.judgingAt = c.last
	judged, unsettled, endpoints, ok := c.judge(rec, c.last-sim.Time(c.settle), "")
	if !ok {
		return rec.Result(c.Name(), "")
	}
	detail := fmt.Sprintf("%d service(s) judged (%d endpoints) match their pods; %d still changing at the end; %d quiet points judged during the run",
		judged, endpoints, unsettled, c.checkpoints)
	if c.untracked > 0 {
		detail += fmt.Sprintf("; %d user deletion(s) of slices the leading controller had not written left their Service unjudged until it wrote one again (%d at the end)",
			c.untracked, len(c.unowed))
	}
	return rec.Result(c.Name(), detail)
}

// judge compares every Service's slices with its pods in the committed
// state, skipping those with a change after horizon; prefix starts each
// offense. ok is false when a committed object does not decode.
func (c *EndpointsConverge) judge(rec *Recorder, horizon sim.Time, prefix string) (judged, unsettled, endpoints int, ok bool) {
	final := map[string]map[string]model.Object{}
	for _, r := range endpointsResources {
		objs, err := c.final(r)
		if err != nil {
			rec.Add(&sim.Event{At: c.last}, "a committed object does not decode: %v", err)
			return 0, 0, 0, false
		}
		final[r] = objs
	}
	for _, key := range sim.SortedKeys(final[model.ResourceServicesName]) {
		svc := final[model.ResourceServicesName][key].(*model.Service)
		if len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil || c.unowed[key] {
			continue
		}
		want, recent := c.desired(svc, final, horizon)
		got, slices, where := c.actual(svc, final, rec, prefix)
		for _, s := range slices {
			if c.objs[model.ResourceEndpointSlicesName][s].at > horizon {
				recent = true
			}
		}
		// determinism: a yes/no answer, whatever the order
		for pod := range got {
			if c.changedSince(model.ResourcePodsName, pod, horizon) {
				recent = true
			}
		}
		if r := c.retries.after(key); r > horizon && r.Add(DefaultEndpointsBound) >= c.judgingAt {
			// The controller's sync of it failed and waits its backoff:
			// the retry, not the quiet, is when it owes the slices.
			recent = true
		}
		if recent || c.objs[model.ResourceServicesName][key].at > horizon {
			unsettled++
			continue
		}
		judged++
		endpoints += len(want)
		for _, pod := range sim.SortedKeys(want) {
			g, ok := got[pod]
			switch {
			case !ok:
				rec.Add(c.event(model.ResourcePodsName, pod), "%sservice %s: pod %s (%s) has no endpoint", prefix, key, pod, want[pod])
			case len(g) > 1:
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "%sservice %s: pod %s has %d endpoints", prefix, key, pod, len(g))
			case g[0] != want[pod]:
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "%sservice %s: pod %s's endpoint in %s is %s, its pod says %s", prefix, key, pod, where[pod], g[0], want[pod])
			}
		}
		for _, pod := range sim.SortedKeys(got) {
			if _, ok := want[pod]; !ok {
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "%sservice %s: slice %s lists %s (%s), which is no endpoint of it", prefix, key, where[pod], pod, got[pod][0])
			}
		}
	}
	return judged, unsettled, endpoints, true
}

// desired returns the endpoints svc's pods call for, by pod key, and
// whether one of its matching pods changed after horizon.
func (c *EndpointsConverge) desired(svc *model.Service, final map[string]map[string]model.Object, horizon sim.Time) (map[string]wantEndpoint, bool) {
	sel := model.SelectorFromSet(svc.Spec.Selector)
	want := map[string]wantEndpoint{}
	recent := false
	for _, k := range sim.SortedKeys(final[model.ResourcePodsName]) {
		pod := final[model.ResourcePodsName][k].(*model.Pod)
		if pod.Namespace != svc.Namespace || !sel.Matches(pod.Labels) {
			continue
		}
		if c.objs[model.ResourcePodsName][k].at > horizon {
			recent = true
		}
		_, nodeExists := final[model.ResourceNodesName][pod.Spec.NodeName]
		if ep, ok := podEndpoint(pod, nodeExists); ok {
			want[k] = ep
		}
	}
	return want, recent
}

// podEndpoint is the endpoint the EndpointSlice controller gives a pod its
// Service selects: none (ok false) without an IP, for a terminal pod, or on
// a node that does not exist; else its address and node, ready = Ready and
// not being deleted, serving = Ready, terminating = being deleted.
func podEndpoint(pod *model.Pod, nodeExists bool) (ep wantEndpoint, ok bool) {
	if pod.Status.PodIP == "" || model.IsPodTerminal(pod) || !nodeExists {
		return wantEndpoint{}, false
	}
	ready, deleting := model.IsPodReady(pod), pod.DeletionTimestamp != nil
	return wantEndpoint{addr: pod.Status.PodIP, node: pod.Spec.NodeName, ready: ready && !deleting, serving: ready, terminating: deleting}, true
}

// sliceOf reports whether s is one of svc's slices as the controller
// manages them: labelled with its name, managed by the controller,
// controlled by svc, not being deleted.
func sliceOf(s *model.EndpointSlice, svc *model.Service) bool {
	ref := model.GetControllerOf(s)
	return s.Namespace == svc.Namespace && s.Labels[model.LabelServiceName] == svc.Name &&
		s.Labels[model.LabelManagedBy] == model.ManagedByEndpointSliceController && s.DeletionTimestamp == nil &&
		ref != nil && ref.UID == svc.UID
}

// sliceEndpoint is an endpoint of a slice as the checks compare it, and
// the pod it targets ("namespace/name", or a placeholder with its
// addresses when it has no target).
func sliceEndpoint(ep model.Endpoint) (pod string, got wantEndpoint) {
	pod = "(no target) " + strings.Join(ep.Addresses, ",")
	if ep.TargetRef != nil {
		pod = ep.TargetRef.Namespace + "/" + ep.TargetRef.Name
	}
	return pod, wantEndpoint{addr: strings.Join(ep.Addresses, ","), node: ep.NodeName,
		ready: model.Deref(ep.Conditions.Ready, false), serving: model.Deref(ep.Conditions.Serving, false),
		terminating: model.Deref(ep.Conditions.Terminating, false)}
}

// actual returns the endpoints of svc's slices by pod key, the keys of
// those slices, and for each pod the slice it was last found in. A slice
// of too many endpoints is an offense.
func (c *EndpointsConverge) actual(svc *model.Service, final map[string]map[string]model.Object, rec *Recorder, prefix string) (map[string][]wantEndpoint, []string, map[string]string) {
	got := map[string][]wantEndpoint{}
	where := map[string]string{}
	var keys []string
	for _, k := range sim.SortedKeys(final[model.ResourceEndpointSlicesName]) {
		s := final[model.ResourceEndpointSlicesName][k].(*model.EndpointSlice)
		if !sliceOf(s, svc) {
			continue
		}
		keys = append(keys, k)
		if len(s.Endpoints) > c.maxPerSlice {
			rec.Add(c.event(model.ResourceEndpointSlicesName, k), "%sslice %s holds %d endpoints, more than %d (--max-endpoints-per-slice)", prefix, k, len(s.Endpoints), c.maxPerSlice)
		}
		for _, ep := range s.Endpoints {
			pod, g := sliceEndpoint(ep)
			got[pod] = append(got[pod], g)
			where[pod] = k
		}
	}
	return got, keys, where
}

// changedSince reports an object of resource committed after horizon
// (deleted ones too).
func (c *EndpointsConverge) changedSince(resource, key string, horizon sim.Time) bool {
	o, ok := c.objs[resource][key]
	return ok && o.at > horizon
}

// event is the Apply event of an object's latest change, for an offense.
func (c *EndpointsConverge) event(resource, key string) *sim.Event {
	if o, ok := c.objs[resource][key]; ok {
		return &sim.Event{At: o.at, Seq: o.seq}
	}
	return &sim.Event{At: c.last}
}
