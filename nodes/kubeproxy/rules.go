package kubeproxy

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// Backend is one endpoint a Service port routes to.
type Backend struct {
	// Pod is the endpoint's target pod as namespace/name ("" without one).
	Pod string
	// IP and Port are where the traffic goes: the endpoint's first address
	// and the slice's port of the Service port's name.
	IP   string
	Port int32
	// Node is the node the endpoint's pod runs on.
	Node string
	// State is how kube-proxy saw the endpoint (proxytrace.StateReady,
	// StateTerminating or StateNotReady).
	State string
}

// Addr is "ip:port".
func (b Backend) Addr() string { return b.IP + ":" + strconv.Itoa(int(b.Port)) }

// Route is what one Service port's rules do: traffic to ClusterIP:Port
// over Protocol goes to one of Backends. A route without backends rejects
// its traffic, as the real rules of a Service without endpoints do.
type Route struct {
	// Service is the Service's namespace/name, PortName its port's name.
	Service  string
	PortName string
	// ClusterIP, Port and Protocol are what the rules match.
	ClusterIP string
	Port      int32
	Protocol  string
	// Backends are sorted by address.
	Backends []Backend
}

// Key is the route's Service port, "namespace/name:portname", as kube-proxy
// names a ServicePortName.
func (r *Route) Key() string { return r.Service + ":" + r.PortName }

// VIP is "clusterIP:port/protocol", what the rules match.
func (r *Route) VIP() string { return vip(r.ClusterIP, r.Port, r.Protocol) }

func vip(ip string, port int32, protocol string) string {
	return ip + ":" + strconv.Itoa(int(port)) + "/" + protocol
}

func (r *Route) equal(o *Route) bool {
	return r.ClusterIP == o.ClusterIP && r.Port == o.Port && r.Protocol == o.Protocol && slices.Equal(r.Backends, o.Backends)
}

// trace is the route's Rules event on node.
func (r *Route) trace(node string) *proxytrace.Rules {
	ev := &proxytrace.Rules{Node: node, Service: r.Service, PortName: r.PortName, ClusterIP: r.ClusterIP, Port: r.Port, Protocol: r.Protocol}
	for _, b := range r.Backends {
		ev.Backends = append(ev.Backends, proxytrace.Backend{Pod: b.Pod, Addr: b.Addr(), State: b.State})
	}
	return ev
}

// Cache is the pure core of kube-proxy: the Services and EndpointSlices
// its informers delivered, and the rules they make on one node. Its
// handlers report whether a change matters to the rules, so that only
// those request a sync, as the proxier's change trackers do; Routes
// computes the rules of a sync. It never reads a clock or the network.
type Cache struct {
	node     string
	services map[string]*model.Service
	slices   map[string]*model.EndpointSlice
	// IgnoreReadiness is the kube-proxy-ignores-readiness ablation: route
	// to every endpoint whatever its conditions.
	IgnoreReadiness bool
	// MergeServices is the kube-proxy-merges-services ablation: endpoints
	// are grouped by port name and protocol alone, so Services that share
	// a port name share their backends.
	MergeServices bool
	// NoTerminatingFallback is the kube-proxy-no-terminating-fallback
	// ablation: a Service port without ready endpoints routes to none,
	// never to its serving and terminating ones.
	NoTerminatingFallback bool
	// IgnoreTrafficPolicy is the kube-proxy-ignores-traffic-policy
	// ablation: a Service with internalTrafficPolicy Local routes to its
	// endpoints on every node, as with Cluster.
	IgnoreTrafficPolicy bool
	// IgnoreServiceUpdates is the kube-proxy-ignores-service-updates
	// ablation: an updated Service is stored but requests no sync, so a
	// changed port or policy waits for some other change to reach the
	// rules.
	IgnoreServiceUpdates bool
}

// portKey groups the endpoints of one Service port: the Service, the port's
// name and protocol (endpointslicecache.go, ServicePortName).
func (c *Cache) portKey(svc, name, protocol string) string {
	if c.MergeServices {
		return name + "/" + protocol
	}
	return svc + ":" + name + "/" + protocol
}

// NewCache makes the empty core of node's kube-proxy.
func NewCache(node string) *Cache {
	return &Cache{node: node, services: map[string]*model.Service{}, slices: map[string]*model.EndpointSlice{}}
}

// OnService applies an added or updated Service (nil old for an add) and
// reports whether the rules may change.
func (c *Cache) OnService(old, svc *model.Service) bool {
	c.services[model.KeyOf(svc).String()] = svc
	if old != nil && c.IgnoreServiceUpdates {
		return false
	}
	return old == nil || !slices.Equal(servicePorts(old), servicePorts(svc))
}

// OnServiceDelete removes a Service and reports whether the rules may
// change.
func (c *Cache) OnServiceDelete(svc *model.Service) bool {
	old, ok := remove(c.services, svc)
	return ok && len(servicePorts(old)) > 0
}

// OnSlice applies an added or updated EndpointSlice (nil old for an add)
// and reports whether the rules may change.
func (c *Cache) OnSlice(old, s *model.EndpointSlice) bool {
	c.slices[model.KeyOf(s).String()] = s
	return old == nil || !sliceInfoEqual(old, s)
}

// OnSliceDelete removes an EndpointSlice and reports whether the rules may
// change.
func (c *Cache) OnSliceDelete(s *model.EndpointSlice) bool {
	old, ok := remove(c.slices, s)
	return ok && sliceService(old) != ""
}

// remove deletes obj's entry (by key) from m and returns what it held.
func remove[T model.Object](m map[string]T, obj T) (T, bool) {
	key := model.KeyOf(obj).String()
	old, ok := m[key]
	delete(m, key)
	return old, ok
}

// servicePort is what kube-proxy takes of one port of a Service: local is
// internalTrafficPolicy Local (servicechangetracker.go's
// BaseServicePortInfo.InternalPolicyLocal).
type servicePort struct {
	name, clusterIP, protocol string
	port                      int32
	local                     bool
}

// ServiceTypeExternalName is the Service type whose cluster IP kube-proxy
// never programs.
const ServiceTypeExternalName = "ExternalName"

// servicePorts is what kube-proxy takes of a Service: nothing for one
// without a cluster IP (headless, "None") or of type ExternalName
// (pkg/proxy/util ShouldSkipService), or one that asks for another proxy
// (which the informer's selector already leaves out).
func servicePorts(svc *model.Service) []servicePort {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == "None" || svc.Spec.Type == ServiceTypeExternalName {
		return nil
	}
	if _, ok := svc.Labels[LabelServiceProxyName]; ok {
		return nil
	}
	local := svc.Spec.InternalTrafficPolicy == model.ServiceTrafficPolicyLocal
	out := make([]servicePort, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		out = append(out, servicePort{name: p.Name, clusterIP: ip, protocol: protocolOr(p.Protocol), port: p.Port, local: local})
	}
	return out
}

func protocolOr(p string) string {
	if p == "" {
		return "TCP"
	}
	return p
}

// sliceService is the Service a slice belongs to, "namespace/name", or ""
// for a slice kube-proxy ignores: without the service-name label, of the
// headless or another proxy's Services, or not IPv4.
func sliceService(s *model.EndpointSlice) string {
	name := s.Labels[model.LabelServiceName]
	_, headless := s.Labels[LabelHeadless]
	_, other := s.Labels[LabelServiceProxyName]
	if name == "" || headless || other || (s.AddressType != "" && s.AddressType != model.AddressTypeIPv4) {
		return ""
	}
	return model.NamespacedName{Namespace: s.Namespace, Name: name}.String()
}

// sliceInfoEqual compares what kube-proxy takes of two versions of a slice:
// its Service, ports and endpoints (addresses, conditions, node, pod).
func sliceInfoEqual(a, b *model.EndpointSlice) bool {
	if sliceService(a) != sliceService(b) || len(a.Ports) != len(b.Ports) || len(a.Endpoints) != len(b.Endpoints) {
		return false
	}
	for i := range a.Ports {
		if slicePortOf(a.Ports[i]) != slicePortOf(b.Ports[i]) {
			return false
		}
	}
	for i := range a.Endpoints {
		if endpointOf(a.Endpoints[i]) != endpointOf(b.Endpoints[i]) {
			return false
		}
	}
	return true
}

type slicePort struct {
	name, protocol string
	port           int32
}

func slicePortOf(p model.EndpointPort) slicePort {
	sp := slicePort{protocol: "TCP"}
	if p.Name != nil {
		sp.name = *p.Name
	}
	if p.Protocol != nil {
		sp.protocol = *p.Protocol
	}
	if p.Port != nil {
		sp.port = *p.Port
	}
	return sp
}

// endpoint is what kube-proxy takes of an endpoint
// (pkg/proxy/endpointslicecache.go): its first address; ready and serving
// when unset, not terminating when unset.
type endpoint struct {
	ip, node, pod               string
	ready, serving, terminating bool
}

func endpointOf(e model.Endpoint) endpoint {
	ep := endpoint{node: e.NodeName,
		ready:       e.Conditions.Ready == nil || *e.Conditions.Ready,
		serving:     e.Conditions.Serving == nil || *e.Conditions.Serving,
		terminating: e.Conditions.Terminating != nil && *e.Conditions.Terminating,
	}
	if len(e.Addresses) > 0 {
		ep.ip = e.Addresses[0]
	}
	if r := e.TargetRef; r != nil {
		ep.pod = model.NamespacedName{Namespace: r.Namespace, Name: r.Name}.String()
	}
	return ep
}

// candidate is an endpoint of a Service port, with the slice's port.
type candidate struct {
	ep   endpoint
	port int32
}

// Routes computes the rules of a sync: one route for every port of every
// Service kube-proxy takes, by Route.Key.
func (c *Cache) Routes() map[string]*Route {
	// The endpoints of each Service port, from its slices in name order,
	// by address: the first slice to list an address wins, unless a later
	// one says it is on this node (endpointslicecache.go addEndpoints).
	byPort := map[string]map[string]candidate{}
	order := map[string][]string{}
	for _, key := range sim.SortedKeys(c.slices) {
		s := c.slices[key]
		svc := sliceService(s)
		if svc == "" {
			continue
		}
		for _, p := range s.Ports {
			sp := slicePortOf(p)
			if sp.port == 0 {
				continue
			}
			pk := c.portKey(svc, sp.name, sp.protocol)
			set := byPort[pk]
			if set == nil {
				set = map[string]candidate{}
				byPort[pk] = set
			}
			for _, e := range s.Endpoints {
				ep := endpointOf(e)
				if ep.ip == "" {
					continue
				}
				addr := ep.ip + ":" + strconv.Itoa(int(sp.port))
				if _, seen := set[addr]; !seen {
					order[pk] = append(order[pk], addr)
				} else if ep.node != c.node {
					continue
				}
				set[addr] = candidate{ep: ep, port: sp.port}
			}
		}
	}
	routes := map[string]*Route{}
	for _, key := range sim.SortedKeys(c.services) {
		for _, p := range servicePorts(c.services[key]) {
			r := &Route{Service: key, PortName: p.name, ClusterIP: p.clusterIP, Port: p.port, Protocol: p.protocol}
			pk := c.portKey(key, p.name, p.protocol)
			all := make([]candidate, 0, len(order[pk]))
			for _, addr := range order[pk] {
				all = append(all, byPort[pk][addr])
			}
			r.Backends = c.categorize(all, p.local && !c.IgnoreTrafficPolicy)
			routes[r.Key()] = r
		}
	}
	return routes
}

// categorize picks the endpoints a Service port routes to, as
// pkg/proxy/topology.go CategorizeEndpoints does (topology hints aside):
// for the Cluster traffic policy the ready endpoints, or when there are
// none the serving and terminating ones (KEP-1669), or else none; for the
// Local internal traffic policy (local) the same choice among the
// endpoints on this node alone (KEP-2086: the node's own ready ones, else
// its serving and terminating ones). The kube-proxy-ignores-readiness
// ablation takes every endpoint (of the node, for Local). The backends
// are sorted by address.
func (c *Cache) categorize(all []candidate, local bool) []Backend {
	var out []Backend
	add := func(cd candidate, state string) {
		out = append(out, Backend{Pod: cd.ep.pod, IP: cd.ep.ip, Port: cd.port, Node: cd.ep.node, State: state})
	}
	for _, cd := range all {
		switch {
		case local && cd.ep.node != c.node:
		case cd.ep.ready:
			add(cd, proxytrace.StateReady)
		case c.IgnoreReadiness && cd.ep.serving && cd.ep.terminating:
			add(cd, proxytrace.StateTerminating)
		case c.IgnoreReadiness:
			add(cd, proxytrace.StateNotReady)
		}
	}
	if len(out) == 0 && !c.IgnoreReadiness && !c.NoTerminatingFallback {
		for _, cd := range all {
			if cd.ep.serving && cd.ep.terminating && (!local || cd.ep.node == c.node) {
				add(cd, proxytrace.StateTerminating)
			}
		}
	}
	slices.SortFunc(out, func(a, b Backend) int {
		return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port))
	})
	return out
}
