package metrics

// Info describes one metric of a run's result for people. The
// documentation (docs/metrics.md) is generated from Registry, and a
// test asserts that every metric a catalogue run reports is registered and
// every registered metric is reported by some run.
type Info struct {
	Name string
	// Layer is "etcd", "api" or "stack": the scenarios that report it
	// ("stack" metrics only in the scenarios named by Scenarios).
	Layer string
	// Scenarios, when set, names the scenarios that report it; empty means
	// every scenario of the layer and above.
	Scenarios string
	Means     string
}

// Registry lists every metric, in the order the documentation gives
// them.
func Registry() []Info {
	return []Info{
		{"write_availability", "etcd", "", "successful over attempted KV writes (put, compare-and-swap, delete) of the etcd workload"},
		{"read_availability", "etcd", "", "successful over attempted linearizable KV reads"},
		{"writes_attempted", "etcd", "", "KV writes invoked"},
		{"writes_ok", "etcd", "", "KV writes that succeeded"},
		{"reads_attempted", "etcd", "", "KV reads invoked"},
		{"reads_ok", "etcd", "", "KV reads that succeeded"},
		{"write_latency_p50_ms", "etcd", "", "median latency of successful KV writes, in milliseconds"},
		{"write_latency_p99_ms", "etcd", "", "99th percentile latency of successful KV writes, in milliseconds"},
		{"read_latency_p50_ms", "etcd", "", "median latency of successful KV reads, in milliseconds"},
		{"read_latency_p99_ms", "etcd", "", "99th percentile latency of successful KV reads, in milliseconds"},
		{"leader_elections", "etcd", "", "distinct Raft terms that had a leader"},
		{"quorum_up_fraction", "etcd", "", "the fraction of the run's fault window during which a quorum of members was up"},
		{"faults", "etcd", "", "faults that started a fault window (crashes, pauses, partitions, flaky links)"},
		{"recovery_mean_s", "etcd", "", "per fault, the time until a KV write invoked after it succeeded: the mean, in seconds"},
		{"recovery_max_s", "etcd", "", "the longest such recovery, in seconds"},
		{"faults_unrecovered", "etcd", "", "faults after which no KV write succeeded before the end"},
		{"converge_s", "stack", "", "the time from the end of the faults until the cluster converged (desired equals actual), in seconds; -1 if it never did"},
		{"double_running_s", "stack", "", "replica-seconds a ReplicaSet ran more pods than it wanted"},
		{"double_running_max", "stack", "", "the most pods a ReplicaSet ran beyond what it wanted at one instant"},
		{"probe_restarts", "stack", "", "containers a liveness (or, with an ablation, readiness) probe restarted"},
		{"healthy_restarts", "stack", "", "of those, the containers that were healthy (busy, not hung)"},
		{"rotation_exits", "stack", "", "times a kubelet took a pod out of service (Ready false) because its readiness probe failed"},
		{"requests", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "application requests made by the simulated users (package apptraffic) that ended"},
		{"request_success", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "the fraction of them answered with a success within the slow threshold (500 ms) and the timeout (1 s)"},
		{"request_latency_p50_ms", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "median latency of successful requests, slow ones included, in milliseconds"},
		{"request_latency_p99_ms", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "99th percentile latency of successful requests, in milliseconds"},
		{"requests_to_unready", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "requests routed to a pod its kubelet had last reported not ready when they were sent, the terminating fallback excepted"},
		{"requests_to_terminated", "stack", "readiness-vs-liveness, node-death-traffic, rolling-update-traffic, rolling-update-traffic-no-prestop, apiserver-down-traffic, proxy-rules-traffic, stack-swarm", "requests refused because their pod no longer served (gone, not running, shut down after SIGTERM, or reset)"},
		{"cm_pod_creates", "stack", "", "pods the controller manager created"},
		{"cm_requests_per_s", "stack", "", "requests the controller manager's hosts sent to the API servers per virtual second"},
		{"reaction_s", "stack", "", "the mean time from an operator's write of a ReplicaSet or Deployment to the controller manager's next pod creation or deletion, in seconds; -1 if none"},
		{"zombie_writes", "stack", "", "writes a deposed leader (controller manager or scheduler) sent while the Lease named another: client-go has no fencing"},
		{"leader_overlap_s", "stack", "", "the longest time from a takeover of a Lease to a write of the deposed leader, in seconds; -1 if none"},
		{"evictions", "stack", "node-eviction", "pods evicted by the taint manager"},
		{"eviction_delay_s", "stack", "node-eviction", "the mean time from a node's last heartbeat to the eviction of its pods, in seconds"},
		{"eviction_delay_max_s", "stack", "node-eviction", "the longest such delay, in seconds"},
		{"eviction_after_taint_s", "stack", "node-eviction", "the mean time from the NoExecute taint to the eviction, in seconds"},
		{"heal_delete_s", "stack", "node-death, node-eviction, stack-swarm", "from a node's death to the deletion of its pods (pod GC), in seconds; -1 if it never happened"},
		{"heal_create_s", "stack", "node-death, node-eviction, stack-swarm", "from the death to the creation of their replacements, in seconds"},
		{"heal_bind_s", "stack", "node-death, node-eviction, stack-swarm", "from the death to the binding of the replacements, in seconds"},
		{"heal_start_s", "stack", "node-death, node-eviction, stack-swarm", "from the death to the start of the replacements, in seconds"},
		{"rpo_revisions_lost", "stack", "etcd-disaster-recovery, etcd-amnesia", "revisions the lost etcd cluster committed above the revision of the backup it was restored from (all of them without a backup): every write of the control plane that the recovery lost"},
		{"rpo_keys_lost", "stack", "etcd-disaster-recovery, etcd-amnesia", "keys of the lost cluster's last committed state that the restored state lacks or holds at an older version"},
		{"rpo_writes_lost", "stack", "etcd-disaster-recovery, etcd-amnesia", "of those, the API writes a traced client (the counter writer) saw acknowledged"},
		{"rpo_s", "stack", "etcd-disaster-recovery, etcd-amnesia", "from the commit of the backup's revision to the last commit the recovery lost, in seconds (0 when nothing was lost)"},
		{"rto_s", "stack", "etcd-disaster-recovery, etcd-amnesia", "from the loss of the etcd quorum's disks to the operator seeing the cluster converged again (every node Ready, every ReplicaSet's replicas Running and Ready), in seconds; -1 if it never did"},
		{"rto_procedure_s", "stack", "etcd-disaster-recovery, etcd-amnesia", "the same from the operator's first recovery step: rto_s less the operator's reaction time"},
		{"pods_running_at_loss", "stack", "etcd-disaster-recovery, etcd-amnesia", "pods with a running container when the first etcd member's disk was lost"},
		{"pods_kept_through_outage", "stack", "etcd-disaster-recovery, etcd-amnesia", "of those, the pods still running when etcd was restored: kubelets keep their pods while the control plane is gone"},
		{"pods_stopped_after_restore", "stack", "etcd-disaster-recovery, etcd-amnesia", "of those, the pods whose containers all stopped after the restore: kubelets stop the pods the restored state does not know, and controllers scale down what it holds more of"},
		{"takeover_s", "stack", "controller-manager-failover", "the longest time from a leader being cut off to another replica leading, in seconds; -1 if none"},
	}
}
