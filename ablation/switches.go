package ablation

// The switches, every one of them, in documentation order (the order of
// All, and of docs/ablations.md's tables): a switch's position is its
// place in this file. Each doc comment says where its mechanism's if is.

// etcd: Raft, the member, MVCC and watch.
var (
	// AckBeforeFsync (nodes/etcd, the Ready loop) sends a Ready's messages
	// (votes, append acknowledgements) before its entries and HardState
	// are synced.
	AckBeforeFsync = declare(Ablation{Layer: "etcd", Name: "raft-ack-before-fsync", Mechanism: "Raft sends votes and append acks before its log and hard state are fsynced", Check: "raft-safety", Scenario: "etcd-power-loss", AlsoCaughtBy: []string{"commit-quorum"}})
	// SkipEmptyEntry (nodes/raft, becomeLeader) makes a new leader append
	// no empty entry of its own term. On its own it is harmless: the
	// current-term commit rule still keeps older entries uncommitted until
	// an entry of the leader's term (a client's) reaches a quorum. Without
	// that rule (CommitOldTerm) it exposes Figure 8, because the leader
	// then commits older entries by counting replicas, with nothing of its
	// own term to protect them. Internal: raft-commit-old-term turns it
	// on; Raft's unit tests turn it on alone.
	SkipEmptyEntry = declareInternal("raft-skip-empty-entry")
	// CommitOldTerm (nodes/raft, maybeCommit) lets a leader advance its
	// commit index by counting replicas of entries from earlier terms: the
	// bug of the Raft paper's Figure 8 (§5.4.2). A committed entry can
	// then be overwritten. Named, it also turns on SkipEmptyEntry: the
	// empty entry a new leader appends almost hides the bug on its own (it
	// rides in the same append as the older entries, so a quorum's match
	// index practically never rests on an older-term entry), and Figure 8
	// has no such entry.
	CommitOldTerm = declare(Ablation{Layer: "etcd", Name: "raft-commit-old-term", Mechanism: "the current-term commit rule is gone (a leader commits entries of older terms by counting replicas) and so is the empty entry a new leader appends, which Figure 8 of the Raft paper does not have", Check: "raft-safety", Scenario: "raft-figure-8", AlsoCaughtBy: []string{"kv-agreement", "commit-quorum"}}, SkipEmptyEntry)
	// LearnerCountsInQuorum (nodes/raft, maybeCommit) counts the match
	// index of every member, learners too, towards the voters' majority
	// that commits an entry, instead of the voters' alone
	// (go.etcd.io/raft/v3 tracker.ProgressTracker.Committed runs
	// quorum.JointConfig.CommittedIndex over the voters; learners never
	// count, thesis §4.2.1). A leader and a caught-up learner then commit
	// an entry no other voter holds.
	LearnerCountsInQuorum = declare(Ablation{Layer: "etcd", Name: "raft-learner-counts-in-quorum", Mechanism: "a leader counts learners' acknowledgements towards the voters' majority that commits an entry", Check: "commit-quorum", Scenario: "etcd-scale-out-in"})
	// LocalReads (nodes/etcd, the Range handler) answers a linearizable
	// Range from the member's local applied state, without ReadIndex.
	LocalReads = declare(Ablation{Layer: "etcd", Name: "etcd-local-reads", Mechanism: "a linearizable read is answered from local state, without ReadIndex", Check: "linearizability", Scenario: "etcd-leader-partition"})
	// WatchResumeFromNow (nodes/etcd, the Watch handler) starts a watch
	// whose start revision is in the past at the current revision + 1.
	WatchResumeFromNow = declare(Ablation{Layer: "etcd", Name: "watch-resume-from-now", Mechanism: "a resumed watch starts at the current revision instead of the one asked for", Check: "watch-guarantees", Scenario: "etcd-leader-crash"})
	// IgnoreCompare (nodes/etcd/mvcc, Txn) makes every Txn (nested ones
	// too) take its Success branch whatever its compares say:
	// compare-and-swap becomes last-write-wins.
	IgnoreCompare = declare(Ablation{Layer: "etcd", Name: "mvcc-ignore-compare", Mechanism: "a Txn ignores its compares and always takes the success branch", Check: "linearizability", Scenario: "etcd-flaky-network"})
	// NoDedup (nodes/etcd, the apply layer) applies a request again when a
	// duplicate of it is committed.
	NoDedup = declare(Ablation{Layer: "etcd", Name: "apply-duplicates", Mechanism: "the apply layer does not de-duplicate a request that arrives twice (a retry, or a duplicate on the network)", Check: "linearizability", Scenario: "etcd-flaky-network"})
	// WriteWithoutQuorum (nodes/etcd, the write handler) makes a member
	// that knows no leader apply a write to its own store at once and
	// acknowledge it, as a store that stays writable in a minority would.
	WriteWithoutQuorum = declare(Ablation{Layer: "etcd", Name: "etcd-write-without-quorum", Mechanism: "a member that knows no leader applies a write to its own store and acknowledges it, instead of answering \"no leader\"", Check: "no-writes-without-quorum", Scenario: "etcd-majority-down"})
	// LeaseReads (nodes/raft, ReadIndex on the leader) answers a read
	// index at once from the leader's commit index, trusting its leader
	// lease, instead of confirming leadership with a heartbeat round
	// acknowledged by a quorum: etcd's raft ReadOnlyLeaseBased, which
	// etcd does not use because "if the clock drift is unbounded, leader
	// might keep the lease longer than it should (clock can move
	// backward/pause without any bound)" (raft/raft.go). A leader frozen
	// past its election timeout then serves stale reads when it resumes.
	LeaseReads = declare(Ablation{Layer: "etcd", Name: "raft-lease-reads", Mechanism: "a leader answers ReadIndex at once from its commit index, trusting its lease (raft's ReadOnlyLeaseBased), without a heartbeat round acknowledged by a quorum", Check: "linearizability", Scenario: "etcd-long-pause"})
	// IgnoreReadRevision (nodes/etcd/mvcc, rangeKeys) reads the current
	// version of every key for a Range at a past revision, instead of the
	// version each key had at that revision (etcd's kvstore_txn.go
	// rangeKeys reads the key index at the revision asked for). The
	// compaction check still applies.
	IgnoreReadRevision = declare(Ablation{Layer: "etcd", Name: "mvcc-ignore-read-revision", Mechanism: "a Range at a past revision reads the current state instead of the keys' versions at that revision", Check: "historical-reads", Scenario: "etcd-flaky-network"})
	// TxnNotAtomic (nodes/etcd/mvcc, a Txn's execution) commits each
	// write of a txn at a revision of its own, as if its ops were
	// separate requests, instead of all at one revision (etcd's
	// kvstore_txn.go: one storeTxnWrite, one main revision, increasing
	// sub-revisions), so watchers see one txn as several revisions and
	// reads see its first writes at revisions it never answered.
	TxnNotAtomic = declare(Ablation{Layer: "etcd", Name: "txn-not-atomic", Mechanism: "a Txn's writes are committed one revision each, as separate requests would be, instead of all at one revision", Check: "linearizability", Scenario: "etcd-leader-crash", AlsoCaughtBy: []string{"watch-guarantees"}})
	// CompactedWatchSilent (nodes/etcd/mvcc, syncing unsynced watchers)
	// moves a watch whose start revision was compacted to the compact
	// revision and goes on, instead of canceling it with the compact
	// revision (etcd's watchable_store.go: a compacted watcher gets a
	// response carrying CompactRevision, which clientv3 turns into
	// ErrCompacted), so the client never learns that it missed changes.
	CompactedWatchSilent = declare(Ablation{Layer: "etcd", Name: "watch-compacted-silent", Mechanism: "a watch from a compacted revision resumes silently at the compact revision instead of being canceled with it", Check: "watch-guarantees", Scenario: "etcd-compaction"})
	// SnapshotNotPointInTime (nodes/etcd, the Snapshot handler) copies
	// the keys when the snapshot's stream ends, after the entries applied
	// meanwhile, but labels the snapshot with the revision it started at,
	// instead of reading everything in one read transaction taken at the
	// start (etcd's backend.Snapshot, server/storage/backend/backend.go,
	// which Maintenance.Snapshot streams): the snapshot mixes revisions.
	SnapshotNotPointInTime = declare(Ablation{Layer: "etcd", Name: "snapshot-not-point-in-time", Mechanism: "a snapshot copies the keys as they are when its stream ends but is labelled with the revision it started at, instead of one read transaction at its start", Check: "backup-consistency", Scenario: "etcd-backup"})
	// StrictReconfigOff (nodes/etcd, checkMemberChange) runs the members
	// with --strict-reconfig-check=false: the leader skips
	// mayAddMember's, mayRemoveMember's and mayPromoteMember's quorum
	// checks (go.etcd.io/etcd/server/v3 etcdserver/server.go, each
	// returns nil when !s.Cfg.StrictReconfigCheck), so a change that
	// leaves fewer started or connected voters than a quorum is proposed.
	StrictReconfigOff = declare(Ablation{Layer: "etcd", Name: "etcd-strict-reconfig-check-off", Mechanism: "the leader proposes member adds, removes and promotes without etcd's strict reconfiguration checks (--strict-reconfig-check=false): no count of the started and connected voters", Check: "reconfig-safety", Scenario: "etcd-strict-reconfig"})
	// PromoteUnreadyLearner (nodes/etcd, checkMemberChange) skips
	// isLearnerReady (etcdserver/server.go, which etcd runs whatever
	// --strict-reconfig-check says): a learner is promoted however far
	// its log is behind the leader's.
	PromoteUnreadyLearner = declare(Ablation{Layer: "etcd", Name: "etcd-promote-unready-learner", Mechanism: "a learner is promoted to a voter without being in sync with the leader (no 90% match-index check)", Check: "reconfig-safety", Scenario: "etcd-strict-reconfig"})
	// NoLearnerLimit (nodes/etcd, validateAdd) lifts etcd's limit of one
	// learner (membership.ValidateMaxLearnerConfig with maxLearners 1,
	// api/membership/cluster.go), at the leader's check and at apply.
	NoLearnerLimit = declare(Ablation{Layer: "etcd", Name: "etcd-no-learner-limit", Mechanism: "a member add as a learner is accepted however many learners the cluster has (etcd allows one)", Check: "reconfig-safety", Scenario: "etcd-strict-reconfig"})
)

// The API layer: API servers and reflectors.
var (
	// LastWriteWins (nodes/apiserver: update, update-status and patch)
	// ignores resourceVersion: the object is written with a plain put, so
	// a stale update silently overwrites a newer one.
	LastWriteWins = declare(Ablation{Layer: "api", Name: "apiserver-last-write-wins", Mechanism: "update ignores resourceVersion: the API server writes with a plain put, so a stale read-modify-write overwrites a newer one", Check: "no-lost-updates", Scenario: "api-conflict-storm", AlsoCaughtBy: []string{"api-linearizability", "status-updates", "patch-merge"}})
	// NoResume (nodes/client/cache, the reflector) re-watches a stream
	// that broke from "" ("now", with synthetic ADDED events of the
	// current state) instead of from the last resourceVersion, and does
	// not relist: deletions in the gap are missed for good. The API
	// scenarios' informers (nodes/apiload) carry it.
	NoResume = declare(Ablation{Layer: "api", Name: "reflector-no-resume", Mechanism: "after a broken watch the reflector re-watches from \"now\" instead of its last resourceVersion, without relisting", Check: "informer-replay", Scenario: "api-watch-disconnects"})
	// CacheNo410 (nodes/apiserver, the watch cache) serves a watch from a
	// start revision that has left the cache's window from whatever the
	// cache still has, silently skipping the missing events.
	CacheNo410 = declare(Ablation{Layer: "api", Name: "cache-no-410", Mechanism: "a watch from a revision that has left the watch cache's window is served from whatever the cache has, instead of 410 Gone", Check: "informer-replay", Scenario: "api-compaction-410"})
	// SkipAuthz (nodes/apiserver, authorization) makes authorization and
	// the node restriction allow everything.
	SkipAuthz = declare(Ablation{Layer: "api", Name: "apiserver-skip-authz", Mechanism: "authorization and the node restriction allow everything", Check: "access", Scenario: "api-chaos"})
	// RelistRV0 (nodes/client/cache, the reflector) relists after errors
	// with "0", which a lagging replica serves from its stale cache, so
	// the store can go back in time (Kubernetes issue 59848, the reason
	// client-go relists from the last resourceVersion). The API
	// scenarios' informers (nodes/apiload) carry it.
	RelistRV0 = declare(Ablation{Layer: "api", Name: "reflector-relist-rv0", Mechanism: "a reflector relists with resourceVersion \"0\", which a lagging replica serves from its stale cache (Kubernetes issue 59848)", Check: "time-travel", Scenario: "api-watch-disconnects"})
	// CacheResumePastCompaction (nodes/apiserver, the watch cache's
	// reinit) answers etcd's cancellation of the cache's watch (its
	// revision was compacted) by watching again from the compact revision,
	// instead of relisting: the changes in between never reach the cache.
	CacheResumePastCompaction = declare(Ablation{Layer: "api", Name: "cache-resume-past-compaction", Mechanism: "when etcd compacted the revision the watch cache resumes from, the cache watches again from the compact revision instead of relisting, skipping the changes in between", Check: "informer-replay", Scenario: "api-etcd-compaction"})
	// CacheRelistKeepsWatchers (nodes/apiserver, the watch cache's
	// reinit) relists without first closing the watches served from the
	// cache: they go on from the new list, missing what it jumped over.
	CacheRelistKeepsWatchers = declare(Ablation{Layer: "api", Name: "cache-relist-keeps-watchers", Mechanism: "a watch cache that relists (after a compaction) keeps its watches open instead of closing them, so they carry on past the changes the relist jumped over", Check: "informer-replay", Scenario: "api-etcd-compaction"})
	// ConsistentListFromStaleCache (nodes/apiserver, list) serves a list
	// with resourceVersion "" from the watch cache as it is, without first
	// reading etcd's current revision and waiting for the cache to reach
	// it: a "consistent" list can return state older than a write that had
	// already been acknowledged.
	ConsistentListFromStaleCache = declare(Ablation{Layer: "api", Name: "consistent-list-from-stale-cache", Mechanism: "an API server serves a list with resourceVersion \"\" from its watch cache as it is, without waiting for the cache to reach etcd's current revision: a consistent list (an informer's relist after 410 Gone) can go back in time", Check: "time-travel", Scenario: "api-watch-disconnects"})
	// CompactorNoLearn (nodes/apiserver, the compactor) ignores the else
	// branch of a lost compaction Txn, so a replica never learns
	// compact_rev_key's version from another's win: once the replica that
	// last won restarts (its version back to 0) or loses track of a Txn of
	// its that timed out, no replica's compare ever matches again.
	CompactorNoLearn = declare(Ablation{Layer: "api", Name: "compactor-no-learn", Mechanism: "an API server whose compaction Txn lost does not learn compact_rev_key's version from the Txn's else branch, so once the replica that won last restarts or its Txn times out, no replica ever compacts again", Check: "compaction-progress", Scenario: "apiserver-crash"})
	// StatusLastWriteWins (nodes/apiserver, update-status) ignores the
	// resourceVersion of an update-status: a stale status write overwrites
	// a newer one. Update's precondition stays.
	StatusLastWriteWins = declare(Ablation{Layer: "api", Name: "apiserver-status-last-write-wins", Mechanism: "update-status ignores resourceVersion, so a controller's stale read-modify-write of status overwrites a newer status", Check: "status-updates", Scenario: "api-conflict-storm"})
	// StatusWritesSpec (nodes/apiserver, update-status) stores the whole
	// body of an update-status, spec included, instead of only its status.
	StatusWritesSpec = declare(Ablation{Layer: "api", Name: "status-update-writes-spec", Mechanism: "update-status writes the spec it was sent too, instead of keeping the stored spec (the status strategy's PrepareForUpdate)", Check: "status-updates", Scenario: "api-conflict-storm"})
	// UpdateWritesStatus (nodes/apiserver, update) stores the status an
	// update was sent, instead of keeping the stored status.
	UpdateWritesStatus = declare(Ablation{Layer: "api", Name: "update-writes-status", Mechanism: "update writes the status it was sent too, instead of keeping the stored status (the strategy's PrepareForUpdate)", Check: "status-updates", Scenario: "api-conflict-storm"})
	// ContinueAtLatest (nodes/apiserver, paged lists from etcd) reads the
	// pages after the first at the latest revision instead of the
	// revision the continue token pins: a paged list is no longer one
	// snapshot.
	ContinueAtLatest = declare(Ablation{Layer: "api", Name: "list-continue-at-latest", Mechanism: "a paged list's continue pages are read at the latest revision instead of the one the continue token pins, so the pages mix states", Check: "informer-replay", Scenario: "api-compaction-410"})
	// CacheIgnoresMinRV (nodes/apiserver, the watch cache's freshness
	// wait) serves a read at resourceVersion N at once from whatever the
	// cache has, instead of waiting until it has seen N.
	CacheIgnoresMinRV = declare(Ablation{Layer: "api", Name: "cache-ignores-min-rv", Mechanism: "a get, list or watch at resourceVersion N is served from the watch cache at once, even when the cache has not yet seen N, instead of waiting for it (\"not older than\")", Check: "time-travel", Scenario: "api-watch-disconnects"})
	// PatchIgnoresResourceVersion (nodes/apiserver, patch) drops the
	// precondition a resourceVersion inside a merge patch sets.
	PatchIgnoresResourceVersion = declare(Ablation{Layer: "api", Name: "patch-ignores-resourceversion", Mechanism: "a merge patch that carries metadata.resourceVersion is applied whatever the object's resourceVersion, instead of 409 Conflict when it is stale", Check: "patch-merge", Scenario: "api-conflict-storm"})
	// MergePatchReplacesMaps (nodes/apiserver, the JSON merge patch) makes
	// a nested object in a patch replace the object's instead of merging
	// into it: a patch of one annotation wipes the others.
	MergePatchReplacesMaps = declare(Ablation{Layer: "api", Name: "merge-patch-replaces-maps", Mechanism: "a JSON merge patch replaces nested objects (metadata.annotations) instead of merging key by key (RFC 7386), so concurrent patches of different keys wipe each other", Check: "patch-merge", Scenario: "api-conflict-storm"})
	// UpdateTrustsStaleCache (nodes/apiserver, GuaranteedUpdate) answers a
	// refusal computed from the watch cache's copy of the object (a stale
	// resourceVersion precondition, a binding conflict) at once, instead
	// of first reading etcd to see whether the copy was current.
	UpdateTrustsStaleCache = declare(Ablation{Layer: "api", Name: "update-trusts-stale-cache", Mechanism: "an update refused against the watch cache's copy of the object (409 for a resourceVersion the copy has not reached) is answered at once, without reading etcd to see whether the copy lags", Check: "api-linearizability", Scenario: "etcd-leader-partition-under-api"})
)

// The spokes: kubelets, the scheduler's binding, the controller manager.
// The last two break no checked property and are measured.
var (
	// LivenessAsReadiness (nodes/kubelet, the prober) is the classic
	// misconfiguration: a readiness probe that fails FailureThreshold
	// times in a row kills and restarts its container as a liveness
	// failure would (ContainerStop reason spoketrace.StopReadiness).
	LivenessAsReadiness = declare(Ablation{Layer: "stack", Name: "liveness-as-readiness", Mechanism: "a kubelet treats a failing readiness probe like a failing liveness probe: a busy but healthy container is killed and restarted instead of being taken out of service", Check: "probe-restarts", Scenario: "liveness-under-load"})
	// BindNoConflictCheck (nodes/apiserver, pods/binding) binds a pod
	// already bound to a node, or being deleted, again, overwriting its
	// spec.nodeName, instead of 409 Conflict. Two schedulers (or one that
	// retries a bind whose answer it lost) can then bind a pod twice.
	BindNoConflictCheck = declare(Ablation{Layer: "stack", Name: "scheduler-no-conflict-check", Mechanism: "the pods/binding subresource skips its conflict check: binding a pod that is already bound overwrites spec.nodeName", Check: "bound-once", Scenario: "scheduler-split-brain"})
	// IgnoreDeletion (nodes/kubelet, pod sync) removes graceful deletion:
	// the kubelet goes on running the containers of a pod marked for
	// deletion and never finishes the deletion.
	IgnoreDeletion = declare(Ablation{Layer: "stack", Name: "kubelet-ignore-deletion", Mechanism: "a kubelet goes on running the containers of a pod marked for deletion, as if it had no deletionTimestamp, and never finishes the deletion", Check: "double-running", Scenario: "controller-watch-lag"})
	// FailClosed (nodes/kubelet, fenced) fences the node off when it loses
	// the control plane: once its node Lease has gone unrenewed for the
	// lease duration (40 s), the kubelet kills every container it runs and
	// starts none until a renewal succeeds. The real kubelet fails static,
	// because a control plane outage must not become a data plane outage.
	FailClosed = declare(Ablation{Layer: "stack", Name: "kubelet-fail-closed", Mechanism: "a kubelet that cannot renew its node Lease for 40 s kills every container it runs (fencing itself off) instead of keeping them running without the control plane", Check: "steady-runtime", Scenario: "apiserver-down"})
	// CountTerminating (nodes/controllers/replicaset, sync) counts pods
	// marked for deletion as replicas. The real controller does not,
	// because a pod on a lost node stays Terminating for as long as its
	// kubelet is gone: counted, it would never be replaced.
	CountTerminating = declare(Ablation{Layer: "stack", Name: "replicaset-counts-terminating", Mechanism: "the ReplicaSet controller counts pods marked for deletion as replicas, so the evicted pods of a lost node, Terminating for as long as their kubelet is gone, are never replaced", Check: "convergence", Scenario: "node-eviction"})
	// EvictIgnoresToleration (nodes/controllers/nodelifecycle, the taint
	// manager) deletes every pod on a NoExecute-tainted node at once, as if
	// no pod tolerated the taint for a while (the 300 s that the API
	// server's DefaultTolerationSeconds admission gives every pod is what
	// keeps a short network blip from evicting a whole node).
	EvictIgnoresToleration = declare(Ablation{Layer: "stack", Name: "eviction-ignores-toleration", Mechanism: "the taint manager evicts every pod of a NoExecute-tainted node at once, ignoring the 300 s tolerationSeconds every pod gets", Check: "eviction-timing", Scenario: "node-eviction", AlsoCaughtBy: []string{"controller-deletes"}})
	// LeaderNoStepDown (nodes/client/leaderelection, the elector): a
	// leader that fails to renew within RenewDeadline goes on leading (and
	// trying to renew). RenewDeadline < LeaseDuration is what makes a
	// cut-off leader stop before anyone else may take its lease.
	LeaderNoStepDown = declare(Ablation{Layer: "stack", Name: "leader-no-step-down", Mechanism: "a leader that cannot renew its Lease within the renew deadline goes on leading instead of stepping down", Check: "leader-takeover", Scenario: "controller-manager-failover", AlsoCaughtBy: []string{"leader-exclusivity"}})
	// LeaderUsesWallClock (nodes/client/leaderelection, isLeaseValid)
	// judges a Lease expired when its renewTime (the holder's wall clock)
	// plus its duration is past the candidate's own wall clock, instead of
	// when the record has not changed for the duration since the
	// candidate observed it, on its monotonic clock (client-go's
	// observedTime). A wall clock stepped forward on a candidate, or back
	// on the leader, then lets a candidate take a live leader's Lease.
	LeaderUsesWallClock = declare(Ablation{Layer: "stack", Name: "leader-uses-wall-clock", Mechanism: "a candidate judges a Lease expired from its renewTime against its own wall clock, instead of from when it saw the record last change on its monotonic clock, so a clock step lets it take a live leader's Lease", Check: "leader-exclusivity", Scenario: "leader-clock-jumps"})
	// ManagerNoExit (nodes/controllers/manager, OnStoppedLeading) makes a
	// controller manager that lost its Lease say so and go on running its
	// controllers, instead of exiting (the real one exits: klog.Fatal
	// "leaderelection lost"), as a process whose OnStoppedLeading only
	// logs would.
	ManagerNoExit = declare(Ablation{Layer: "stack", Name: "controller-manager-no-exit", Mechanism: "a controller manager that lost its Lease goes on running its controllers instead of exiting", Check: "leader-exclusivity", Scenario: "controller-manager-failover"})
	// NoPodGC (nodes/controllers/manager, the controllers it starts): the
	// pod garbage collector does not run.
	NoPodGC = declare(Ablation{Layer: "stack", Name: "pod-gc-disabled", Mechanism: "the pod garbage collector never deletes the pods of a Node that was deleted", Check: "self-healing", Scenario: "node-death"})
	// PodGCNoQuarantine (nodes/controllers/podgc, gcOrphaned) confirms a
	// node gone, and deletes its pods, the first time the collector's
	// informer misses it, without the 40 s quarantine (quarantineTime)
	// that keeps an informer lagging behind a new Node from costing its
	// pods.
	PodGCNoQuarantine = declare(Ablation{Layer: "stack", Name: "pod-gc-no-quarantine", Mechanism: "the pod garbage collector deletes the pods of a Node as soon as its informer misses it, without the 40 s quarantine that guards against an informer lagging behind a new Node", Check: "controller-deletes", Scenario: "node-death"})
	// PodGCIgnoresOutOfService (nodes/controllers/podgc, gcTerminating)
	// force-deletes the terminating pods of every node that is not Ready,
	// without the node.kubernetes.io/out-of-service taint that says an
	// operator shut the node down for good (non-graceful node shutdown,
	// KEP-2268).
	PodGCIgnoresOutOfService = declare(Ablation{Layer: "stack", Name: "pod-gc-ignores-out-of-service", Mechanism: "the pod garbage collector force-deletes the terminating pods of any node that is not Ready, without the out-of-service taint an operator puts on a node shut down for good: the pods of a node that is only unreachable leave the API while their containers may still run", Check: "controller-deletes", Scenario: "node-eviction"})
	// ProbeCountsTotalFailures (nodes/kubelet, the prober's
	// handleResult) counts a probe's failures since its worker started,
	// instead of in a row: a success no longer resets the count, so an
	// application whose liveness fails now and then, never
	// failureThreshold times in a row, is killed anyway.
	ProbeCountsTotalFailures = declare(Ablation{Layer: "stack", Name: "probe-counts-total-failures", Mechanism: "a kubelet counts a probe's failures since the container started instead of in a row: a success does not reset the count, so a liveness probe that fails now and then kills a container that never failed failureThreshold times in a row", Check: "probe-semantics", Scenario: "probe-flaps"})
	// SchedulerIgnoresAssumed (nodes/scheduler, the cache's assumePod)
	// counts an assumed pod on its node only once the informer shows it
	// bound: the next scheduling cycles, which run before the binding
	// comes back through the watch, see the node emptier than it is.
	SchedulerIgnoresAssumed = declare(Ablation{Layer: "stack", Name: "scheduler-ignores-assumed", Mechanism: "the scheduler forgets the pods it assumed until its informer shows them bound: a burst of pods is scheduled onto the same node as if the earlier ones were not there, past its allocatable", Check: "node-capacity", Scenario: "scheduling-pressure"})
	// KubeletNoAdmission (nodes/kubelet, admit) admits every pod: the
	// kubelet runs what it is given, whatever its node has left.
	KubeletNoAdmission = declare(Ablation{Layer: "stack", Name: "kubelet-no-admission", Mechanism: "a kubelet runs every pod bound to its node without checking that it fits beside the pods it runs: when two schedulers bind one node's last room twice, the node runs more than it has", Check: "node-capacity", Scenario: "scheduling-pressure"})
	// ReplicaSetAdoptsOwned (nodes/controllers/replicaset, claimPod)
	// claims a pod that another controller owns when its selector matches
	// it, replacing the other's controller reference with its own.
	ReplicaSetAdoptsOwned = declare(Ablation{Layer: "stack", Name: "replicaset-adopts-owned", Mechanism: "the ReplicaSet controller adopts a pod its selector matches even when another controller owns it, replacing that controller's reference: ReplicaSets whose selectors overlap steal each other's pods", Check: "ownership", Scenario: "overlapping-owners"})
	// GCOwnerByName (nodes/controllers/gc, classify) takes an owner for
	// present when an object of its name exists, whatever its UID: the
	// dependents of a Deployment deleted and created again under the same
	// name are never collected.
	GCOwnerByName = declare(Ablation{Layer: "stack", Name: "gc-owner-by-name", Mechanism: "the garbage collector finds an owner by name, not UID: when a Deployment is deleted and created again under its name, the old one's ReplicaSet and pods live on, owned by nothing that exists", Check: "ownership", Scenario: "overlapping-owners"})
	// NoExpectations (nodes/controllers/replicaset, sync) manages replicas
	// on every sync, whatever the informer has not yet observed.
	NoExpectations = declare(Ablation{Layer: "stack", Name: "replicaset-no-expectations", Mechanism: "the ReplicaSet controller ignores its expectations and acts on whatever its informer shows, even before it has seen its own creations and deletions", Measure: "cm_pod_creates", Scenario: "controller-watch-lag"})
	// EndpointSliceIgnoresReadiness (nodes/controllers/endpointslice, the
	// reconciler's podToEndpoint) marks every endpoint ready, whatever its
	// pod's readiness or deletion.
	EndpointSliceIgnoresReadiness = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-readiness", Mechanism: "the EndpointSlice controller marks every endpoint ready, even of a pod that is not Ready or is being deleted, so kube-proxy would route to it", Check: "endpoints-converge", Scenario: "node-eviction"})
	// EndpointSliceDropsTerminating (nodes/controllers/endpointslice, the
	// reconciler) leaves out the pods being deleted, as the controller did
	// before terminating endpoints (Kubernetes 1.20).
	EndpointSliceDropsTerminating = declare(Ablation{Layer: "stack", Name: "endpointslice-drops-terminating", Mechanism: "the EndpointSlice controller leaves out the pods being deleted instead of keeping them as terminating endpoints (serving while they are ready), so kube-proxy has no serving-terminating endpoint to fall back on", Check: "endpoints-converge", Scenario: "node-eviction"})
	// EndpointSliceIgnoresPodUpdates (nodes/controllers/endpointslice,
	// handlePodUpdate) drops every pod update event: a pod's readiness,
	// IP or deletion reaches its Services' slices only when something
	// else (a pod added or deleted, the Service, a slice) makes the
	// controller sync them.
	EndpointSliceIgnoresPodUpdates = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-pod-updates", Mechanism: "the EndpointSlice controller drops pod update events: a pod's readiness, IP or deletion reaches its Services' slices only when another event makes it sync them", Check: "endpoints-timely", Scenario: "readiness-vs-liveness", AlsoCaughtBy: []string{"endpoints-converge", "no-traffic-to-unready"}})
	// EndpointSliceIgnoresLabelMoves (nodes/controllers/endpointslice,
	// handlePodUpdate) syncs, when a pod's labels change, only the
	// Services it now belongs to, not those it left
	// (endpointsliceutil.GetServicesToUpdateOnPodChange syncs both sides,
	// determineNeededServiceUpdates): a pod relabelled out of a Service
	// stays in its slices until something else makes the controller sync
	// that Service.
	EndpointSliceIgnoresLabelMoves = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-label-moves", Mechanism: "when a pod's labels change, the EndpointSlice controller syncs only the Services it now belongs to, not those it left: a pod relabelled out of a Service stays in that Service's slices", Check: "endpoints-timely", Scenario: "stack-chaos", AlsoCaughtBy: []string{"endpoints-converge"}})
	// EndpointSliceServingIsReady (nodes/controllers/endpointslice, the
	// reconciler's podToEndpoint) computes serving as ready is computed,
	// false for a pod being deleted, instead of the pod's readiness alone
	// (endpointslice's podToEndpoint: serving = IsPodReady, terminating =
	// DeletionTimestamp set, ready = serving and not terminating).
	EndpointSliceServingIsReady = declare(Ablation{Layer: "stack", Name: "endpointslice-serving-equals-ready-while-terminating", Mechanism: "the EndpointSlice controller marks a terminating pod not serving even while it is ready, so kube-proxy has no serving-terminating endpoint to fall back on while a Service's last pods drain", Check: "endpoints-timely", Scenario: "rolling-update-traffic", AlsoCaughtBy: []string{"endpoints-converge"}})
	// EndpointSliceIgnoresMaxPerSlice (nodes/controllers/endpointslice,
	// New) packs up to the default 100 endpoints a slice whatever
	// --max-endpoints-per-slice says (the reconciler's
	// maxEndpointsPerSlice is the flag's value: pkg/controller/endpointslice
	// NewController hands it to endpointslicerec.NewReconciler).
	EndpointSliceIgnoresMaxPerSlice = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-max-endpoints-per-slice", Mechanism: "the EndpointSlice controller packs up to the default 100 endpoints in a slice whatever --max-endpoints-per-slice says", Check: "endpoints-converge", Scenario: "endpointslice-churn"})
	// EndpointSliceIgnoresSliceDeletes (nodes/controllers/endpointslice,
	// handleSliceDelete) drops the deletion of a managed slice that the
	// controller did not delete itself, instead of syncing its Service
	// (onEndpointSliceDelete: a tracked slice whose deletion the tracker
	// did not expect queues its Service): a slice a user deleted stays
	// gone, with its endpoints, until something else makes the controller
	// sync the Service.
	EndpointSliceIgnoresSliceDeletes = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-slice-deletes", Mechanism: "the EndpointSlice controller ignores the deletion of a slice it did not delete itself: a managed slice a user deleted is not recreated, and its endpoints are gone from the Service, until another event makes the controller sync it", Check: "endpoints-timely", Scenario: "endpointslice-churn", AlsoCaughtBy: []string{"endpoints-converge"}})
	// EndpointSliceIgnoresSliceEdits (nodes/controllers/endpointslice,
	// handleSliceUpdate) drops an update of a managed slice of a newer
	// generation than the controller wrote, instead of syncing its
	// Service (onEndpointSliceUpdate: EndpointSliceTracker.ShouldSync): a
	// user's edit of a slice's endpoints stands until something else makes
	// the controller sync the Service.
	EndpointSliceIgnoresSliceEdits = declare(Ablation{Layer: "stack", Name: "endpointslice-ignores-slice-edits", Mechanism: "the EndpointSlice controller ignores an update of a managed slice it did not write (a generation newer than its own): a user's edit of a slice's endpoints stands until another event makes the controller sync the Service", Check: "endpoints-timely", Scenario: "endpointslice-churn", AlsoCaughtBy: []string{"endpoints-converge"}})
	// PollNotWatch (nodes/controllers/manager, its informers) puts every
	// informer of the controller manager in poll mode: a quorum LIST every
	// 2 s (manager.PollInterval) instead of a watch.
	PollNotWatch = declare(Ablation{Layer: "stack", Name: "poll-not-watch", Mechanism: "the controller manager's informers list every 2 s instead of watching", Measure: "reaction_s,cm_requests_per_s", Scenario: "controller-manager-failover"})
	// DeploymentIgnoresMaxSurge (nodes/controllers/deployment, the size
	// the new ReplicaSet may grow to) scales a rolling update's new
	// ReplicaSet to the Deployment's replicas at once, as if
	// NewRSNewReplicas did not bound the total by replicas + maxSurge.
	DeploymentIgnoresMaxSurge = declare(Ablation{Layer: "stack", Name: "deployment-ignores-max-surge", Mechanism: "the Deployment controller scales a rolling update's new ReplicaSet to the Deployment's replicas at once, whatever the old ReplicaSets still have: the rollout asks for up to twice the pods, past replicas + maxSurge", Check: "rollout-bounds", Scenario: "stack-chaos"})
	// DeploymentIgnoresAvailability (nodes/controllers/deployment, the
	// scale-down of old ReplicaSets) counts the ReplicaSets' spec.replicas
	// as available instead of their status.availableReplicas: the new
	// ReplicaSet's pods count as soon as they are asked for.
	DeploymentIgnoresAvailability = declare(Ablation{Layer: "stack", Name: "deployment-ignores-availability", Mechanism: "the Deployment controller counts the pods its ReplicaSets ask for as available (spec.replicas instead of status.availableReplicas), so a rolling update scales old ReplicaSets down before their replacements are available, below replicas - maxUnavailable", Check: "rollout-bounds", Scenario: "stack-chaos"})
	// DeploymentHistoryOffByOne (nodes/controllers/deployment, cleanup)
	// deletes one old ReplicaSet more than revisionHistoryLimit allows.
	DeploymentHistoryOffByOne = declare(Ablation{Layer: "stack", Name: "deployment-history-off-by-one", Mechanism: "the Deployment controller's cleanup keeps one old ReplicaSet fewer than revisionHistoryLimit: the revision a rollback would return to is deleted", Check: "controller-deletes", Scenario: "stack-chaos"})
	// LivenessBeforeStartup (nodes/kubelet, the prober's tick) lets a
	// liveness worker probe a run whose startup probe has not succeeded
	// yet, instead of passing its ticks until it has (doProbe, "Disable
	// other probes until container has started").
	LivenessBeforeStartup = declare(Ablation{Layer: "stack", Name: "liveness-before-startup", Mechanism: "a kubelet runs a container's liveness probe before its startup probe has succeeded: a slow-starting application is killed while it warms up, which its startup probe was there to allow", Check: "probe-semantics", Scenario: "probe-flaps"})
)

// The Service rotation: kube-proxy and the kubelet's preStop hook.
var (
	// ProxyIgnoresReadiness (nodes/kubeproxy, the rules of a Service port)
	// routes to every endpoint of a Service, whatever its ready and serving
	// conditions, instead of to the ready ones (or, when there are none,
	// to the serving-terminating ones).
	ProxyIgnoresReadiness = declare(Ablation{Layer: "stack", Name: "kube-proxy-ignores-readiness", Mechanism: "kube-proxy routes a Service's traffic to all its endpoints, ready or not: requests reach pods that are still starting or out of rotation", Check: "no-traffic-to-unready", Scenario: "rolling-update-traffic", AlsoCaughtBy: []string{"service-availability"}})
	// ProxyFlushOnDisconnect (nodes/kubeproxy, its disconnect check)
	// drops every rule of the node when kube-proxy cannot reach the API
	// server, instead of keeping its last rules: a control plane outage
	// becomes a data plane outage.
	ProxyFlushOnDisconnect = declare(Ablation{Layer: "stack", Name: "kube-proxy-flush-on-disconnect", Mechanism: "kube-proxy drops its node's rules when it cannot reach the API server, instead of keeping the last ones: a control plane outage becomes a data plane outage", Check: "service-availability", Scenario: "apiserver-down-traffic", AlsoCaughtBy: []string{"proxy-rules-converge"}})
	// ProxyMergesServices (nodes/kubeproxy, Cache.portKey) groups the
	// endpoints of every Service port by the port's name and protocol
	// alone: two Services with a port "http" share their backends.
	ProxyMergesServices = declare(Ablation{Layer: "stack", Name: "kube-proxy-merges-services", Mechanism: "kube-proxy groups endpoints by port name alone, not by Service: Services that share a port name route to each other's pods", Check: "service-routing", Scenario: "readiness-vs-liveness"})
	// ProxyNoTerminatingFallback (nodes/kubeproxy, Cache.categorize)
	// routes a Service port without ready endpoints to nothing, instead of
	// to its serving and terminating endpoints (KEP-1669).
	ProxyNoTerminatingFallback = declare(Ablation{Layer: "stack", Name: "kube-proxy-no-terminating-fallback", Mechanism: "kube-proxy has no terminating-endpoints fallback: a Service whose every pod is terminating rejects its traffic while those pods still serve", Check: "proxy-rules-converge", Scenario: "proxy-rules-traffic"})
	// ProxyIgnoresTrafficPolicy (nodes/kubeproxy, Cache.Routes) treats
	// internalTrafficPolicy Local as Cluster: every node routes to every
	// usable endpoint, not to its own alone.
	ProxyIgnoresTrafficPolicy = declare(Ablation{Layer: "stack", Name: "kube-proxy-ignores-traffic-policy", Mechanism: "kube-proxy ignores internalTrafficPolicy Local: a node routes the Service's traffic to pods on other nodes instead of to its own alone", Check: "proxy-rules-converge", Scenario: "proxy-rules-traffic"})
	// ProxyIgnoresServiceUpdates (nodes/kubeproxy, Cache.OnService)
	// requests no sync for an updated Service: a changed port or traffic
	// policy reaches the rules only when some other change syncs them.
	ProxyIgnoresServiceUpdates = declare(Ablation{Layer: "stack", Name: "kube-proxy-ignores-service-updates", Mechanism: "kube-proxy requests no sync when a Service is updated: a Service port moved to another port number keeps its old rules until an unrelated change syncs the node", Check: "proxy-rules-converge", Scenario: "proxy-rules-traffic"})
	// KubeletNoPreStop (nodes/kubelet, killContainer) stops a container
	// without running its preStop hook: SIGTERM comes at once, so an
	// application that stops accepting at SIGTERM refuses the requests
	// that nodes still route to it until their kube-proxy syncs.
	KubeletNoPreStop = declare(Ablation{Layer: "stack", Name: "kubelet-no-prestop", Mechanism: "a kubelet stops a container without its preStop hook: SIGTERM comes at once, so requests still routed to it before kube-proxy syncs are refused", Check: "service-availability", Scenario: "rolling-update-traffic", AlsoCaughtBy: []string{"termination-timing"}})
	// KubeletNoSIGKILL (nodes/kubelet, killContainer) never kills a
	// container at its grace period's end: an application slower to exit
	// after SIGTERM than the grace period leaves runs on until it exits by
	// itself, and a hung one forever.
	KubeletNoSIGKILL = declare(Ablation{Layer: "stack", Name: "kubelet-no-sigkill", Mechanism: "a kubelet never sends SIGKILL when a stopping container's grace period runs out: it waits for the application to exit", Check: "termination-timing", Scenario: "stack-swarm"})
)

// Disaster recovery: restoring etcd from a backup (the recovery operator
// in scenarios).
var (
	// RestoreWithoutBump (scenarios, the recovery operator's restore
	// step) runs `etcdutl snapshot restore` without --bump-revision and
	// --mark-compacted: the restored cluster starts at the snapshot's
	// revision and hands out again the revisions the lost cluster used
	// after it, which the control plane's reflectors and watch caches
	// already saw: their watches resume above the restored revision and
	// miss the new writes, and their relists go back in time.
	RestoreWithoutBump = declare(Ablation{Layer: "etcd", Name: "restore-without-bump", Mechanism: "etcd is restored from a backup without --bump-revision and --mark-compacted: the new cluster reuses revisions clients already saw, so watches resume past the new writes and caches stay stale",
		Check: "time-travel", Scenario: "etcd-disaster-recovery", AlsoCaughtBy: []string{"restored-reads"}})
	// RestoreDropsKeysRange (nodes/etcd, Restore) writes only the first
	// half of the snapshot's keys (in key order) into the restored store,
	// as a restore that copied the keys page by page and lost the last
	// pages would, while it still reports the snapshot it read (its key
	// count and hash, which `etcdutl snapshot status` shows): only what the
	// restored members serve reveals the loss.
	RestoreDropsKeysRange = declare(Ablation{Layer: "etcd", Name: "restore-drops-keys-range", Mechanism: "etcdutl snapshot restore writes only the first half of the snapshot's keys into the restored store, while reporting the snapshot it read: the restored cluster serves a state the backup never had",
		Check: "restored-reads", Scenario: "etcd-disaster-recovery", AlsoCaughtBy: []string{"endpoints-converge"}})
	// RestoreLastByName (scenarios, the recovery operator's fetch step)
	// picks the backup whose object name sorts last (`ls | tail -1`)
	// instead of the one with the highest revision: names start with the
	// member the job saved from, so the pick is often an older backup,
	// and the recovery loses more than the newest backup would have.
	RestoreLastByName = declare(Ablation{Layer: "etcd", Name: "restore-last-by-name", Mechanism: "the operator restores the backup whose name sorts last instead of the newest (highest revision): the names start with the member saved from, so an older backup is often restored",
		Check: "no-lost-acknowledged-writes-beyond-RPO", Scenario: "etcd-disaster-recovery"})
)

// Membership change (nodes/raft and nodes/etcd), and the API servers'
// etcd endpoints under it.
var (
	// ConfChangeUnguarded (nodes/raft, stepLeader's maybeAcceptConfChange)
	// lets a leader accept a conf change while an earlier one is not yet
	// applied, instead of replacing it with an empty entry as
	// go.etcd.io/raft/v3 does (pendingConfIndex). Two single-server changes
	// in flight can together change two voters, so that an old and a new
	// majority need not intersect (thesis §4.1).
	ConfChangeUnguarded = declareInternal("raft-conf-change-unguarded")
	// RejoinWipedMember (scenarios, the etcd-replace-member operator)
	// restarts a member whose disk was wiped under its old ID, with its
	// empty disk, instead of removing it and adding a new member with a
	// new ID (etcd's documented procedure: a member that lost its data
	// directory must be removed and re-added). The member then votes and
	// acknowledges as a voter that lost the entries it acknowledged: in
	// etcd-replace-member it makes a quorum with members that lack
	// committed writes, which elects a leader without them.
	RejoinWipedMember = declare(Ablation{Layer: "etcd", Name: "rejoin-wiped-member", Mechanism: "a member whose disk was wiped restarts under its old ID with an empty disk, instead of being removed and replaced by a new member with a new ID", Check: "raft-safety", Scenario: "etcd-replace-member", AlsoCaughtBy: []string{"linearizability", "membership-safety", "commit-quorum"}})
	// APIServerStaticEtcdServers (scenarios, the etcd-migrate-under-api
	// operator) never edits the API servers' --etcd-servers while the
	// members move to new hosts. kube-apiserver's etcd client knows only
	// the endpoints it was started with (it never syncs them from etcd's
	// member list), so once the old members are removed and their hosts
	// powered off, the API servers reach no member: every request that
	// needs etcd fails for good. The disaster-recovery operator
	// (etcd-disaster-recovery) leaves them too, naming the lost members
	// instead of the fresh hosts the backup was restored on.
	APIServerStaticEtcdServers = declare(Ablation{Layer: "api", Name: "apiserver-static-etcd-servers",
		Mechanism: "the operator migrates every etcd member to a new host but never edits the API servers' --etcd-servers, which kube-apiserver never updates by itself: once the old members are gone, the API servers reach no member",
		Check:     "api-recovers", Scenario: "etcd-migrate-under-api", AlsoCaughtBy: []string{"compaction-progress", "patch-merge"}})
)
