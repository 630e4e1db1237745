package checks

// Info describes one check for people: its name (what Check.Name returns),
// the layer whose trace it reads, and the property it judges. The
// documentation (docs/checks.md) is generated from Registry, and a test ties
// every entry to a check that a catalogue scenario really runs.
type Info struct {
	Name string
	// Layer is "etcd", "api" or "stack": the scenarios that run it.
	Layer string
	// Judges says what a pass means, in a sentence.
	Judges string
}

// Registry lists every check, in the order the documentation gives them.
func Registry() []Info {
	return []Info{
		{"raft-safety", "etcd", "election safety (at most one leader per term), commit monotonicity, state machine safety (one entry per index on every member) and agreement of the committed prefix"},
		{"linearizability", "etcd", "porcupine on the KV history, partitioned by key, with each key's version: every response is explained by one order of the operations; a write whose outcome is unknown may take effect at any later time"},
		{"watch-guarantees", "etcd", "every watch stream is ordered, unique, atomic (a revision's events arrive together), reliable (no committed event is skipped), resumable and bookmarkable, against the committed history"},
		{"kv-agreement", "etcd", "every live member's store hash agrees at the end (at a common revision when the control plane never stops writing)"},
		{"no-writes-without-quorum", "etcd", "no write invoked while a quorum of members is down succeeds"},
		{"api-linearizability", "api", "porcupine on the API server's quorum reads and writes of objects, 409 Conflicts included"},
		{"no-lost-updates", "api", "concurrent RetryOnConflict writers: the final counter accounts for every acknowledged increment"},
		{"informer-replay", "api", "per object, an informer sees resourceVersions strictly increase, misses and duplicates nothing committed, relists equal etcd at their revision, and its final store equals the API servers' state"},
		{"time-travel", "api", "no informer's view goes back to an older resourceVersion"},
		{"access", "api", "only API servers reached etcd, and no write that the roles and the node restriction forbid was admitted"},
		{"convergence", "stack", "after the settle window every ReplicaSet has its replicas Running and Ready on live Ready nodes that really run them, every Deployment is complete, and no pod is bound to a deleted node"},
		{"bound-once", "stack", "no pod is bound twice or runs on two nodes, and no binding of a bound pod reaches etcd"},
		{"probe-restarts", "stack", "a probe restarts only a container that is really hung"},
		{"double-running", "stack", "a ReplicaSet runs more pods than it wants only while a fault lasts or a kubelet cannot yet know"},
		{"eviction-timing", "stack", "the pods of an unreachable node are evicted within the window the node lifecycle algorithm gives: the 50 s grace, a monitor pass and the 300 s toleration"},
		{"self-healing", "stack", "after a node dies and its Node is deleted, each link of the chain (pod GC, ReplicaSet, scheduler, kubelet) acts within its bound"},
		{"leader-takeover", "stack", "when a leader is cut off, another replica leads within the bound client-go's Lease algorithm gives"},
		{"steady-runtime", "stack", "while the API servers are down, no container stops or starts: the data plane outlives the control plane"},
	}
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
