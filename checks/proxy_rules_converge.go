package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// DefaultProxyRulesSettle is how long the Services and EndpointSlices must
// have stood still for proxy-rules-converge to judge the nodes' rules:
// kube-proxy's watch delivery and a sync within its 1 s
// --iptables-min-sync-period fit well within it, BUGGIFY's delays too.
const DefaultProxyRulesSettle = 5 * time.Second

// ProxyRulesConvergeOptions configure proxy-rules-converge.
type ProxyRulesConvergeOptions struct {
	// Settle is how long Services and slices must not have changed before
	// a judgement; default DefaultProxyRulesSettle.
	Settle time.Duration
	// Recovery is how long after the last fault (any kind, process
	// restarts too) judgements wait: a kube-proxy whose watch a fault
	// broke resumes after client-go's backoff. Default
	// DefaultDoubleRunningRecovery.
	Recovery time.Duration
	// KeepLag is how long a kube-proxy may trail the committed objects
	// when it drops a Service port's backends; default
	// DefaultProxyRulesKeepLag.
	KeepLag time.Duration
}

// ProxyRulesConverge checks what every node's kube-proxy programmed
// against what the committed Services and EndpointSlices call for on that
// node. It follows each node's rules from the trace (proxytrace.Flush
// empties them, proxytrace.Rules sets or removes one Service port's) and
// the cluster's Services and slices from etcd's Apply events.
//
// Whenever the Services and slices have stood still for Settle, with no
// fault active and none within Recovery before the quiet began, it judges
// every node whose host booted at least Settle before (just before the
// next change is committed, and at the end of the run): the node has rules
// for exactly the ports of the Services kube-proxy proxies, each matching
// the Service's cluster IP, port and protocol, with exactly the backends
// the real kube-proxy would pick. Its expectation follows the real code,
// not kubesim's:
//
//   - a Service is proxied unless its cluster IP is unset or "None"
//     (headless), its type is ExternalName (pkg/proxy/util
//     ShouldSkipService), or it asks for another proxy
//     (service.kubernetes.io/service-proxy-name: the informers' selector);
//   - a Service port's endpoints come from the IPv4 slices labelled with
//     the Service's name (not headless, not another proxy's), from each
//     slice's port of the same name and protocol: the first address of
//     each endpoint at that port, one endpoint an address, a copy on this
//     node preferred (pkg/proxy/endpointslicecache.go addEndpoints; among
//     other copies, upstream's map order, here the first slice by name);
//     ready, serving unless false, terminating if true;
//   - of those, the ready ones; if none, the serving and terminating ones
//     (KEP-1669); with internalTrafficPolicy Local the same among the
//     node's own endpoints alone (pkg/proxy/topology.go
//     CategorizeEndpoints, topology hints aside).
//
// A node whose kube-proxy skips the fallback, ignores the traffic policy,
// misses an update of a Service or slice, or routes a headless Service
// fails it at the next quiet point.
//
// Between quiet points, under the faults, it judges one promise more: a
// kube-proxy keeps a Service's rules while the Service has endpoints. A
// node's rules for a port of a Service of the Cluster traffic policy must
// not be removed or left without backends while the committed objects
// have called for backends there for longer than KeepLag, unless its own
// host crashed or paused within it (a boot's empty table is no drop). An
// API server out of reach is no excuse: the real kube-proxy keeps its last
// rules when it loses its watches (client-go's reflectors retry; nothing
// flushes), so a control plane outage does not become a data plane
// outage.
type ProxyRulesConverge struct {
	settle, recovery, keepLag time.Duration
	keep                      keepState
	revs                      appliedRevs
	last                      sim.Time
	// lastChange is when a Service or slice last changed; changed,
	// whether one ever did.
	lastChange sim.Time
	changed    bool
	faults     FaultWindows
	// services and slices are the committed objects, by "namespace/name".
	services map[string]*model.Service
	slices   map[string]*model.EndpointSlice
	// nodes are the routing tables the trace shows, by node name.
	nodes                  map[string]*proxyTable
	checkpoints, judgedPts int
	rec                    Recorder
}

// proxyTable is one node's rules as the trace shows them.
type proxyTable struct {
	booted sim.Time
	rules  map[string]proxyRule // by "namespace/name:portname"
}

// proxyRule is one Service port's rules, and the event that set them.
type proxyRule struct {
	vip      string   // "ip:port/protocol"
	backends []string // "pod@ip:port/state", sorted
	at       sim.Time
	seq      uint64
}

// NewProxyRulesConverge returns the "proxy-rules-converge" check.
func NewProxyRulesConverge(opts ProxyRulesConvergeOptions) *ProxyRulesConverge {
	if opts.Settle <= 0 {
		opts.Settle = DefaultProxyRulesSettle
	}
	if opts.Recovery <= 0 {
		opts.Recovery = DefaultDoubleRunningRecovery
	}
	return &ProxyRulesConverge{settle: opts.Settle, recovery: opts.Recovery, keepLag: keepLagOr(opts.KeepLag), keep: newKeepState(), services: map[string]*model.Service{},
		slices: map[string]*model.EndpointSlice{}, nodes: map[string]*proxyTable{}}
}

// Name implements Check.
func (c *ProxyRulesConverge) Name() string { return "proxy-rules-converge" }

// Observe implements Check.
func (c *ProxyRulesConverge) Observe(e *sim.Event) {
	c.last = e.At
	c.faults.Observe(e)
	c.keep.observeFault(e)
	switch d := e.NodeData().(type) {
	case *proxytrace.Flush:
		if old := c.nodes[d.Node]; old != nil && d.Reason != proxytrace.FlushBoot {
			for _, key := range sim.SortedKeys(old.rules) {
				if len(old.rules[key].backends) > 0 {
					c.judgeDrop(e, d.Node, key)
				}
			}
		}
		t := &proxyTable{rules: map[string]proxyRule{}}
		if old := c.nodes[d.Node]; old != nil && d.Reason != proxytrace.FlushBoot {
			t.booted = old.booted
		} else {
			t.booted = e.At
		}
		c.nodes[d.Node] = t
	case *proxytrace.Rules:
		t := c.nodes[d.Node]
		if t == nil {
			t = &proxyTable{rules: map[string]proxyRule{}, booted: e.At}
			c.nodes[d.Node] = t
		}
		key := d.Service + ":" + d.PortName
		if old, ok := t.rules[key]; ok && len(old.backends) > 0 && (d.Deleted || len(d.Backends) == 0) {
			c.judgeDrop(e, d.Node, key)
		}
		if d.Deleted {
			delete(t.rules, key)
			return
		}
		r := proxyRule{vip: proxyVIP(d.ClusterIP, d.Port, d.Protocol), at: e.At, seq: e.Seq}
		for _, b := range d.Backends {
			r.backends = append(r.backends, b.Pod+"@"+b.Addr+"/"+b.State)
		}
		slices.Sort(r.backends)
		t.rules[key] = r
	case *etcdtrace.Apply:
		if c.revs.fresh(d) {
			c.apply(e, d)
		}
	}
}

// apply records the committed Services and slices of an Apply.
func (c *ProxyRulesConverge) apply(e *sim.Event, d *etcdtrace.Apply) {
	touched := false
	defer func() {
		if touched {
			c.refreshServed(e.At)
		}
	}()
	for ch := range registryChanges(d) {
		if ch.res != model.ResourceServicesName && ch.res != model.ResourceEndpointSlicesName {
			continue
		}
		c.maybeJudgeQuiet(e)
		c.lastChange, c.changed, touched = e.At, true, true
		if ch.Type == etcdtrace.ChangeDelete {
			delete(c.services, ch.key)
			delete(c.slices, ch.key)
			continue
		}
		obj, err := model.Decode([]byte(ch.Value))
		if err != nil {
			c.rec.Add(e, "committed %s %s does not decode: %v", ch.res, ch.key, err)
			continue
		}
		switch o := obj.(type) {
		case *model.Service:
			c.services[ch.key] = o
		case *model.EndpointSlice:
			c.slices[ch.key] = o
		}
	}
}

// maybeJudgeQuiet judges the nodes before a change at e when Services and
// slices stood still for Settle since the last change, away from faults.
func (c *ProxyRulesConverge) maybeJudgeQuiet(e *sim.Event) {
	if !c.changed || e.At.Sub(c.lastChange) < c.settle || c.faults.looselyNear(c.lastChange, c.recovery) {
		return
	}
	c.checkpoints++
	c.judge(e.At, fmt.Sprintf("at %v, after %v without a change: ", e.At, e.At.Sub(c.lastChange)))
}

// Finish implements Check.
func (c *ProxyRulesConverge) Finish() Result {
	final := "the end was not quiet"
	if c.changed && c.last.Sub(c.lastChange) >= c.settle && !c.faults.looselyNear(c.lastChange, c.recovery) {
		c.checkpoints++
		c.judge(c.last, "at the end: ")
		final = "the end judged"
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("%d quiet points judged (%d node tables); %s", c.checkpoints, c.judgedPts, final))
}

// judge compares every node's rules, of a node booted Settle before at,
// with what the committed objects call for; prefix starts each offense.
func (c *ProxyRulesConverge) judge(at sim.Time, prefix string) {
	for _, node := range sim.SortedKeys(c.nodes) {
		t := c.nodes[node]
		if at.Sub(t.booted) < c.settle {
			continue
		}
		c.judgedPts++
		want := c.desired(node)
		for _, key := range sim.SortedKeys(want) {
			w, g := want[key], t.rules[key]
			ev := &sim.Event{At: g.at, Seq: g.seq}
			switch _, ok := t.rules[key]; {
			case !ok:
				c.rec.Add(&sim.Event{At: at}, "%snode %s has no rules for %s, which should route %s to %s", prefix, node, key, w.vip, backendsText(w.backends))
			case g.vip != w.vip:
				c.rec.Add(ev, "%snode %s's rules for %s match %s, the Service says %s", prefix, node, key, g.vip, w.vip)
			case !slices.Equal(g.backends, w.backends):
				c.rec.Add(ev, "%snode %s routes %s to %s, its Service and slices call for %s", prefix, node, key, backendsText(g.backends), backendsText(w.backends))
			}
		}
		for _, key := range sim.SortedKeys(t.rules) {
			if _, ok := want[key]; !ok {
				g := t.rules[key]
				c.rec.Add(&sim.Event{At: g.at, Seq: g.seq}, "%snode %s has rules for %s (%s to %s), which no proxied Service port calls for", prefix, node, key, g.vip, backendsText(g.backends))
			}
		}
	}
}

func backendsText(b []string) string {
	if len(b) == 0 {
		return "nothing"
	}
	return strings.Join(b, ", ")
}

func proxyVIP(ip string, port int32, protocol string) string {
	return ip + ":" + strconv.Itoa(int(port)) + "/" + protocol
}

// proxyEndpoint is an endpoint of a Service port as kube-proxy takes it.
type proxyEndpoint struct {
	pod, addr, node             string
	ready, serving, terminating bool
}

// proxied reports whether kube-proxy programs svc (ShouldSkipService and
// the informers' selector).
func proxied(svc *model.Service) bool {
	_, other := svc.Labels[model.LabelServiceProxyName]
	ip := svc.Spec.ClusterIP
	return !other && ip != "" && ip != "None" && svc.Spec.Type != "ExternalName"
}

// proxiedSliceService is the "namespace/name" of the Service whose
// endpoints kube-proxy takes from s, or "" when it takes none.
func proxiedSliceService(s *model.EndpointSlice) string {
	_, other := s.Labels[model.LabelServiceProxyName]
	_, headless := s.Labels[model.LabelHeadless]
	name := s.Labels[model.LabelServiceName]
	if other || headless || name == "" || s.AddressType != model.AddressTypeIPv4 {
		return ""
	}
	return s.Namespace + "/" + name
}

// desired is the rules node should have, by "namespace/name:portname".
func (c *ProxyRulesConverge) desired(node string) map[string]proxyRule {
	// The endpoints of every Service port, "namespace/name:portname/proto",
	// by address, in the order first met.
	eps := map[string]map[string]proxyEndpoint{}
	order := map[string][]string{}
	for _, k := range sim.SortedKeys(c.slices) {
		s := c.slices[k]
		svc := proxiedSliceService(s)
		if svc == "" {
			continue
		}
		for _, p := range s.Ports {
			if p.Port == nil || *p.Port == 0 {
				continue
			}
			pk := svc + ":" + model.Deref(p.Name, "") + "/" + model.Deref(p.Protocol, model.ProtocolTCP)
			if eps[pk] == nil {
				eps[pk] = map[string]proxyEndpoint{}
			}
			for _, e := range s.Endpoints {
				if len(e.Addresses) == 0 {
					continue
				}
				ep := proxyEndpoint{addr: e.Addresses[0] + ":" + strconv.Itoa(int(*p.Port)), node: e.NodeName,
					ready: model.Deref(e.Conditions.Ready, true), serving: model.Deref(e.Conditions.Serving, true),
					terminating: model.Deref(e.Conditions.Terminating, false)}
				if r := e.TargetRef; r != nil {
					ep.pod = r.Namespace + "/" + r.Name
				}
				if _, seen := eps[pk][ep.addr]; !seen {
					order[pk] = append(order[pk], ep.addr)
				} else if ep.node != node {
					continue
				}
				eps[pk][ep.addr] = ep
			}
		}
	}
	want := map[string]proxyRule{}
	for _, k := range sim.SortedKeys(c.services) {
		svc := c.services[k]
		if !proxied(svc) {
			continue
		}
		local := svc.Spec.InternalTrafficPolicy == model.ServiceTrafficPolicyLocal
		for _, p := range svc.Spec.Ports {
			proto := p.Protocol
			if proto == "" {
				proto = model.ProtocolTCP
			}
			pk := k + ":" + p.Name + "/" + proto
			var all []proxyEndpoint
			for _, a := range order[pk] {
				if ep := eps[pk][a]; !local || ep.node == node {
					all = append(all, ep)
				}
			}
			want[k+":"+p.Name] = proxyRule{vip: proxyVIP(svc.Spec.ClusterIP, p.Port, proto), backends: usable(all)}
		}
	}
	return want
}

// usable is CategorizeEndpoints' choice among a Service port's endpoints
// (those of the node alone for the Local policy): the ready ones, or when
// there are none the serving and terminating ones, as "pod@addr/state",
// sorted.
func usable(all []proxyEndpoint) []string {
	var out []string
	for _, ep := range all {
		if ep.ready {
			out = append(out, ep.pod+"@"+ep.addr+"/"+proxytrace.StateReady)
		}
	}
	if len(out) == 0 {
		for _, ep := range all {
			if ep.serving && ep.terminating {
				out = append(out, ep.pod+"@"+ep.addr+"/"+proxytrace.StateTerminating)
			}
		}
	}
	slices.Sort(out)
	return out
}

var _ Check = (*ProxyRulesConverge)(nil)
