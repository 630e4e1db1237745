package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Timings of stack-chaos.
const (
	stackChaosDuration = 330 * time.Second
	stackChaosSettle   = 180 * time.Second
	// stackChaosSlotted is how many of web's pods the operator moves
	// between the Services web-blue and web-green, under the faults.
	stackChaosSlotted = 2
)

// StackChaosSpec is stack-chaos at another size: nodes kubelets, a web
// ReplicaSet of webReplicas (scaled up by 2 at 90 s) and an api Deployment
// of apiReplicas, for duration (settle window included). The full-stack
// benchmark runs it with 10 nodes and 30 pods for 10 minutes.
func StackChaosSpec(name string, nodes int, webReplicas, apiReplicas int32, duration time.Duration) scenarios.Spec {
	return stackChaos(name, nodes, webReplicas, apiReplicas, duration)
}

// stackChaos is control-plane chaos with everything at once, on a
// ReplicaSet and a Deployment that the operator scales and rolls while
// the faults go on; replicas, pods and nodes scale with the arguments.
func stackChaos(name string, nodes int, webReplicas, apiReplicas int32, duration time.Duration) scenarios.Spec {
	return scenarios.Spec{
		Name: name,
		Description: "control-plane chaos with everything at once from 30 s: etcd members and leader, API servers, the scheduler's and controller manager's leaders, and nodes crash, pause or are cut off, one fault about every 8 s for up to 30 s, and a kubelet process restarts every 20 to 40 s (its containers run on); meanwhile the operator scales web up, rolls out a new version of the api Deployment, and moves two of web's pods back and forth between the Services web-blue and web-green by relabelling them (slot=blue, then green, blue, green); " +
			"after the faults every ReplicaSet has its pods running and ready, the rollout is complete, no pod was bound twice, web's Services list exactly their pods, and every move made under the faults shows in the slices (out of the Service the pods left, into the one they joined, with every condition right) within 2 s of the recovery",
		Duration: duration, Settle: stackChaosSettle,
		Stack: &scenarios.StackTopology{Nodes: nodes, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{
				scenarios.CreateStep(15*time.Second, web(webReplicas)),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("api", apiReplicas, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "blue", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "green", 80)),
				scenarios.SlotPods(45*time.Second, scenarios.WorkloadNamespace, "web", "blue", stackChaosSlotted),
				scenarios.RollDeployment(60*time.Second, scenarios.WorkloadNamespace, "api", "registry.example/api:2"),
				scenarios.SlotPods(75*time.Second, scenarios.WorkloadNamespace, "web", "green", stackChaosSlotted),
				scenarios.ScaleReplicaSet(90*time.Second, scenarios.WorkloadNamespace, "web", webReplicas+2),
				scenarios.SlotPods(105*time.Second, scenarios.WorkloadNamespace, "web", "blue", stackChaosSlotted),
				scenarios.SlotPods(135*time.Second, scenarios.WorkloadNamespace, "web", "green", stackChaosSlotted),
			}
		}},
		Faults: nemesis.StackChaosSchedule,
	}
}
