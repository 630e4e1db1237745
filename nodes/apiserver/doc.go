// Package apiserver is a simulated kube-apiserver process: it serves the
// apiwire protocol on apiwire.Port, passes every write through
// authentication, authorization (RBAC-like roles and the node restriction),
// admission (defaulting, then validation) and only then writes to the
// simulated etcd, and serves reads and watches with Kubernetes'
// resourceVersion rules from etcd or from its own watch cache.
//
// Storage follows the real API server: an object lives under
// /registry/<resource>/<namespace>/<name> (cluster-scoped kinds under
// /registry/<resource>/<name>; a custom kind under
// /registry/<group>/<plural>/..., see custom.go), its value is
// model.Encode of the object with resourceVersion cleared, and its
// resourceVersion is the key's etcd mod_revision. Conditional writes are etcd Txns on mod_revision (update,
// patch, update-status, bind, delete) or on create_revision == 0 (create).
//
// Each replica keeps one watch cache per resource, fed by an etcd watch on
// the resource's prefix (the cacher's reflector). It keeps the current
// objects and a ring of recent events sized as the real one (at least 100
// events, more while they are all younger than 75 s); watches are served
// from it, with 410 Gone for a start revision whose successor has left the
// ring. Replicas share nothing, so a client that switches
// replicas can read older state than it saw, as in reality.
//
// Choices where the brief left room, each as the real API server does
// unless said otherwise:
//
//   - Create clears resourceVersion, deletionTimestamp and the grace period,
//     assigns a UID (from the replica's random stream), creationTimestamp
//     (virtual now) and generation 1. Status is reset for ReplicaSets and
//     Deployments (empty) and for pods (phase Pending), and kept for Nodes
//     (kubelets register their Node with its status) and Leases (no status).
//   - Generation is bumped whenever the spec changes, for every kind
//     (Kubernetes does so for the kinds with a generation-aware strategy;
//     kubesim does it uniformly).
//   - Update takes metadata and spec from the request and status from the
//     stored object; update-status takes only status (the real status
//     strategies keep the stored spec, and some also metadata changes;
//     kubesim keeps all of it). Patch (JSON merge patch) applies to the
//     current object and, like update, keeps the stored status (kubesim has
//     no status patch). A resourceVersion inside the patch is a
//     precondition (409 on mismatch), as in Kubernetes.
//   - An update with an empty resourceVersion is unconditional: the server
//     reads, applies and writes with a Txn on the read mod_revision, and
//     retries internally on conflict, like GuaranteedUpdate. A Lease, whose
//     strategy does not AllowUnconditionalUpdate, refuses one with 422.
//   - Delete of a scheduled, non-terminal pod with a grace period > 0 only
//     marks it (deletionTimestamp, deletionGracePeriodSeconds); the kubelet
//     deletes it with grace 0. An object with finalizers is marked instead
//     of deleted, and goes when an update removes its last finalizer.
//   - The controller manager may also update Nodes (the real node
//     controller's ClusterRole allows it), besides update-status, patch and
//     delete.
//   - A watch that allows bookmarks gets one about every minute
//     (BookmarkFrequency), as from the real cacher; kubesim sends none just
//     before a watch's deadline, since its clients end their watches
//     themselves.
//   - Each replica runs kube-apiserver's etcd compactor (every 5 min,
//     coordinated through the compact_rev_key Txn, compacting to the
//     revision seen one interval earlier). When a compaction passes the
//     revision a watch cache resumes its etcd watch from (a replica cut off
//     from etcd for longer than the interval), etcd cancels the watch and
//     the cache reinitializes as the real Cacher does: unready at once,
//     then a second later it closes every watch it serves cleanly
//     (apiwire.Closed) and relists; a client resuming from before that
//     list gets 410 Gone. An etcd watch ended by "etcdserver: no leader"
//     is watched again from the cache's revision, the cache staying ready,
//     until 30 s of such errors make it reinitialize the same way
//     (retry.go). While it is unready, the cache answers 429 with a
//     Retry-After of one second.
//   - Bind does not bump generation; it sets spec.nodeName and a True
//     PodScheduled condition.
//   - Lists and gets from the cache (resourceVersion "0" or N) ignore Limit
//     and Continue, as the real cacher does for "0"; Limit and Continue are
//     honoured on quorum lists, and a continue token pins the list's
//     revision (a compacted one gives 410 Gone). A list at N with a Limit
//     is the legacy exact match: it reads etcd at exactly N (410 Gone once
//     N is compacted), as the real cacher delegates it to etcd.
package apiserver
