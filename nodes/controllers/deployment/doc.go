// Package deployment is kubesim's Deployment controller, as
// kube-controller-manager's (pkg/controller/deployment): it rolls a
// Deployment's pod template out through ReplicaSets with the RollingUpdate
// or Recreate strategy, scales them, cleans up old revisions and reports
// the Deployment's status and its Available and Progressing conditions.
//
// # What it does, as the real controller
//
//   - Handlers on Deployments, on ReplicaSets (through their controller
//     reference to a Deployment) and on pod deletions (which matter to
//     Recreate only) feed a rate-limited work queue
//     (DefaultControllerRateLimiter) served by 5 workers
//     (--concurrent-deployment-syncs), once the informers have synced. A
//     key that keeps failing is dropped after 15 retries.
//   - The new ReplicaSet is named "<deployment>-<pod-template-hash>"; the
//     hash (ComputeHash) is FNV-32a over the template, plus the
//     Deployment's collisionCount, rendered like SafeEncodeString. It
//     carries the label pod-template-hash in its selector and template, a
//     controller reference to the Deployment, and the annotations
//     deployment.kubernetes.io/revision (the highest old revision + 1),
//     desired-replicas and max-replicas. A template that goes back to an
//     old ReplicaSet's gives that ReplicaSet the next revision and records
//     its old one in deployment.kubernetes.io/revision-history.
//   - RollingUpdate resolves maxSurge (rounded up) and maxUnavailable
//     (rounded down; 1 if both come to 0). It scales the new ReplicaSet up
//     within replicas+maxSurge, and scales old ones down, unhealthy
//     replicas first and then oldest first, keeping replicas-maxUnavailable
//     available by the ReplicaSets' status.availableReplicas. Recreate
//     scales every old ReplicaSet to 0, waits until their pods are gone,
//     then creates and scales up the new one.
//   - A change of spec.replicas alone (or any change of a paused
//     Deployment) scales proportionally, as the real controller: the
//     replicas to add or remove are shared among the active ReplicaSets by
//     their share of the max-replicas annotation, the leftover going to the
//     largest.
//   - Paused Deployments are not rolled out (Progressing=Unknown,
//     DeploymentPaused).
//   - Status: replicas, updatedReplicas, readyReplicas, availableReplicas,
//     unavailableReplicas and observedGeneration, written with
//     UpdateStatus; Available (MinimumReplicasAvailable or
//     MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated,
//     FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable once
//     complete, ProgressDeadlineExceeded after progressDeadlineSeconds
//     without progress, with a timed requeue to notice it). IsComplete is
//     the real DeploymentComplete.
//   - Once a rollout is complete, old ReplicaSets beyond
//     revisionHistoryLimit that have no replicas are deleted, lowest
//     revision first.
//
// Two ablations break a rolling update's promise, which the rollout-bounds
// check judges at every resize: ablation.DeploymentIgnoresMaxSurge
// (deployment-ignores-max-surge) grows the new ReplicaSet to the
// Deployment's replicas at once, and ablation.DeploymentIgnoresAvailability
// (deployment-ignores-availability) counts the ReplicaSets' spec.replicas
// as available when it scales old ones down. The cleanup's deletions are
// traced (spoketrace.ControllerDelete) and judged by controller-deletes;
// ablation.DeploymentHistoryOffByOne (deployment-history-off-by-one) keeps
// one old ReplicaSet fewer than revisionHistoryLimit.
//
// # Left out
//
//   - Adoption and release of ReplicaSets by selector (ControllerRefManager):
//     only ReplicaSets whose controller reference names the Deployment are
//     its own, and orphans are left alone.
//   - The Deployment's own revision annotation: the real controller writes
//     it with UpdateStatus (whose strategy keeps metadata changes);
//     kubesim's update-status keeps only the status, so it is not written.
//   - Rollbacks through the deprecated rollback annotation, events, and
//     the ReplicaFailure condition (the ReplicaSets' conditions are not
//     copied).
//   - Within one sync the real controller makes its API calls one after
//     another; so does this one, each waiting for the previous answer. Where
//     the real code updates the same ReplicaSet twice in one pass (cleaning
//     up unhealthy replicas, then scaling down), kubesim sends the final
//     size once.
package deployment
