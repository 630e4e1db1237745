package scenarios

// stackAblations are the spokes' ablations. Two of them break no safety
// property and are measured rather than caught (Ablation.Measure).
func stackAblations() []Ablation {
	return []Ablation{
		{Name: "liveness-as-readiness", Mechanism: "a kubelet treats a failing readiness probe like a failing liveness probe: a busy but healthy container is killed and restarted instead of being taken out of service", Check: "probe-restarts", Scenario: "liveness-under-load",
			apply: func(s *AblationSet) { s.Kubelet.LivenessAsReadiness = true }},
		{Name: "scheduler-no-conflict-check", Mechanism: "the pods/binding subresource skips its conflict check: binding a pod that is already bound overwrites spec.nodeName", Check: "bound-once", Scenario: "scheduler-split-brain",
			apply: func(s *AblationSet) { s.API.BindNoConflictCheck = true }},
		{Name: "replicaset-no-expectations", Mechanism: "the ReplicaSet controller ignores its expectations and acts on whatever its informer shows, even before it has seen its own creations and deletions", Measure: "cm_pod_creates", Scenario: "controller-watch-lag",
			apply: func(s *AblationSet) { s.Controllers.NoExpectations = true }},
		{Name: "poll-not-watch", Mechanism: "the controller manager's informers list every 2 s instead of watching", Measure: "reaction_s,cm_requests_per_s", Scenario: "controller-manager-failover",
			apply: func(s *AblationSet) { s.Controllers.PollNotWatch = true }},
	}
}
