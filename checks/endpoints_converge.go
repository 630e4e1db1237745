package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
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
// that no slice holds more than model.MaxEndpointsPerSlice endpoints.
//
// A Service whose object or whose pods (matching or listed) changed within
// Settle of the end is not judged: the controller may still be on its way.
// The detail counts them.
type EndpointsConverge struct {
	settle time.Duration
	rev    int64
	last   sim.Time
	// objs are the latest committed values of the resources it reads, by
	// resource then "namespace/name"; looked up, and ranged only sorted.
	objs map[string]map[string]*committed
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
	c := &EndpointsConverge{settle: opts.Settle, objs: map[string]map[string]*committed{}}
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
	d, ok := e.Data.(*etcdtrace.Apply)
	if !ok || len(d.Changes) == 0 || d.Rev <= c.rev {
		return
	}
	c.rev = d.Rev
	for i := range d.Changes {
		ch := &d.Changes[i]
		res, key, ok := splitRegistryKey(ch.Key)
		if !ok {
			continue
		}
		m, ok := c.objs[res]
		if !ok {
			continue
		}
		m[key] = &committed{value: ch.Value, deleted: ch.Type == etcdtrace.ChangeDelete, at: e.At, seq: e.Seq}
	}
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
	var rec Recorder
	final := map[string]map[string]model.Object{}
	for _, r := range endpointsResources {
		objs, err := c.final(r)
		if err != nil {
			rec.Add(&sim.Event{At: c.last}, "a committed object does not decode: %v", err)
			return rec.Result(c.Name(), "")
		}
		final[r] = objs
	}
	judged, unsettled, endpoints := 0, 0, 0
	horizon := c.last - sim.Time(c.settle)
	for _, key := range sim.SortedKeys(final[model.ResourceServicesName]) {
		svc := final[model.ResourceServicesName][key].(*model.Service)
		if len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil {
			continue
		}
		want, recent := c.desired(svc, final, horizon)
		got, slices, where := c.actual(svc, final, &rec)
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
				rec.Add(c.event(model.ResourcePodsName, pod), "service %s: pod %s (%s) has no endpoint", key, pod, want[pod])
			case len(g) > 1:
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "service %s: pod %s has %d endpoints", key, pod, len(g))
			case g[0] != want[pod]:
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "service %s: pod %s's endpoint in %s is %s, its pod says %s", key, pod, where[pod], g[0], want[pod])
			}
		}
		for _, pod := range sim.SortedKeys(got) {
			if _, ok := want[pod]; !ok {
				rec.Add(c.event(model.ResourceEndpointSlicesName, where[pod]), "service %s: slice %s lists %s (%s), which is no endpoint of it", key, where[pod], pod, got[pod][0])
			}
		}
	}
	return rec.Result(c.Name(), fmt.Sprintf("%d service(s) judged (%d endpoints) match their pods; %d still changing at the end", judged, endpoints, unsettled))
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
		if pod.Status.PodIP == "" || model.IsPodTerminal(pod) {
			continue
		}
		if _, ok := final[model.ResourceNodesName][pod.Spec.NodeName]; !ok {
			continue
		}
		ready, deleting := model.IsPodReady(pod), pod.DeletionTimestamp != nil
		want[k] = wantEndpoint{addr: pod.Status.PodIP, node: pod.Spec.NodeName, ready: ready && !deleting, serving: ready, terminating: deleting}
	}
	return want, recent
}

// actual returns the endpoints of svc's slices by pod key, the keys of
// those slices, and for each pod the slice it was last found in. A slice
// of too many endpoints is an offense.
func (c *EndpointsConverge) actual(svc *model.Service, final map[string]map[string]model.Object, rec *Recorder) (map[string][]wantEndpoint, []string, map[string]string) {
	got := map[string][]wantEndpoint{}
	where := map[string]string{}
	var keys []string
	for _, k := range sim.SortedKeys(final[model.ResourceEndpointSlicesName]) {
		s := final[model.ResourceEndpointSlicesName][k].(*model.EndpointSlice)
		ref := model.GetControllerOf(s)
		if s.Namespace != svc.Namespace || s.Labels[model.LabelServiceName] != svc.Name ||
			s.Labels[model.LabelManagedBy] != model.ManagedByEndpointSliceController || s.DeletionTimestamp != nil ||
			ref == nil || ref.UID != svc.UID {
			continue
		}
		keys = append(keys, k)
		if len(s.Endpoints) > model.MaxEndpointsPerSlice {
			rec.Add(c.event(model.ResourceEndpointSlicesName, k), "slice %s holds %d endpoints, more than %d", k, len(s.Endpoints), model.MaxEndpointsPerSlice)
		}
		for _, ep := range s.Endpoints {
			pod := "(no target) " + strings.Join(ep.Addresses, ",")
			if ep.TargetRef != nil {
				pod = ep.TargetRef.Namespace + "/" + ep.TargetRef.Name
			}
			got[pod] = append(got[pod], wantEndpoint{addr: strings.Join(ep.Addresses, ","), node: ep.NodeName,
				ready: model.Deref(ep.Conditions.Ready, false), serving: model.Deref(ep.Conditions.Serving, false),
				terminating: model.Deref(ep.Conditions.Terminating, false)})
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
