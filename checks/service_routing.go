package checks

import (
	"fmt"
	"net"
	"strconv"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apptraffic/apptrace"
	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// ServiceRouting checks where the Service users' requests went
// (apptrace.Request with a backend picked): a Service routes only to pods
// its selector picks, at the pod's own address, on the port the Service
// port named in the request targets, as the EndpointSlice controller's
// slices say (kube-proxy reads nothing else). Against the committed state
// (the etcd Apply events):
//
//   - the backend pod exists in the Service's namespace, and its labels (any
//     version of them) match the Service's selector (any version of it);
//   - the request's address is the pod's IP (any it had), and its port is
//     the targetPort of the Service's port of that name (any version), a
//     number, as kubesim's pods declare no named ports.
//
// Taking any version of the Service and the pod keeps the check free of
// the lag between a change and kube-proxy's rules: what it catches is a
// request routed where no version of the cluster's state could send it,
// such as another Service's pods or a wrong port.
type ServiceRouting struct {
	objs    map[string]map[string]*routedObject // resource -> key -> versions
	checked int
	rec     Recorder
}

// routedObject is every committed version of an object, decoded once.
type routedObject struct {
	values map[string]bool
	objs   []model.Object
}

// NewServiceRouting returns the "service-routing" check.
func NewServiceRouting() *ServiceRouting {
	return &ServiceRouting{objs: map[string]map[string]*routedObject{
		model.ResourcePodsName: {}, model.ResourceServicesName: {},
	}}
}

// Name implements Check.
func (c *ServiceRouting) Name() string { return "service-routing" }

// Observe implements Check.
func (c *ServiceRouting) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.Apply:
		c.apply(e, d)
	case *apptrace.Request:
		if d.Pod != "" {
			c.judge(e, d)
		}
	}
}

// apply records the committed versions of pods and Services.
func (c *ServiceRouting) apply(e *sim.Event, d *etcdtrace.Apply) {
	for i := range d.Changes {
		ch := &d.Changes[i]
		if ch.Type != etcdtrace.ChangePut {
			continue
		}
		res, key, ok := splitRegistryKey(ch.Key)
		if !ok {
			continue
		}
		m, ok := c.objs[res]
		if !ok {
			continue
		}
		o := m[key]
		if o == nil {
			o = &routedObject{values: map[string]bool{}}
			m[key] = o
		}
		if o.values[ch.Value] {
			continue
		}
		o.values[ch.Value] = true
		obj, err := model.Decode([]byte(ch.Value))
		if err != nil {
			c.rec.Add(e, "committed %s %s does not decode: %v", res, key, err)
			continue
		}
		o.objs = append(o.objs, obj)
	}
}

// judge checks one routed request.
func (c *ServiceRouting) judge(e *sim.Event, r *apptrace.Request) {
	c.checked++
	what := fmt.Sprintf("request of %s to %s port %q went to %s at %s", r.Client, r.Service, r.PortName, r.Pod, r.Addr)
	svcs, pods := c.objs[model.ResourceServicesName][r.Service], c.objs[model.ResourcePodsName][r.Pod]
	if svcs == nil {
		c.rec.Add(e, "%s, but the cluster never had that Service", what)
		return
	}
	if pods == nil {
		c.rec.Add(e, "%s, but the cluster never had that pod", what)
		return
	}
	host, port, err := net.SplitHostPort(r.Addr)
	if err != nil {
		c.rec.Add(e, "%s: not an address", what)
		return
	}
	selected, ipOK := false, false
	for _, p := range pods.objs {
		pod := p.(*model.Pod)
		ipOK = ipOK || pod.Status.PodIP == host
		for _, s := range svcs.objs {
			svc := s.(*model.Service)
			if pod.Namespace == svc.Namespace && len(svc.Spec.Selector) > 0 && model.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
				selected = true
			}
		}
	}
	portOK := false
	for _, s := range svcs.objs {
		for _, sp := range s.(*model.Service).Spec.Ports {
			if sp.Name == r.PortName && sp.TargetPort.Type == model.Int && strconv.Itoa(int(sp.TargetPort.IntVal)) == port {
				portOK = true
			}
		}
	}
	switch {
	case !selected:
		c.rec.Add(e, "%s, a pod its selector never picked", what)
	case !ipOK:
		c.rec.Add(e, "%s, which is not the pod's IP", what)
	case !portOK:
		c.rec.Add(e, "%s, but the Service's port %q targets another port", what, r.PortName)
	}
}

// Finish implements Check.
func (c *ServiceRouting) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d routed requests reached a pod of their Service on its target port", c.checked))
}
