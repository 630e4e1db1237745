package catalogue

import (
	"strings"
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Timings of the full-stack scenarios.
const (
	// StackWarmup is when the faults may start: the operator declares the
	// workload at 5 s, and by 30 s every pod runs.
	StackWarmup = 30 * time.Second
	// StackSettle is the full-stack scenarios' settle window: a node back
	// from a crash re-registers and heartbeats (10 s), the node lifecycle
	// controller untaints it (5 s), reflectors that backed off during the
	// faults list again (up to a minute, see APISettle), a leader takeover
	// (up to ~20 s), controllers, scheduler and kubelets close the gap
	// (CrashLoopBackOff can add up to 5 min for a pod that crashed often:
	// the scenarios keep it below that).
	StackSettle = 150 * time.Second
)

// web is the plain ReplicaSet most full-stack scenarios run.
func web(replicas int32) *model.ReplicaSet {
	return scenarios.NewReplicaSet("web", replicas, scenarios.AppSpec{})
}

// stackCatalogue returns the full-stack scenarios: etcd, API servers,
// schedulers, controller managers and kubelets, with a workload declared
// once by an operator.
func stackCatalogue() []scenarios.Spec {
	nodeDeath := scenarios.Spec{Name: "node-death", Description: "a node running two of web's five replicas dies for good at 60 s, and its Node is deleted 20 s later (as a cloud provider does for a terminated machine): the pod garbage collector deletes its pods after its 40 s quarantine, the ReplicaSet controller creates two replacements, the scheduler binds them and kubelets start them",
		Duration: 300 * time.Second, Settle: 200 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(l *scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(5)), scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)), deleteDeadNodes(80*time.Second, l)}
		}},
		Driver: func(c *nemesis.Cluster, _ *sim.Stream, _ time.Duration) { nemesis.KillBusiestNode(c, 60*time.Second) },
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			return []checks.Check{checks.NewSelfHealing()}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 36, Members: 3, Seed: 2, Reaches: "a dead node and a deleted Node: pod GC, ReplicaSet replacements, scheduling, kubelet start"},
		},
	}

	// Both apps are busy from 60 s to 150 s: every probe takes 3 s to
	// answer. tight's liveness probe times out after 1 s; ready's
	// liveness probe allows 5 s, and its readiness probe 1 s.
	busy := annotations(kubelet.AnnotationLoad, "60s-150s=3s")
	tight := scenarios.NewReplicaSet("tight", 3, scenarios.AppSpec{Annotations: busy,
		Liveness: &model.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 3}})
	ready := scenarios.NewReplicaSet("ready", 3, scenarios.AppSpec{Annotations: busy,
		Liveness:  &model.Probe{PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3},
		Readiness: &model.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 2}})
	liveness := scenarios.Spec{Name: "liveness-under-load", Description: "two ReplicaSets of an application that is busy (3 s per answer, but healthy) from 60 s to 150 s: tight's liveness probe times out after 1 s, so its kubelets kill and restart busy containers again and again, into CrashLoopBackOff (the restart storm is measured: healthy_restarts); ready probes readiness with that timeout and liveness with a sane one, so its pods leave service (rotation_exits) and come back without a restart",
		Duration: 420 * time.Second, Settle: 270 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 3, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, tight), scenarios.CreateStep(15*time.Second, ready), scenarios.CreateStep(15*time.Second, scenarios.NewService("ready", 80))}
		}, ProbeExempt: func(pod string) bool { return strings.HasPrefix(pod, scenarios.WorkloadNamespace+"/tight-") }},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 37, Members: 5, Seed: 2, Reaches: "liveness and readiness probes with timeouts, CrashLoopBackOff, endpoints in and out of service"},
		},
	}

	apiDown := scenarios.Spec{Name: "apiserver-down", Description: "every API server crashes at 60 s and stays down for 90 s, longer than the node monitor grace period: kubelets keep their pods running and probed, nothing can change (the operator's scale-up at 100 s waits), and afterwards the cluster recovers: the scale-up lands, no node is evicted (every node looked dead at once: the node lifecycle controller blames the control plane, not the nodes)",
		Duration: 300 * time.Second, Settle: 150 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)), scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
				scenarios.ScaleReplicaSet(100*time.Second, scenarios.WorkloadNamespace, "web", 6)}
		}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			return sim.Schedule{{At: 60 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"apiservers"}}, For: 90 * time.Second}}
		},
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			// From the crash until the first scale-up could land.
			return []checks.Check{checks.NewSteadyRuntime(sim.Time(60*time.Second), sim.Time(150*time.Second))}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 38, Members: 3, Seed: 1, Reaches: "every API server down: kubelets keep running, node lifecycle's full-disruption mode"},
		},
	}

	cmFailover := scenarios.Spec{Name: "controller-manager-failover", Description: "the leading controller manager is cut off from everyone at 60 s for 60 s: it steps down at its 10 s renew deadline, the other replica takes the Lease once it has not changed for 15 s, and the operator's scale-up at 90 s is served by the new leader",
		Duration: 300 * time.Second, Settle: 180 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)), scenarios.ScaleReplicaSet(90*time.Second, scenarios.WorkloadNamespace, "web", 6)}
		}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			return sim.Schedule{{At: 60 * time.Second, Kind: sim.FaultIsolate, Targets: [][]string{{"controller-manager-leader"}}, For: 60 * time.Second}}
		},
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			return []checks.Check{checks.NewLeaderTakeover(checks.LeaderTakeoverOptions{Component: scenarios.ComponentControllerManager})}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 39, Members: 5, Seed: 1, Reaches: "a controller manager cut off: Lease renew deadline, step-down, takeover"},
			{Rank: 50, Members: 3, Seed: 1, Reaches: "a controller manager that lost its Lease exits"},
		},
	}

	eviction := scenarios.Spec{Name: "node-eviction", Description: "a node running two of web's five replicas dies for good at 60 s and its Node stays: 50 s without heartbeats make it Ready=Unknown and tainted unreachable:NoExecute, and its pods, which tolerate that taint for 300 s, are evicted about 350 s after the last heartbeat; then replacements run elsewhere, and web's Service lists the evicted pods as terminating, not ready, until the end (their kubelet is gone)",
		Duration: 540 * time.Second, Settle: 480 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(5)), scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80))}
		}},
		Driver: func(c *nemesis.Cluster, _ *sim.Stream, _ time.Duration) { nemesis.KillBusiestNode(c, 60*time.Second) },
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			return []checks.Check{checks.NewSelfHealing(), checks.NewEvictionTiming(checks.EvictionTimingOptions{TaintsTraced: true})}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 40, Members: 5, Seed: 1, Reaches: "node lifecycle: Ready=Unknown after the grace period, NoExecute taint, eviction after toleration"},
		},
	}

	splitBrain := scenarios.Spec{Name: "scheduler-split-brain", Description: "a third scheduler runs without leader election (deployed with --leader-elect=false by mistake) beside the elected pair, so two schedulers race for every pending pod while the operator creates and scales workloads: the binding subresource's conflict check lets exactly one win each pod (the loser gets 409 and drops it), so no pod is bound twice",
		Duration: 200 * time.Second, Settle: 100 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 5, Unelected: 1, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(6)),
				scenarios.CreateStep(30*time.Second, scenarios.NewDeployment("api", 4, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})),
				scenarios.ScaleReplicaSet(60*time.Second, scenarios.WorkloadNamespace, "web", 10), scenarios.RollDeployment(70*time.Second, scenarios.WorkloadNamespace, "api", "registry.example/api:2")}
		}},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 41, Members: 5, Seed: 2, Reaches: "two schedulers racing: the binding's conflict check, the loser's 409"},
		},
	}

	watchLag := scenarios.Spec{Name: "controller-watch-lag", Description: "from 40 s to 130 s the links of the controller managers are slow (1 to 2 s) and reorder one message in ten, which breaks their watch streams again and again (each break is resumed after client-go's backoff), so their informers lag by seconds to tens of seconds while the operator scales web 4 -> 12 -> 6 -> 12: the ReplicaSet controller's expectations keep it from acting twice on a gap it has already filled (cm_pod_creates counts what it created)",
		Duration: 280 * time.Second, Settle: 150 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 5, Rogue: true, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, web(4)),
				scenarios.ScaleReplicaSet(50*time.Second, scenarios.WorkloadNamespace, "web", 12),
				scenarios.ScaleReplicaSet(80*time.Second, scenarios.WorkloadNamespace, "web", 6),
				scenarios.ScaleReplicaSet(110*time.Second, scenarios.WorkloadNamespace, "web", 12)}
		}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			return sim.Schedule{{At: 40 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"controller-managers"}}, For: 90 * time.Second,
				Delay: time.Second, Reorder: 0.1}}
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 42, Members: 5, Seed: 1, Reaches: "slow controller links and broken watches: ReplicaSet expectations, scale up and down"},
		},
	}

	chaos := stackChaos("stack-chaos", 5, 6, 4, stackChaosDuration)
	chaos.BugHunt = []scenarios.BugHuntRun{
		{Rank: 43, Members: 3, Seed: 3, Reaches: "everything at once, with a Deployment rollout: the run that reaches the most code"},
		{Rank: 44, Members: 3, Seed: 2, Reaches: "everything at once, another schedule (this seed catches endpointslice-ignores-label-moves)"},
		{Rank: 45, Members: 5, Seed: 3, Reaches: "everything at once at five members"},
	}
	swarm := stackChaos("stack-swarm", 5, 6, 4, stackChaosDuration)
	swarm.Description = "swarm testing of stack-chaos, with its workload and its operator's script: each seed switches each of stack-chaos's kinds of fault (the kubelet restarts among them) on with probability 1/2 (at least one) and draws about as many faults of those kinds only (kubelet restarts alone come four times as often), and each of nine kinds of operation beside stack-chaos's script, at moments drawn within the faults (and some after them, where a still state must be judged): probes (a Deployment behind a Service with startup, liveness and readiness probes whose endpoints fail in patterns, busy for 30 s, rolled out), traffic (a Deployment with a preStop drain behind a Service, under 10 requests a second through node-1, rolled out, scaled down, one pod quarantined), owners (a canary of web, stray pods made by hand, a web pod relabelled out, the api Deployment replaced), scale (web and api scaled down and up, a Deployment mid-rollout scaled proportionally), shapes (Services of every shape kube-proxy treats differently: two named ports, internalTrafficPolicy Local, headless; a port moved, one deleted, and after the faults a scale to 0 that leaves only serving-terminating endpoints), slices (a user deletes, edits and copies web's slices, within the faults and after them), small-slices (--max-endpoints-per-slice 3) node-death (the busiest node dies for good when the faults end and its Node is deleted 40 s later) and node-lost (the API servers' default tolerations of the not-ready and unreachable taints are 30 s, and the busiest node dies for good when the faults end, its Node kept: its pods are evicted, stay Terminating and are replaced); the run prints and records which kinds were on; " +
		"after the faults every ReplicaSet has its pods running and ready, the rollout is complete, no pod was bound twice, web's Services list exactly their pods, and every move of a pod between web-blue and web-green shows in the slices within 2 s of the recovery"
	swarm.Faults = nemesis.StackChaos.Swarm
	swarm.Stack.Ops = stackSwarmOps(stackChaosDuration)
	swarm.Build = stackSwarmChecks
	swarm.BugHunt = []scenarios.BugHuntRun{
		{Rank: 63, Members: 3, Seed: 11, Reaches: "eight of the swarm's operations at once (probes, traffic, scale, shapes, slices, small-slices, node-death, node-lost) under the controller manager's and nodes' faults: probe thresholds, slices packed by 3 and meddled with, kube-proxy's rules for every shape of Service, pod GC after a Node deleted, taint eviction after a 30 s toleration and the evicted pods replaced"},
		{Rank: 64, Members: 3, Seed: 21, Reaches: "seven of the swarm's operations at once (probes, traffic, owners, scale, slices, small-slices, node-death): adoption and release, a Deployment replaced, a rollout under users' traffic"},
	}
	specs := append(append(append([]scenarios.Spec{nodeDeath, liveness, apiDown, cmFailover, eviction, splitBrain, watchLag, chaos}, spokeCatalogue()...), leaderCatalogue()...), trafficCatalogue()...)
	return append(specs, endpointSliceChurn(), swarm)
}

// deleteDeadNodes deletes the Node objects of the nodes a nemesis killed.
func deleteDeadNodes(at time.Duration, l *scenarios.StackLayer) apiload.Step {
	return apiload.Step{At: at, Name: "delete-dead-nodes", Do: func(c *client.Client, done func(error)) {
		left := len(l.Dead)
		if left == 0 {
			done(nil)
			return
		}
		var firstErr error
		for _, n := range l.Dead {
			c.Nodes().Delete(n, client.DeleteOptions{}, func(_ model.Object, err error) {
				if err != nil && !client.IsNotFound(err) && firstErr == nil {
					firstErr = err
				}
				if left--; left == 0 {
					done(firstErr)
				}
			})
		}
	}}
}

// annotations is a shorthand for the simulated application's settings.
func annotations(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var _ = kubelet.Boot
