// Package kubeproxy is kubesim's kube-proxy: on every node it watches
// Services and EndpointSlices and programs the node's routing table, which
// sends each Service port's virtual IP to the pods behind it. It follows
// the iptables proxier of Kubernetes 1.34 as an actor on the node's host.
//
// # The pure core
//
// Cache holds what the informers delivered and computes the rules of a
// sync (Routes): for each port of each Service with a cluster IP, the
// endpoints of its slices (the first address of each, the slice's port of
// the Service port's name), of which it routes to the ready ones and, when
// none is ready, to the serving and terminating ones (KEP-1669's
// terminating-endpoints fallback, pkg/proxy/topology.go
// CategorizeEndpoints); for a Service with internalTrafficPolicy Local
// (KEP-2086), the same choice among the node's own endpoints alone.
// Headless and ExternalName Services get no rules. A Service port without such endpoints gets rules
// that reject its traffic. Table is the node's routing table: Apply
// replaces its routes and returns a trace event for each Service port that
// changed, Lookup answers where traffic to a virtual IP goes. Runner is the
// BoundedFrequencyRunner that paces syncs: at most one per
// --iptables-min-sync-period (1 s) after a burst of two, and one at least
// every hour with no change. None of them reads a clock or the network.
//
// # The process
//
// Boot starts the kube-proxy process (Process) on a node's host, with its
// identity User. Its informers list and watch Services and EndpointSlices
// (without those asking for another proxy, and without headless Services'
// slices); a change that matters to the rules requests a sync, and the
// runner runs it. Nothing is programmed until both informers have listed;
// then the first sync happens at once. When the API servers are
// unreachable the informers keep their stores and nothing flushes: the
// node keeps routing on its last rules.
//
// A restart-process fault restarts the process alone: its informers,
// caches and runner start again empty and relist, while the table (the
// kernel's rules) survives until the new process's first sync rewrites
// what changed. A host crash loses the table: it starts empty at the next
// boot.
//
// # Trace
//
// Package proxytrace holds the events: proxytrace.Rules when a sync
// changes what a Service port routes to on a node (only then, to keep
// traces small), proxytrace.Flush when the table empties at once (every
// boot). Following them, a check knows at any time which pods each node
// routes each Service port to.
//
// # Ablations
//
//   - ablation.ProxyIgnoresReadiness: a Service port routes to every
//     endpoint, ready, terminating or neither.
//   - ablation.ProxyFlushOnDisconnect: kube-proxy asks an API server for
//     its Node every DisconnectTimeout (10 s); when none answers within
//     that time, it drops every rule (Flush, reason "disconnected") and
//     programs none until one answers again.
//   - ablation.ProxyMergesServices: endpoints are grouped by port name
//     and protocol alone, so Services sharing a port name share backends.
//   - ablation.ProxyNoTerminatingFallback: a Service port without ready
//     endpoints routes to none, never to serving-terminating ones.
//   - ablation.ProxyIgnoresTrafficPolicy: internalTrafficPolicy Local
//     routes as Cluster.
//   - ablation.ProxyIgnoresServiceUpdates: an updated Service requests no
//     sync.
//
// # Simplifications
//
// A sync takes no time and never fails, so --iptables-sync-period (30 s),
// the period of the real proxier's canary check and its retry delay after
// a failed sync, has nothing to do. Only ClusterIP Services and IPv4 are
// modelled; topology hints, external traffic policies and session
// affinity are not. A Local Service port without a usable endpoint on
// the node rejects its traffic, where the real rules drop it when the
// Service has endpoints elsewhere. The informers have no resync (--config-sync-period, 15 min, only
// delivers unchanged objects again). Where a Service port's backends are
// duplicated across slices, the first slice by name wins, as the real
// cache keeps the first it meets.
package kubeproxy
