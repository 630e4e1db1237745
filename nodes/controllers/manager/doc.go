// Package manager is kubesim's kube-controller-manager: replicas that elect
// a leader on the Lease kube-system/kube-controller-manager, and a leader
// that runs the control loops (ReplicaSet, Deployment, node lifecycle,
// garbage collector, EndpointSlice, pod garbage collector) on shared
// informers. It talks only to the API server, as
// "system:kube-controller-manager".
//
// Boot(cfg) is a host's boot function; the host exposes the *Manager as
// "controller-manager".
//
// # Trace
//
// spoketrace.Leading{Component: "kube-controller-manager", Identity:
// Config.Name} when a replica starts and stops leading. A crash emits
// nothing: the host's crash ends the leadership with it.
// spoketrace.LeaderRenewed when the leader renewed its Lease, and
// spoketrace.LeaderWrite for every write its controllers send, as the
// request leaves: the leader-exclusivity check judges them against the
// renew deadline.
//
// # Leader election and restarts
//
// Leader election uses client-go's 15 s / 10 s / 2 s, with holder identity
// Config.Name (the real one appends a UUID to the host name, so a restarted
// process waits for its own old lease to expire; kubesim's reuses it at
// once, which changes nothing for the other replicas), through a client of
// its own whose requests time out after half the renew deadline, as
// kube-controller-manager's leader-election client.
//
// On leading, as the real StartControllers: a fresh controllers.Context is
// built with shared informers (pods, nodes, replicasets, deployments,
// services and endpointslices in all namespaces, the Leases of
// kube-node-lease, and every custom kind of
// Config.Resources), every controller is made and Run (registering its
// handlers and waiting for the informers to sync), and then the informers
// are run.
//
// A leader that loses its lease exits, as the real one does
// (klog.Fatal "leaderelection lost" in OnStoppedLeading): every controller
// and informer of that process is stopped, so that every later callback of
// it does nothing, and after Config.RestartDelay (DefaultRestartDelay, 1 s:
// the kubelet restarts a static pod's container that exited for the first
// time on its next pod sync, without crash-loop backoff) a fresh process
// runs for leadership again, with nothing carried over: controllers keep
// their state (expectations, queues) in memory only, as the real ones.
//
// # Ablations
//
// Config.Ablations go unchanged to the controllers and the leader elector.
// The manager itself asks for three:
//   - ablation.PollNotWatch (poll-not-watch): every informer polls with a
//     quorum LIST every PollInterval (2 s) instead of watching.
//   - ablation.NoPodGC (pod-gc-disabled): the pod garbage collector does
//     not run.
//   - ablation.ManagerNoExit (controller-manager-no-exit): a replica that
//     lost its Lease goes on running its controllers instead of exiting.
package manager
