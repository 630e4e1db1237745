// Package scheduler is kubesim's kube-scheduler: replicas that elect a
// leader on the Lease kube-system/kube-scheduler, and a leader that watches
// pods and nodes, filters and scores the nodes for one pending pod at a
// time, and binds it through the pods/binding subresource. It talks only to
// the API server, as "system:kube-scheduler".
//
// Boot(cfg) is a host's boot function; the host exposes the *Scheduler as
// "scheduler".
//
// # Trace
//
//   - spoketrace.Leading{Component: "kube-scheduler"} when a replica starts
//     and stops leading. A crash emits nothing: the host's crash ends the
//     leadership with it.
//   - spoketrace.Bound when the API server answered 200 to a binding,
//     with the pod's cpu and memory requests.
//   - spoketrace.LeaderRenewed when an elected replica renewed its Lease,
//     and spoketrace.LeaderWrite for every other write it sends (bindings,
//     PodScheduled conditions), as the request leaves: the
//     leader-exclusivity check judges them against the renew deadline.
//
// # Leader election and restarts
//
// Leader election is on by default (--leader-elect), with client-go's
// 15 s / 10 s / 2 s, identity Config.Name. The informers start only once a
// replica leads, and it schedules once both have listed (WaitForCacheSync,
// polled every 100 ms): the real kube-scheduler starts them before it
// leads, which makes a takeover a little faster; starting them on
// leadership keeps standbys from loading the API server and makes every
// leader start from a fresh list. The elector has its own client, whose
// requests time out after max(1 s, RenewDeadline/2) (5 s), and releases
// the Lease when its renewals fail (ReleaseOnCancel, as the real
// makeLeaderElectionConfig): the scheduling loop runs on until that
// release has succeeded or given up. A leader that loses its lease exits, as
// the real one does (klog.Fatal in OnStoppedLeading): every callback of
// that process becomes a no-op, and a fresh process, with new informers,
// queue and cache, starts after Config.RestartDelay (1 s) and runs for
// leadership again.
//
// # Scheduling queue
//
// Pods with no spec.nodeName, spec.schedulerName "default-scheduler" (or
// empty), not being deleted and not terminal are queued, keyed by
// namespace/name, as in the real PriorityQueue:
//   - activeQ in PrioritySort order (higher spec.priority first, then the
//     time the pod was added or last failed);
//   - backoffQ for pods whose attempt failed with an error: their backoff
//     is 1 s doubled per attempt, capped at 10 s; it is flushed every
//     second;
//   - unschedulable pods wait for a cluster event (a node added, a node
//     update that changed its schedulability: spec.unschedulable,
//     allocatable, labels, taints or a condition's status; an assigned pod
//     deleted or finished; an assumed pod forgotten) that moves them to
//     activeQ, or to backoffQ while their backoff lasts; without one they
//     are retried after 5 min (the leftover flush runs every 30 s). A change
//     to a parked pod's spec, labels or annotations retries it too.
//
// # The scheduling cycle
//
// One pod at a time, in zero virtual time: filter every node (in name
// order), score the feasible ones and pick the best, ties broken at random
// from the host's "scheduler/select-host" stream. Every node is evaluated
// (percentageOfNodesToScore only samples clusters of 100 nodes or more).
// The filters, in the default profile's order, stopping at the first
// failure per node:
//   - NodeUnschedulable: spec.unschedulable, unless tolerated;
//   - TaintToleration: NoSchedule and NoExecute taints must be tolerated;
//   - readiness: the Ready condition must be True. This is kubesim's: the
//     real scheduler trusts the not-ready and unreachable taints the node
//     lifecycle controller adds; checking the condition too keeps pods off
//     dead nodes in worlds without that controller;
//   - NodeResourcesFit: the pods count, then every requested resource,
//     against allocatable minus what the node's bound and assumed pods
//     (terminal ones excluded) request.
//
// The score is NodeResourcesFit's LeastAllocated over cpu and memory,
// weighted equally, counting 100m cpu and 200Mi memory for a container
// that requests none (the non-zero defaults). The other default scoring
// plugins (BalancedAllocation, TaintToleration's PreferNoSchedule,
// PodTopologySpread, ...) are not modelled; neither are preemption, node
// affinity, inter-pod affinity, ports or volumes.
//
// A pod no node fits is parked and its PodScheduled condition set False,
// reason Unschedulable, with the real message ("0/3 nodes are available: 1
// Insufficient cpu, 2 node(s) had untolerated taint {key: value}." without
// the preemption suffix; "no nodes available to schedule pods" when there
// are none), written with update-status only when it changes. The real
// scheduler patches it (a patch cannot conflict); kubesim's may only
// update-status, so a write that lost a race is redone when the informer
// shows the pod without it.
//
// # Assume and bind
//
// The chosen node is assumed at once (the pod's requests count there from
// the next cycle on) and the binding is sent asynchronously. On 200 the
// scheduler emits Bound and keeps the assumption until the informer shows
// the pod bound; it never expires by default, as durationToExpireAssumedPod
// is 0 since Kubernetes 1.23 (Config.AssumedPodTTL sets the old 30 s-like
// expiry). On an error the assumption is forgotten (an event that retries
// parked pods) and the pod goes to the backoff queue; after 409 (already
// assigned, or being deleted) or 404 (gone) it is dropped instead, and the
// informer decides: an update that shows it still pending queues it again.
// The API server's conflict check is what keeps two schedulers (say, a
// deposed leader's late binding and its successor's) from binding one pod
// twice; the apiserver's BindNoConflictCheck ablation removes it.
// The assumption is what keeps a burst of pods off one node: the
// SchedulerIgnoresAssumed ablation counts an assumed pod only once the
// informer shows it bound, and the node-capacity check catches the
// scheduler binding past a node's allocatable. Two schedulers do not see
// each other's assumptions: between them they can bind a node's last room
// twice, and its kubelet's admission rejects the second pod (OutOfcpu).
package scheduler
