package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers/manager"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// zombiePause is how long the zombie scenarios freeze a leader: longer
// than the 15 s lease duration plus the candidates' jittered retries, so
// that another replica has taken the Lease when it resumes.
const zombiePause = 25 * time.Second

// zombie is the zombie scenarios' driver: from 60 s, when their operator
// acts, the nth time component's leader writes with verb it is frozen for
// zombiePause (nemesis.PauseLeaderOnWrite).
func zombie(component, verb string, nth int) func(*nemesis.Cluster, *sim.Stream, time.Duration) {
	return func(c *nemesis.Cluster, _ *sim.Stream, _ time.Duration) {
		nemesis.PauseLeaderOnWrite(c, component, verb, 60*time.Second, nth, zombiePause)
	}
}

// leaderCatalogue returns the full-stack scenarios of leader election
// under the faults it is weakest against: leaders frozen past their lease
// (zombies) and clocks that drift or step. leader-exclusivity judges them
// all; it runs in every full-stack scenario.
func leaderCatalogue() []scenarios.Spec {
	cmZombie := scenarios.Spec{Name: "controller-manager-zombie", Description: "the leading controller manager is frozen for 25 s (a SIGSTOP, a stop-the-world pause) the instant it creates the first pod of the operator's scale-up of web from 4 to 10 at 60 s, and the operator scales web down to 3 while it is frozen: the other replica takes the Lease, the frozen one resumes with its overdue work (the answers to its creations, and the rest of the world's news) and acts on as leader until its renew deadline (a fresh 10 s round when it froze between rounds) though the Lease is no longer its own, as client-go has no fencing; its writes are counted (zombie_writes), and the ReplicaSet settles at 3",
		Duration: 240 * time.Second, Settle: 120 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)),
				scenarios.ScaleReplicaSet(60*time.Second, scenarios.WorkloadNamespace, "web", 10),
				scenarios.ScaleReplicaSet(70*time.Second, scenarios.WorkloadNamespace, "web", 3)}
		}},
		Driver: zombie(scenarios.ComponentControllerManager, "create", 1),
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 51, Members: 3, Seed: 1, Reaches: "a controller manager leader frozen past its lease, then resumed"},
		},
	}

	schedZombie := scenarios.Spec{Name: "scheduler-zombie", Description: "the leading scheduler is frozen for 25 s the instant it binds the tenth of 24 pods of a ReplicaSet the operator creates at 60 s (others wait in its queue), and the operator scales it to 30 while it is frozen: the other replica takes the Lease and binds the pending pods, the frozen one resumes with its overdue work and goes on scheduling from its stale queue until its renew deadline; the binding subresource's conflict check refuses every binding of a pod the new leader bound, so no pod is bound twice",
		Duration: 240 * time.Second, Settle: 120 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 5, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			batch := scenarios.NewReplicaSet("batch", 24, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(3)),
				scenarios.CreateStep(60*time.Second, batch),
				scenarios.ScaleReplicaSet(70*time.Second, scenarios.WorkloadNamespace, "batch", 30)}
		}},
		Driver: zombie(scenarios.ComponentScheduler, "bind", 10),
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 52, Members: 3, Seed: 1, Reaches: "a scheduler leader frozen past its lease, then resumed"},
		},
	}

	drift := scenarios.Spec{Name: "leader-clock-drift", Description: "the leaders' clocks run at the wrong rate: the controller manager's leader at 0.6 (its 12 s of leading without renewal last 20 s of real time) from 40 s, and at 60 s for 40 s its leader elector's connection is cut from its API server (a load balancer put it on another server than its controllers' connection), so it cannot renew but its controllers work on; the other replica (at the true rate) takes the Lease 15 to 19 s after the last renewal, while the slow one still leads, and both act on the operator's scale-up at 76 s (client-go tolerates clock rates that differ by its lease duration over its renew deadline, not more: zombie_writes counts the deposed leader's writes); the schedulers' clocks run at 1.3 from 40 s and the leader goes deaf (a one-way cut from the API servers) at 110 s for 30 s; the kubelets' clocks run at 0.8 and 1.25 in turn; meanwhile the operator scales web",
		Duration: 300 * time.Second, Settle: 130 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)), scenarios.ScaleReplicaSet(76*time.Second, scenarios.WorkloadNamespace, "web", 8),
				scenarios.ScaleReplicaSet(120*time.Second, scenarios.WorkloadNamespace, "web", 5), scenarios.ScaleReplicaSet(150*time.Second, scenarios.WorkloadNamespace, "web", 7)}
		}},
		Driver: func(c *nemesis.Cluster, _ *sim.Stream, _ time.Duration) {
			nemesis.CutLeaderElection(c, scenarios.ComponentControllerManager, func(leader string) string {
				return client.DefaultReplyPort(manager.LeaderElectionClient(leader))
			}, 60*time.Second, 40*time.Second)
		},
		Faults: func(*nemesis.Cluster, *sim.Stream, time.Duration) sim.Schedule {
			return sim.Schedule{
				{At: 40 * time.Second, Kind: sim.FaultClockDrift, Targets: [][]string{{"controller-manager-leader"}}, For: 100 * time.Second, Rate: 0.6},
				{At: 40 * time.Second, Kind: sim.FaultClockDrift, Targets: [][]string{{"schedulers"}}, For: 120 * time.Second, Rate: 1.3},
				{At: 45 * time.Second, Kind: sim.FaultClockDrift, Targets: [][]string{{"node-1", "node-2"}}, For: 50 * time.Second, Rate: 0.8},
				{At: 100 * time.Second, Kind: sim.FaultClockDrift, Targets: [][]string{{"node-3", "node-4"}}, For: 50 * time.Second, Rate: 1.25},
				{At: 110 * time.Second, Kind: sim.FaultOneWay, Targets: [][]string{{"apiservers"}, {"scheduler-leader"}}, For: 30 * time.Second},
			}
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 53, Members: 3, Seed: 1, Reaches: "a leader's clock running slow: lease expiry on each replica's own clock"},
		},
	}

	jumps := scenarios.Spec{Name: "leader-clock-jumps", Description: "wall clocks step (an NTP step, a VM resumed): at 40 s the leaders' wall clocks go back a minute, at 50 s every replica's goes forward two, and the kubelets' go back or forward 20 s in turn; then at 100 s the controller manager's leader is cut off for 30 s. Leader election judges a lease by when it saw the record change, on its monotonic clock, never by the renewTime in it, so nothing moves the leadership but the cut: the other replica takes the Lease 15 to 24 s after it; and the node lifecycle controller, which judges a node Lease by when it saw its renewTime change, marks no node",
		Duration: 300 * time.Second, Settle: 130 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)),
				scenarios.ScaleReplicaSet(70*time.Second, scenarios.WorkloadNamespace, "web", 8),
				scenarios.ScaleReplicaSet(140*time.Second, scenarios.WorkloadNamespace, "web", 5)}
		}},
		Faults: func(*nemesis.Cluster, *sim.Stream, time.Duration) sim.Schedule {
			jump := func(at time.Duration, target string, by time.Duration) sim.Fault {
				return sim.Fault{At: at, Kind: sim.FaultClockJump, Targets: [][]string{{target}}, By: by}
			}
			return sim.Schedule{
				jump(40*time.Second, "controller-manager-leader", -time.Minute),
				jump(40*time.Second, "scheduler-leader", -time.Minute),
				jump(50*time.Second, "controller-managers", 2*time.Minute),
				jump(50*time.Second, "schedulers", 2*time.Minute),
				jump(55*time.Second, "node-1", -20*time.Second),
				jump(65*time.Second, "node-2", 20*time.Second),
				jump(75*time.Second, "node-3", -20*time.Second),
				jump(85*time.Second, "node-1", 20*time.Second),
				{At: 100 * time.Second, Kind: sim.FaultIsolate, Targets: [][]string{{"controller-manager-leader"}}, For: 30 * time.Second},
			}
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 54, Members: 3, Seed: 1, Reaches: "clock steps under leader election: renewals judged on the monotonic clock"},
		},
	}
	return []scenarios.Spec{cmZombie, schedZombie, drift, jumps}
}
