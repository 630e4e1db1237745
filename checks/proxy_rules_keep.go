package checks

import (
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// DefaultProxyRulesKeepLag is how long proxy-rules-converge lets a node's
// kube-proxy trail the committed Services and slices when it judges a
// Service port's rules dropped. What kube-proxy applies moves forward in
// revision only (a watch resumes from its last revision, on a cache that
// waits to reach it; a relist is a consistent read), so it trails a commit
// by the delivery of a watch event and a sync within its 1 s
// --iptables-min-sync-period, BUGGIFY's delays and a burst of resumed
// events spread over a few syncs included: well within 15 s.
const DefaultProxyRulesKeepLag = 15 * time.Second

// keepState is what proxy-rules-converge follows, between quiet points, to
// judge that kube-proxy keeps the rules of a Service that has endpoints:
// for every Service port of the Cluster traffic policy, since when the
// committed objects have called for backends without a break.
type keepState struct {
	// served: "namespace/name:portname" -> since when it has had usable
	// endpoints without a break; absent while it has none.
	served map[string]sim.Time
	// hostFault: a node host -> when a fault of its own (a crash or a
	// pause, begun or ended) last touched it.
	hostFault map[sim.HostID]sim.Time
	dropped   int
}

func newKeepState() keepState {
	return keepState{served: map[string]sim.Time{}, hostFault: map[sim.HostID]sim.Time{}}
}

// observeFault notes a fault event on one host.
func (k *keepState) observeFault(e *sim.Event) {
	if e.Kind == sim.KindFault && e.Host != sim.NoHost {
		k.hostFault[e.Host] = e.At
	}
}

// refreshServed recomputes, after a commit of Services or slices at at,
// which Service ports of the Cluster policy have usable endpoints.
func (c *ProxyRulesConverge) refreshServed(at sim.Time) {
	want := c.desired("") // node-independent for the Cluster policy
	for _, key := range sim.SortedKeys(want) {
		svc := c.services[key[:strings.LastIndexByte(key, ':')]]
		if svc == nil || svc.Spec.InternalTrafficPolicy == model.ServiceTrafficPolicyLocal || len(want[key].backends) == 0 {
			delete(c.keep.served, key)
			continue
		}
		if _, ok := c.keep.served[key]; !ok {
			c.keep.served[key] = at
		}
	}
	for _, key := range sim.SortedKeys(c.keep.served) {
		if _, ok := want[key]; !ok {
			delete(c.keep.served, key)
		}
	}
}

// judgeDrop judges a node's kube-proxy dropping a Service port's backends
// (removing its rules, or leaving it none) at e: it may not while the
// committed objects have called for backends for longer than the lag,
// unless a fault of the node's own host (a crash, a pause) came within the
// lag. An API server out of reach is no excuse: kube-proxy keeps its last
// rules until it hears otherwise (a control plane outage must not become
// a data plane outage).
func (c *ProxyRulesConverge) judgeDrop(e *sim.Event, node, key string) {
	since, ok := c.keep.served[key]
	if !ok || e.At.Sub(since) <= c.keepLag {
		return
	}
	if f, ok := c.keep.hostFault[e.Host]; ok && e.At.Sub(f) <= c.keepLag {
		return
	}
	c.keep.dropped++
	c.rec.Add(e, "node %s dropped its rules for %s, whose Service has had ready or serving endpoints since %v, longer than the %v a kube-proxy may trail", node, key, since, c.keepLag)
}

// keepLagOr is the lag of opts, or the default.
func keepLagOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultProxyRulesKeepLag
	}
	return d
}
