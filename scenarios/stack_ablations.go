package scenarios

// stackAblations are the spokes' ablations. Two of them break no safety
// property and are measured rather than caught (Ablation.Measure).
func stackAblations() []Ablation {
	return []Ablation{
		{Name: "liveness-as-readiness", Mechanism: "a kubelet treats a failing readiness probe like a failing liveness probe: a busy but healthy container is killed and restarted instead of being taken out of service", Check: "probe-restarts", Scenario: "liveness-under-load",
			apply: func(s *AblationSet) { s.Kubelet.LivenessAsReadiness = true }},
		{Name: "scheduler-no-conflict-check", Mechanism: "the pods/binding subresource skips its conflict check: binding a pod that is already bound overwrites spec.nodeName", Check: "bound-once", Scenario: "scheduler-split-brain",
			apply: func(s *AblationSet) { s.API.BindNoConflictCheck = true }},
		{Name: "kubelet-ignore-deletion", Mechanism: "a kubelet goes on running the containers of a pod marked for deletion, as if it had no deletionTimestamp, and never finishes the deletion", Check: "double-running", Scenario: "controller-watch-lag",
			apply: func(s *AblationSet) { s.Kubelet.IgnoreDeletion = true }},
		{Name: "kubelet-fail-closed", Mechanism: "a kubelet that cannot renew its node Lease for 40 s kills every container it runs (fencing itself off) instead of keeping them running without the control plane", Check: "steady-runtime", Scenario: "apiserver-down",
			apply: func(s *AblationSet) { s.Kubelet.FailClosed = true }},
		{Name: "replicaset-counts-terminating", Mechanism: "the ReplicaSet controller counts pods marked for deletion as replicas, so the evicted pods of a lost node, Terminating for as long as their kubelet is gone, are never replaced", Check: "convergence", Scenario: "node-eviction",
			apply: func(s *AblationSet) { s.Controllers.CountTerminating = true }},
		{Name: "eviction-ignores-toleration", Mechanism: "the taint manager evicts every pod of a NoExecute-tainted node at once, ignoring the 300 s tolerationSeconds every pod gets", Check: "eviction-timing", Scenario: "node-eviction",
			apply: func(s *AblationSet) { s.Controllers.EvictIgnoresToleration = true }},
		{Name: "leader-no-step-down", Mechanism: "a leader that cannot renew its Lease within the renew deadline goes on leading instead of stepping down", Check: "leader-takeover", Scenario: "controller-manager-failover",
			apply: func(s *AblationSet) { s.Controllers.LeaderNoStepDown = true }},
		{Name: "pod-gc-disabled", Mechanism: "the pod garbage collector never deletes the pods of a Node that was deleted", Check: "self-healing", Scenario: "node-death",
			apply: func(s *AblationSet) { s.Controllers.NoPodGC = true }},
		{Name: "replicaset-no-expectations", Mechanism: "the ReplicaSet controller ignores its expectations and acts on whatever its informer shows, even before it has seen its own creations and deletions", Measure: "cm_pod_creates", Scenario: "controller-watch-lag",
			apply: func(s *AblationSet) { s.Controllers.NoExpectations = true }},
		{Name: "poll-not-watch", Mechanism: "the controller manager's informers list every 2 s instead of watching", Measure: "reaction_s,cm_requests_per_s", Scenario: "controller-manager-failover",
			apply: func(s *AblationSet) { s.Controllers.PollNotWatch = true }},
	}
}
