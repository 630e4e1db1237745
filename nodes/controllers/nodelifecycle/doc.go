// Package nodelifecycle is kubesim's node lifecycle controller and taint
// eviction controller, as kube-controller-manager's
// (pkg/controller/nodelifecycle and pkg/controller/tainteviction), for the
// taint-based eviction that Kubernetes has used since 1.18.
//
// # Node health
//
// Every node monitor period (5 s, as --node-monitor-period, on a sliding
// schedule: the next pass starts a period after the last one ended) the
// controller looks at every node of its informer. Health is judged on the
// controller's own clock, as the real nodeHealthData: a node's
// probeTimestamp is when the controller observed its Lease's renewTime, or
// its Ready condition's lastHeartbeatTime, change — never the timestamps
// themselves, so that clock skew cannot matter. A node whose probeTimestamp
// is older than the grace period (--node-monitor-grace-period, 50 s since
// Kubernetes 1.32; --node-startup-grace-period, 60 s, for a node that never
// posted a Ready condition) gets its Ready, MemoryPressure, DiskPressure and
// PIDPressure conditions set to Unknown (reason NodeStatusUnknown, "Kubelet
// stopped posting node status."), written with UpdateStatus and retried
// after a fresh read. When that turns a Ready node not-ready, its pods'
// Ready conditions are set to False (MarkPodsNotReady); so are those of
// pods bound later to a not-ready node.
//
// # Taints
//
//   - NoExecute (taint-based eviction): a node seen with Ready=Unknown is
//     queued for node.kubernetes.io/unreachable:NoExecute, one seen with
//     Ready=False for node.kubernetes.io/not-ready:NoExecute (TimeAdded is
//     when the controller adds it). The queue of each zone is drained every
//     100 ms through a token bucket (--node-eviction-rate 0.1 per second,
//     burst 1: one node every 10 s). A node already carrying the other
//     taint has it swapped at once; a Ready node loses both.
//   - NoSchedule (TaintNodesByCondition): on every node change the
//     condition taints (not-ready, unreachable, memory-, disk- and
//     pid-pressure, network-unavailable) and the unschedulable taint are
//     made to match the node's conditions.
//   - Taint changes read the node (first from the API server's cache, then
//     from etcd) and Update it with its resourceVersion, retrying conflicts
//     (5 tries, 100 ms apart with full jitter).
//
// # Zones and disruption
//
// Nodes are grouped into zones by their topology.kubernetes.io/region and
// zone labels (one zone when they have none). After each pass every zone
// gets a state from its Ready conditions, as ComputeZoneState:
// FullDisruption when no node is ready, PartialDisruption when more than 2
// and at least 55% (--unhealthy-zone-threshold) are not ready, Normal
// otherwise. Normal zones taint at --node-eviction-rate; partially
// disrupted ones at --secondary-node-eviction-rate (0.01) if they have more
// than 50 nodes (--large-cluster-size-threshold), else not at all. When
// every zone is fully disrupted the controller presumes itself, not the
// nodes, cut off: it stops tainting, and removes the NoExecute taints it
// had placed; when a node comes back it restarts every node's grace period.
// A controller that starts also removes those taints from every node it
// first sees, and adds them again once it has observed the node unhealthy.
//
// # Taint eviction
//
// For every pod bound to a node with NoExecute taints: if a taint is not
// tolerated, the pod is deleted now; otherwise when the shortest
// tolerationSeconds of the tolerations used (300 s for not-ready and
// unreachable, from the DefaultTolerationSeconds admission plugin) has
// passed since the controller observed the taints; without a limit, never.
// The deletion is cancelled when the taints go away or the pod does. It
// reads the pod, adds the DisruptionTarget condition
// (DeletionByTaintManager) and deletes it with its own grace period and a
// UID precondition, retrying 5 times 10 ms apart. A node whose heartbeats
// stop thus loses its pods about 350 s later (50 s + one monitor period +
// 300 s).
//
// # Left out
//
// Node labels reconciliation (the beta OS/arch labels), events and
// metrics. The real controller handles up to 8 nodes at once in a pass and
// makes its taint updates within the pass; kubesim starts every node at
// once, and the taint updates a pass decides on run beside it (the pass
// still waits for the node status and pod status updates).
package nodelifecycle
