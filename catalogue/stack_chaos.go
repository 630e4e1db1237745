package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/model"
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
// of apiReplicas (rolled out at 60 s and 120 s), for duration (settle
// window included). The full-stack
// benchmark runs it with 10 nodes and 30 pods for 10 minutes.
func StackChaosSpec(name string, nodes int, webReplicas, apiReplicas int32, duration time.Duration) scenarios.Spec {
	return stackChaos(name, nodes, webReplicas, apiReplicas, duration)
}

// stackChaos is control-plane chaos with everything at once, on a
// ReplicaSet and a Deployment that the operator scales and rolls while
// the faults go on; replicas, pods and nodes scale with the arguments.
func stackChaos(name string, nodes int, webReplicas, apiReplicas int32, duration time.Duration) scenarios.Spec {
	// api keeps one old revision: once its second rollout is complete, the
	// Deployment controller deletes the first ReplicaSet.
	api := scenarios.NewDeployment("api", apiReplicas, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})
	api.Spec.RevisionHistoryLimit = model.Ptr(int32(1))
	return scenarios.Spec{
		Name: name,
		Description: "control-plane chaos with everything at once from 30 s: etcd members and leader, API servers, the scheduler's and controller manager's leaders, and nodes crash, pause or are cut off, one fault about every 8 s for up to 30 s, and a kubelet process restarts every 20 to 40 s (its containers run on); meanwhile the operator scales web up, rolls out two new versions of the api Deployment, which keeps one old revision (revisionHistoryLimit 1), so that the second rollout's completion deletes the first ReplicaSet, moves two of web's pods back and forth between the Services web-blue and web-green by relabelling them (slot=blue, then green, blue, green), and creates a Widget (a custom kind) with its Deployment of one pod, controlled by it, resizes it and deletes it, so that the garbage collector deletes the Deployment, its ReplicaSet and its pod; " +
			"after the faults every ReplicaSet has its pods running and ready, the rollout is complete, no pod was bound twice, web's Services list exactly their pods, and every move made under the faults shows in the slices (out of the Service the pods left, into the one they joined, with every condition right) within 2 s of the recovery",
		Duration: duration, Settle: stackChaosSettle,
		Stack: &scenarios.StackTopology{Nodes: nodes, Rogue: true, Custom: []model.CustomResourceDefinition{Widgets}, Script: func(*scenarios.StackLayer) []apiload.Step {
			shop, shopLater := widgetSteps("shop", 20*time.Second, 100*time.Second, 140*time.Second)
			steps := []apiload.Step{
				scenarios.CreateStep(15*time.Second, web(webReplicas)),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
				scenarios.CreateStep(15*time.Second, api),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "blue", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "green", 80)),
			}
			steps = append(steps, shop...)
			steps = append(steps,
				scenarios.SlotPods(45*time.Second, scenarios.WorkloadNamespace, "web", "blue", stackChaosSlotted),
				scenarios.RollDeployment(60*time.Second, scenarios.WorkloadNamespace, "api", "registry.example/api:2"),
				scenarios.SlotPods(75*time.Second, scenarios.WorkloadNamespace, "web", "green", stackChaosSlotted),
				scenarios.ScaleReplicaSet(90*time.Second, scenarios.WorkloadNamespace, "web", webReplicas+2),
				shopLater[0],
				scenarios.SlotPods(105*time.Second, scenarios.WorkloadNamespace, "web", "blue", stackChaosSlotted),
				scenarios.RollDeployment(120*time.Second, scenarios.WorkloadNamespace, "api", "registry.example/api:3"),
				scenarios.SlotPods(135*time.Second, scenarios.WorkloadNamespace, "web", "green", stackChaosSlotted),
				shopLater[1])
			return steps
		}},
		Faults: nemesis.StackChaosSchedule,
	}
}
