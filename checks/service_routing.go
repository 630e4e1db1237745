package checks

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
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
	pods     map[string][]routedPod     // "namespace/name" -> each distinct version
	services map[string][]routedService // "namespace/name" -> each distinct version
	seen     map[string]bool            // the distinct versions recorded
	verdicts map[routedRequest]string   // judged requests: "" or what is wrong
	revs     appliedRevs
	checked  int
	rec      Recorder
}

// routedPod is what service-routing takes of a pod's version.
type routedPod struct {
	namespace, ip string
	labels        map[string]string
}

// routedService is what service-routing takes of a Service's version.
type routedService struct {
	namespace string
	selector  model.Selector    // nil without a selector
	targets   map[string]string // port name -> its numeric targetPort
}

// routedRequest is what a verdict depends on.
type routedRequest struct{ svc, portName, pod, addr string }

// NewServiceRouting returns the "service-routing" check.
func NewServiceRouting() *ServiceRouting {
	return &ServiceRouting{pods: map[string][]routedPod{}, services: map[string][]routedService{},
		seen: map[string]bool{}, verdicts: map[routedRequest]string{}}
}

// Name implements Check.
func (c *ServiceRouting) Name() string { return "service-routing" }

// Observe implements Check.
func (c *ServiceRouting) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.apply(e, d)
	case *apptrace.Request:
		if d.Pod != "" {
			c.judge(e, d)
		}
	}
}

// apply records the distinct committed versions of pods and Services, as
// far as routing goes.
func (c *ServiceRouting) apply(e *sim.Event, d *etcdtrace.Apply) {
	if !c.revs.fresh(d) {
		return // another member's apply of a revision already seen
	}
	for ch := range registryChanges(d) {
		res, key := ch.res, ch.key
		if ch.Type != etcdtrace.ChangePut || res != model.ResourcePodsName && res != model.ResourceServicesName {
			continue
		}
		obj, err := model.Decode([]byte(ch.Value))
		if err != nil {
			c.rec.Add(e, "committed %s %s does not decode: %v", res, key, err)
			continue
		}
		switch o := obj.(type) {
		case *model.Pod:
			id := "pod\x00" + key + "\x00" + o.Status.PodIP + "\x00" + labelsText(o.Labels)
			if !c.seen[id] {
				c.seen[id] = true
				c.pods[key] = append(c.pods[key], routedPod{namespace: o.Namespace, ip: o.Status.PodIP, labels: o.Labels})
				clear(c.verdicts)
			}
		case *model.Service:
			rs := routedService{namespace: o.Namespace, selector: model.Nothing(), targets: map[string]string{}}
			if len(o.Spec.Selector) > 0 {
				rs.selector = model.SelectorFromSet(o.Spec.Selector)
			}
			id := "svc\x00" + key + "\x00" + labelsText(o.Spec.Selector)
			for _, sp := range o.Spec.Ports {
				if sp.TargetPort.Type == model.Int {
					rs.targets[sp.Name] = strconv.Itoa(int(sp.TargetPort.IntVal))
					id += "\x00" + sp.Name + "=" + rs.targets[sp.Name]
				}
			}
			if !c.seen[id] {
				c.seen[id] = true
				c.services[key] = append(c.services[key], rs)
				clear(c.verdicts)
			}
		}
	}
}

// labelsText is a label set in key order, "k=v,...".
func labelsText(m map[string]string) string {
	var b strings.Builder
	for _, k := range sim.SortedKeys(m) {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
		b.WriteByte(',')
	}
	return b.String()
}

// judge checks one routed request.
func (c *ServiceRouting) judge(e *sim.Event, r *apptrace.Request) {
	c.checked++
	k := routedRequest{r.Service, r.PortName, r.Pod, r.Addr}
	why, ok := c.verdicts[k]
	if !ok {
		why = c.verdict(k)
		c.verdicts[k] = why
	}
	if why != "" {
		c.rec.Add(e, "request of %s to %s port %q went to %s at %s%s", r.Client, r.Service, r.PortName, r.Pod, r.Addr, why)
	}
}

// verdict says what is wrong with a request's route, "" if nothing: some
// version of the Service must select some version of the pod, the address
// must be an IP the pod had, and its port the target of the named port.
func (c *ServiceRouting) verdict(k routedRequest) string {
	svcs, pods := c.services[k.svc], c.pods[k.pod]
	if svcs == nil {
		return ", but the cluster never had that Service"
	}
	if pods == nil {
		return ", but the cluster never had that pod"
	}
	host, port, err := net.SplitHostPort(k.addr)
	if err != nil {
		return ": not an address"
	}
	selected, ipOK, portOK := false, false, false
	for _, p := range pods {
		ipOK = ipOK || p.ip == host
		for _, s := range svcs {
			if p.namespace == s.namespace && s.selector.Matches(p.labels) {
				selected = true
			}
		}
	}
	for _, s := range svcs {
		if t, ok := s.targets[k.portName]; ok && t == port {
			portOK = true
		}
	}
	switch {
	case !selected:
		return ", a pod its selector never picked"
	case !ipOK:
		return ", which is not the pod's IP"
	case !portOK:
		return fmt.Sprintf(", but the Service's port %q targets another port", k.portName)
	}
	return ""
}

// Finish implements Check.
func (c *ServiceRouting) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d routed requests reached a pod of their Service on its target port", c.checked))
}
