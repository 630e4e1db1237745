package checks

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/sim"
)

// Info describes one check: its name (what Check.Name returns), the layer
// whose trace it reads, the property it judges, and, for a check that
// every scenario of some layers runs, where and how it is made. The
// documentation (docs/checks.md) is generated from Registry, and the
// scenarios build their layers' checks from it, so adding a check means
// writing it and adding its entry here.
type Info struct {
	Name string
	// Layer is "etcd", "api" or "stack": the layer whose trace it reads.
	Layer string
	// Judges says what a pass means, in a sentence.
	Judges string
	// In lists the layers (Spec.Layer) whose every scenario runs the
	// check; empty for a check a scenario asks for itself (its Build hook
	// makes it, with the scenario's parameters).
	In []string
	// New makes the check for a run; nil when In is empty.
	New func(Env) Check
}

// Env is what a check's constructor may need to know of the world it
// judges, known once the world is built.
type Env struct {
	// Members are the etcd members' hosts.
	Members []sim.HostID
	// EtcdClients are the hosts besides the API servers that may reach
	// etcd's client port: an operator's backup job, which holds etcd's
	// client certificates.
	EtcdClients []string
	// APIServers are the API servers' host names: the only hosts that may
	// reach etcd's client port.
	APIServers []string
	// HostName names a host.
	HostName func(sim.HostID) string
	// HostID finds a host by name; nil when the checks need not follow
	// hosts that join after the world is built (etcd members added by a
	// membership change).
	HostID func(string) (sim.HostID, bool)
	// FaultEnd is when the faults end.
	FaultEnd sim.Time
	// ReplicaSetInformer names the observer informer of ReplicaSets
	// (apitrace.InformerEvent.Informer), for double-running.
	ReplicaSetInformer string
	// ProbeExempt names pods whose probe restarts are measured, not judged.
	ProbeExempt func(pod string) bool
	// CompactionInterval is the API servers' --etcd-compaction-interval
	// (0 when they do not compact).
	CompactionInterval time.Duration
	// Policy is the API servers' authorization policy, for access; nil
	// means rbac.Default().
	Policy *rbac.Policy
	// MaxEndpointsPerSlice is the controller managers'
	// --max-endpoints-per-slice, for endpoints-converge; 0 means the
	// default, model.MaxEndpointsPerSlice.
	MaxEndpointsPerSlice int
}

// APILinearizabilityTimeout bounds porcupine's search per object in the
// scenarios' api-linearizability: a history that is not linearizable can
// make porcupine search for long, and the bound turns that into a failure.
const APILinearizabilityTimeout = 10 * time.Second

var (
	everyLayer = []string{"etcd", "api", "stack"}
	apiLayer   = []string{"api"}
	etcdLayer  = []string{"etcd"}
	stackLayer = []string{"stack"}
)

// Registry lists every check, in the order the documentation and the
// results give them.
func Registry() []Info {
	return []Info{
		{"raft-safety", "etcd", "election safety (at most one leader per term), commit monotonicity, state machine safety (one entry per index on every member) and agreement of the committed prefix",
			everyLayer, func(Env) Check { return NewRaftSafety() }},
		{"commit-quorum", "etcd", "whenever a leader advances its commit index, a majority of the voters of the configuration it has applied (learners never count) hold the entry there, of the leader's term, durably: fsynced before they acknowledged it, and not lost since",
			everyLayer, func(e Env) Check { return NewCommitQuorum(memberNames(e)) }},
		{"linearizability", "etcd", "porcupine on the KV history (gets of a key or a range, puts, deletes, compare-and-swaps and multi-op txns), partitioned by groups of keys that operations touch together, with each key's version and revisions: every response is explained by one order of the operations, each txn at one revision; a write whose outcome is unknown may take effect at any later time",
			everyLayer, func(Env) Check { return NewLinearizability(LinearizabilityOptions{}) }},
		{"watch-guarantees", "etcd", "every watch stream is ordered, unique, atomic (a revision's events arrive together), reliable (no committed event is skipped), resumable and bookmarkable, against the committed history",
			everyLayer, func(Env) Check { return NewWatchGuarantees() }},
		{"kv-agreement", "etcd", "every live member's store hash agrees at the end (at a common revision when the control plane never stops writing)",
			everyLayer, func(Env) Check { return NewKVAgreement() }},
		{"no-writes-without-quorum", "etcd", "no KV write invoked while a quorum of members (the voters of the newest configuration applied, or the members of the newest cluster restored from a backup) is down (crashed or frozen) succeeds before a quorum is back",
			everyLayer, func(e Env) Check { return NewNoWritesWithoutQuorum(e.Members).FollowMembership(e.HostID) }},
		{"historical-reads", "etcd", "every KV read (of a key or a range, at a past revision or the current one, and every watcher's list) returns exactly the committed state at its revision; a read at a past revision fails as compacted only below a compaction a member applied, and no member serves a revision it compacted",
			etcdLayer, func(Env) Check { return NewHistoricalReads() }},
		{"api-linearizability", "api", "porcupine on the API server's quorum reads and writes of objects, 409 Conflicts included; each object's history is checked in segments, cut where every linearization provably leaves one state",
			apiLayer, func(Env) Check {
				return NewAPILinearizability(APILinearizabilityOptions{Timeout: APILinearizabilityTimeout})
			}},
		{"no-lost-updates", "api", "concurrent RetryOnConflict writers: the final counter accounts for every acknowledged increment",
			apiLayer, func(Env) Check { return NewNoLostUpdates() }},
		{"informer-replay", "api", "per object, an informer sees resourceVersions strictly increase, misses and duplicates nothing committed, relists equal etcd at their revision, and its final store equals the API servers' state",
			apiLayer, func(Env) Check { return NewInformerReplay() }},
		{"compaction-progress", "api", "once the faults are over, the API servers' compactor (every replica bidding for compact_rev_key each --etcd-compaction-interval) compacts etcd again within 3 intervals and keeps doing so until the end",
			apiLayer, func(e Env) Check { return NewCompactionProgress(e.CompactionInterval, e.FaultEnd) }},
		{"time-travel", "api", "no informer's view goes back to an older resourceVersion",
			apiLayer, func(Env) Check { return NewTimeTravel() }},
		{"access", "api", "only API servers reached etcd, and no write that the authorization policy (roles and bindings, rbac.Default unless the scenario gives its own) and the node rules and restriction forbid was admitted",
			[]string{"api", "stack"}, func(e Env) Check {
				return NewAccess(AccessOptions{AllowedSenders: func(host string) bool {
					return slices.Contains(e.APIServers, host) || slices.Contains(e.EtcdClients, host)
				}, HostName: e.HostName,
					Policy: e.Policy})
			}},
		{"convergence", "stack", "after the settle window every ReplicaSet has its replicas Running and Ready on live Ready nodes that really run them, every Deployment is complete, and no pod is bound to a deleted node",
			stackLayer, func(e Env) Check { return NewConvergence(ConvergenceOptions{FaultEnd: e.FaultEnd}) }},
		{"endpoints-converge", "stack", "at the end of the run, every Service's EndpointSlices (the controller's, controlled by it) hold exactly one endpoint per pod its selector matches that has an IP, is not terminal and is on an existing node, with ready = Ready and not being deleted, serving = Ready and terminating = being deleted, and at most the controller managers' --max-endpoints-per-slice (default 100) endpoints a slice; a Service or pod that changed in the last 5 s is not judged, nor a Service a user deleted a slice of that the leading controller had not written, until the controller writes one of its slices again; the same holds during the run whenever Services, pods, slices and Nodes have all stood still for 5 s, away from faults (60 s after the last)",
			stackLayer, func(e Env) Check {
				return NewEndpointsConverge(EndpointsConvergeOptions{MaxEndpointsPerSlice: e.MaxEndpointsPerSlice})
			}},
		{"endpoints-timely", "stack", "every committed change of a pod (its readiness, IP, deletion, or labels that take it into or out of a Service's selector), its Service or the set of Nodes is in every Service's EndpointSlices that selects the pod before or after it within 2 s, and a change of a slice (a user's deletion, edit or relabelling included) leaves the pods it listed shown as they are within 2 s (but for a user's deletion of a slice the leading controller has not written since it began to lead, which the real controller's tracker does not know and so does not repair) (a pod's endpoint as endpoints-converge defines it, every condition of it, or none), unless a later change of it set a new goal first; a goal set while a fault was active or within 60 s after one is judged 2 s after the 60 s that follow the last fault, once none is active; when the controller's sync of the Service failed meanwhile (its slice informer behind its own writes), 2 s after the retry its work queue's backoff scheduled",
			stackLayer, func(Env) Check { return NewEndpointsTimely(EndpointsTimelyOptions{}) }},
		{"proxy-rules-converge", "stack", "whenever the Services and EndpointSlices have stood still for 5 s, away from faults (60 s after the last), and at the end, every node's kube-proxy rules (as the trace shows them) are those the real kube-proxy would program from the committed objects on that node: one per port of every Service with a cluster IP, not ExternalName and not another proxy's, at its cluster IP, port and protocol, routing to the ready endpoints of its slices' port of that name and protocol, else to the serving and terminating ones, and with internalTrafficPolicy Local to the node's own alone; and in between, under the faults, no node drops the rules of a port of a Service (Cluster policy) that has had endpoints for over 15 s, unless its own host crashed or paused within them: an API server out of reach is no excuse",
			stackLayer, func(Env) Check { return NewProxyRulesConverge(ProxyRulesConvergeOptions{}) }},
		{"service-routing", "stack", "every application request routed to a backend went to a pod its Service's selector picks, at the pod's IP, on the targetPort of the Service port it asked for",
			stackLayer, func(Env) Check { return NewServiceRouting() }},
		{"bound-once", "stack", "no pod is bound twice or runs on two nodes, and no binding of a bound pod reaches etcd",
			stackLayer, func(Env) Check { return NewBoundOnce() }},
		{"probe-restarts", "stack", "a probe restarts only a container that is really unhealthy: hung, or failing its own liveness endpoint",
			stackLayer, func(e Env) Check { return NewProbeRestarts(ProbeRestartsOptions{Exempt: e.ProbeExempt}) }},
		{"double-running", "stack", "a ReplicaSet runs more pods than it wants only while a fault lasts or a kubelet cannot yet know",
			stackLayer, func(e Env) Check {
				return NewDoubleRunning(DoubleRunningOptions{ReplicaSetInformer: e.ReplicaSetInformer})
			}},
		{"leader-exclusivity", "stack", "a leader-elected component writes as leader only while it leads and until its renew deadline on its own clock (RenewDeadline after acquiring, RetryPeriod+RenewDeadline after its last renewal; a host frozen when a timer fell due runs it at its resume), and a candidate takes a held Lease only once its own clock has run the lease duration since the holder's last record: client-go's guarantee, which has no fencing (a deposed leader's writes are counted: zombie_writes)",
			stackLayer, func(Env) Check { return NewLeaderExclusivity(LeaderExclusivityOptions{}) }},
		{"backup-consistency", "etcd", "every snapshot a member saved and every backup a store accepted has the key count and the hash of the committed KV state at its revision, rebuilt from the applied entries: a snapshot is a point-in-time copy", nil, nil},
		{"no-lost-acknowledged-writes-beyond-RPO", "etcd", "a cluster restored from a backup (etcdutl snapshot restore) holds exactly the committed state at the snapshot's revision, rebuilt from the lost cluster's applied entries, and that snapshot is the newest backup stored: only the writes acknowledged after it are lost (measured: rpo_revisions_lost, rpo_writes_lost, rpo_s, rto_s)", nil, nil},
		{"restored-reads", "etcd", "every Range answer and watch event a member of a cluster restored from a backup serves is the restored cluster's committed state at its revision (the snapshot's keys plus the entries it applied since), nothing is served below the revision the restore compacted to, and, after a restore from a snapshot, no answer carries a revision above the snapshot's that the lost cluster handed out (--bump-revision must skip them)", nil, nil},
		{"membership-safety", "etcd", "membership changes are single-server and agreed: every member applies the same configuration at an index, each differs from the one before by at most one voter, no two members lead one term under configurations whose majorities can be disjoint, and no member whose disk was wiped comes back as a voter under its old ID", nil, nil},
		{"reconfig-safety", "etcd", "every member add, remove and promote the leader let through, and every one it refused with a strict-reconfiguration error, is what etcd's rules (--strict-reconfig-check, maxLearners 1, a learner promoted at 90% of the leader's log) say at that moment, judged from the Raft messages the leader received in the last 5 s and the logs made durable: no accepted change leaves fewer started or connected voters than a quorum, promotes a learner that is behind, or makes a second learner",
			nil, nil},
		{"api-recovers", "api", "every API call invoked 10 s (the bound the scenario gives) after the last fault and the last operator action (member commands, steps of a procedure) ends without a server error or a lost answer: the API serves again once the faults and the operator's work are over, as the clients see it",
			nil, nil},
		{"eviction-timing", "stack", "the pods of an unreachable node are evicted within the window the node lifecycle algorithm gives: the 50 s grace, a monitor pass and the 300 s toleration, counted from the NoExecute taint the controller traced, and never from a node it did not taint", nil, nil},
		{"self-healing", "stack", "after a node dies and its Node is deleted, each link of the chain (pod GC, ReplicaSet, scheduler, kubelet) acts within its bound", nil, nil},
		{"leader-takeover", "stack", "when a leader is cut off, another replica leads within the bound client-go's Lease algorithm gives", nil, nil},
		{"no-traffic-to-unready", "stack", "application requests reach only ready pods: kube-proxy never routes to an endpoint its slices say is not ready, and a pod its kubelet reported not ready gets no request routed as ready after the bound (2 s: kube-proxy's 1 s min sync and the writes and watches before it), unless a fault active within the recovery (60 s) may have delayed the news", nil, nil},
		{"service-availability", "stack", "the fraction of application requests to the scenario's Service that succeeded in time is at least the floor the scenario declares", nil, nil},
		{"steady-runtime", "stack", "while the API servers are down, no container stops or starts: the data plane outlives the control plane", nil, nil},
		{"status-updates", "api", "writers of one object's spec (update) and of its status (update-status) with RetryOnConflict: every acknowledged write of either is accounted for, and neither ever changes the other half",
			apiLayer, func(Env) Check { return NewStatusUpdates() }},
		{"patch-merge", "api", "concurrent JSON merge patches of one object, each of its own key, some with a resourceVersion precondition: every patch merges without undoing another, none acknowledged is lost, and a precondition is honoured",
			apiLayer, func(Env) Check { return NewPatchMerge() }},
		{"probe-semantics", "stack", "a kubelet kills a container only after failureThreshold liveness failures in a row (and then at once), and reports a pod ready exactly when its containers run and each readiness probe is past its threshold: out after failureThreshold failures in a row, back after successThreshold successes",
			stackLayer, func(Env) Check { return NewProbeSemantics() }},
		{"node-capacity", "stack", "the pods running on a node never request more than its allocatable (the kubelet's admission), and no scheduler binds a pod where the pods it bound there itself would then request more (its assume cache)",
			stackLayer, func(Env) Check { return NewNodeCapacity() }},
		{"rollout-bounds", "stack", "every ReplicaSet resize the Deployment controller commits keeps a rolling update's promise as far as its view allows: its Deployment's ReplicaSets never ask for more than spec.replicas + maxSurge, and a scale-down never removes available replicas beyond those above spec.replicas - maxUnavailable (judged at each resize against the most favourable view the controller could have held)",
			stackLayer, func(Env) Check { return NewRolloutBounds() }},
		{"termination-timing", "stack", "a kubelet stops each container of a deleted pod no sooner than its preStop sleep (up to the grace period) has run, and no later than its SIGKILL deadline (the hook's time, then what the grace period leaves, at least 2 s), against the grace period the API server committed; a node whose host had a fault meanwhile is not judged",
			stackLayer, func(Env) Check { return NewTerminationTiming() }},
		{"controller-deletes", "stack", "every deletion of the pod garbage collector, the Deployment controller and the taint eviction controller is one its documentation allows, against the state committed when it was sent: a terminated pod beyond --terminated-pod-gc-threshold, a pod of a Node gone for the 40 s quarantine, a terminating pod unbound or on a node not Ready and tainted out-of-service; an old ReplicaSet the Deployment controls, without replicas, beyond revisionHistoryLimit; a pod on a node with NoExecute taints, once the shortest tolerationSeconds it has for them ran out on the controller's clock (at once for a taint it does not tolerate, never when it tolerates them for ever)",
			stackLayer, func(Env) Check { return NewControllerDeletes(ControllerDeletesOptions{}) }},
		{"ownership", "stack", "as the API servers committed it, no object has two controllers, a controller adopts only what has none and its selector matches, a ReplicaSet deletes only pods it controls, and an owner reference goes (or the garbage collector deletes a dependent) only once the owner is gone, unless a controller released what its selector no longer matches",
			stackLayer, func(Env) Check { return NewOwnership() }},
	}
}

// ForLayer makes every check that each scenario of layer runs, in
// Registry order.
func ForLayer(layer string, env Env) []Check {
	var out []Check
	for _, i := range Registry() {
		if slices.Contains(i.In, layer) {
			out = append(out, i.New(env))
		}
	}
	return out
}

// LookupInfo returns the registry entry of the named check.
func LookupInfo(name string) (Info, bool) {
	for _, i := range Registry() {
		if i.Name == name {
			return i, true
		}
	}
	return Info{}, false
}

// memberNames names the members the world was built with.
func memberNames(e Env) []string {
	out := make([]string, 0, len(e.Members))
	for _, h := range e.Members {
		if e.HostName != nil {
			out = append(out, e.HostName(h))
		}
	}
	return out
}
