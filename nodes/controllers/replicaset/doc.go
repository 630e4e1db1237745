// Package replicaset is kube-controller-manager's ReplicaSet controller: it
// keeps spec.replicas active pods for each ReplicaSet, as
// pkg/controller/replicaset does.
//
// Handlers on the shared ReplicaSet and Pod informers queue ReplicaSet keys:
// a pod event goes to the ReplicaSet its controllerRef names (kind
// ReplicaSet, same namespace, same UID, as resolveControllerRef), and an
// orphan's to every ReplicaSet whose selector matches it. Five workers
// (--concurrent-replicaset-syncs) take keys from a workqueue with
// client-go's DefaultControllerRateLimiter, once both informers have
// synced. A sync:
//
//   - lists the namespace's active pods from the informer (not terminal,
//     no deletionTimestamp) and claims them as the ControllerRefManager
//     does: pods it controls that still match; orphans that match are
//     adopted (after one quorum GET of the ReplicaSet confirms it is the
//     same and not being deleted), pods it controls that no longer match
//     are released. kubesim adopts and releases with an Update carrying the
//     pod's resourceVersion (a 409 fails the sync, which is retried) where
//     Kubernetes sends a strategic merge patch with the pod's UID;
//   - if its expectations are satisfied, and the ReplicaSet is not being
//     deleted, creates the missing pods in slow-start batches (1, 2, 4, ...,
//     at most BurstReplicas per sync) or deletes the excess, chosen by
//     ActivePodsWithRanks (unassigned before assigned, Pending before
//     Unknown before Running, not ready before ready, lower
//     controller.kubernetes.io/pod-deletion-cost first, more pods of the
//     same owner on the node first, ready for less time first, more
//     restarts first, newer first; times compared on a logarithmic scale,
//     ties by UID);
//   - writes the status (replicas, fullyLabeledReplicas, readyReplicas,
//     availableReplicas with minReadySeconds, observedGeneration, the
//     ReplicaFailure condition) with UpdateStatus when it changed, retrying
//     once after a quorum GET.
//
// Expectations (controller.UIDTrackingControllerExpectations) are what
// keeps the controller from acting twice on a stale informer: before it
// creates n pods it expects n creations, and it does not manage that
// ReplicaSet's replicas again until its informer has observed them (an add
// of a pod it controls), a failed create has lowered them, or 5 minutes
// have passed. Deletions likewise, by pod key, observed when the pod's
// deletionTimestamp is seen or it is gone.
//
// The ablation ablation.NoExpectations (replicaset-no-expectations)
// ignores them: every sync trusts the informer's view, so while the watch
// lags behind the creations, every sync of the ReplicaSet (its own status
// update triggers one) creates the same missing pods again.
package replicaset
