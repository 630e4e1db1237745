// Package gc is kube-controller-manager's garbage collector, reduced to
// what a ReplicaSet's pods and a Deployment's ReplicaSets need: background
// cascading deletion by ownerReferences. A dependent whose owners are all
// gone is deleted; one that still has an owner keeps living, and loses its
// references to the owners that are gone.
//
// Candidates are found through the shared informers, as the real
// collector's graph builder finds them:
//   - an owner's delete event queues the dependents that reference its UID
//     (an index of owner UID to dependents is kept from the events);
//   - a dependent that appears or changes while an owner it references is
//     missing from the informers (by kind, namespace, name and UID) is
//     queued;
//   - every RescanPeriod (30 s; kubesim's stand-in for the graph's
//     completeness, so that nothing is missed after a relist) every
//     dependent is checked the same way.
//
// Nothing is deleted on the informers' word. A queued dependent is read
// again with a quorum GET (gone, or another UID: nothing to do), and each
// of its owners is confirmed gone with a quorum GET of the owner, as
// attemptToDeleteItem and isDangling do: NotFound, or an object of another
// UID under that name, means gone (remembered in a bounded cache of absent
// owner UIDs, as absentOwnerCache); any other error fails the attempt,
// which is retried with the workqueue's per-item exponential backoff. Then
// the dependent is deleted with a UID precondition (so a successor of the
// same name is never hit), or, when some owners remain, updated to drop the
// dangling references (with its resourceVersion; the real collector
// patches). An owner of a kind the cluster does not serve counts as
// present.
// The GCOwnerByName ablation takes an object of the owner's name for the
// owner whatever its UID, so the dependents of an owner deleted and
// created again under its name are never collected.
//
// Dependents are pods, ReplicaSets, Deployments, node Leases and the
// custom kinds' objects (those of the Context's informers that are set:
// the manager adds one per custom kind it is configured with, as the real
// collector watches every listable resource that discovery finds, CRDs
// included); owners are any of these kinds, a custom one matched by its
// apiVersion and kind. Foreground deletion and the orphan
// propagation policy are not modelled: kubesim's API server has no
// propagationPolicy, and deletes cascade in the background, the default
// for ReplicaSets and Deployments.
package gc
