package catalogue

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// spokeCatalogue returns the full-stack scenarios that press on the
// spokes' own mechanisms: probe thresholds, scheduling under pressure and
// overlapping ownership.
func spokeCatalogue() []scenarios.Spec {
	return []scenarios.Spec{probeFlaps(), schedulingPressure(), overlappingOwners()}
}

// probeFlaps runs applications whose health endpoints fail now and then:
// the probes' failureThreshold and successThreshold decide what happens.
func probeFlaps() scenarios.Spec {
	// blinky's liveness fails twice in a row, then passes, over and over:
	// with failureThreshold 3 it is never killed.
	blinky := scenarios.NewReplicaSet("blinky", 2, scenarios.AppSpec{
		Annotations: annotations(kubelet.AnnotationLivenessPattern, "40s-140s=FFS"),
		Liveness:    &model.Probe{PeriodSeconds: 5, FailureThreshold: 3}})
	// flappy's readiness (2 successes to come back, 2 failures to leave)
	// sees lone failures and successes, and runs of two of each.
	flappy := scenarios.NewReplicaSet("flappy", 2, scenarios.AppSpec{
		Annotations: annotations(kubelet.AnnotationReadinessPattern, "40s-140s=FSFFSSSF"),
		Liveness:    &model.Probe{},
		Readiness:   &model.Probe{PeriodSeconds: 3, SuccessThreshold: 2, FailureThreshold: 2}})
	// crashy's liveness fails three times in a row for a minute: each run
	// is killed at its third failure, and restarted after CrashLoopBackOff.
	crashy := scenarios.NewReplicaSet("crashy", 2, scenarios.AppSpec{
		Annotations: annotations(kubelet.AnnotationLivenessPattern, "40s-100s=FFFS"),
		Liveness:    &model.Probe{PeriodSeconds: 5, FailureThreshold: 3}})
	// slowpoke warms up for 30 s (its endpoints fail until then): its
	// startup probe allows 60 s (every 5 s, 12 failures), and keeps the
	// liveness probe (which would kill it after 15 s of failures) and the
	// readiness probe from running until it has succeeded.
	slowpoke := scenarios.NewReplicaSet("slowpoke", 2, scenarios.AppSpec{
		Annotations: annotations(kubelet.AnnotationWarmup, "30s"),
		Startup:     &model.Probe{PeriodSeconds: 5, FailureThreshold: 12},
		Liveness:    &model.Probe{PeriodSeconds: 5, FailureThreshold: 3},
		Readiness:   &model.Probe{PeriodSeconds: 5}})
	// stally's startup endpoint fails until 100 s: each run is killed at
	// its third startup failure (15 s), and restarted after
	// CrashLoopBackOff, until a run starts after 100 s.
	stally := scenarios.NewReplicaSet("stally", 1, scenarios.AppSpec{
		Annotations: annotations(kubelet.AnnotationStartupPattern, "0s-100s=F"),
		Startup:     &model.Probe{PeriodSeconds: 5, FailureThreshold: 3},
		Liveness:    &model.Probe{PeriodSeconds: 5}})
	return scenarios.Spec{Name: "probe-flaps", Description: "five applications whose health endpoints fail now and then from 40 s, or while they warm up, while a kubelet restarts every 25 to 35 s (its new prober adopts the running containers and counts from zero): blinky's liveness fails twice in a row then passes (failureThreshold 3: never killed), flappy's readiness fails and passes alone and in pairs (successThreshold 2, failureThreshold 2: its pods leave service only after two failures in a row and come back only after two successes), and crashy's liveness fails three times in a row for a minute (each run is killed at its third failure and restarted after CrashLoopBackOff); slowpoke warms up for 30 s behind a startup probe that allows 60 s (its liveness and readiness probes wait until it succeeded, so it is never killed), and stally's startup endpoint fails until 100 s (each run is killed at its third startup failure, 15 s after it started, and restarted after CrashLoopBackOff); every probe result is traced and the kubelet's kills and readiness must follow the thresholds exactly",
		Duration: 300 * time.Second, Settle: 150 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 3, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{scenarios.CreateStep(15*time.Second, blinky), scenarios.CreateStep(15*time.Second, flappy), scenarios.CreateStep(15*time.Second, crashy),
				scenarios.CreateStep(15*time.Second, slowpoke), scenarios.CreateStep(15*time.Second, stally)}
		}},
		// Kubelets restart now and then: a new prober adopts the running
		// containers and counts from zero.
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			var s sim.Schedule
			for at := 45*time.Second + time.Duration(rng.Int64N(int64(10*time.Second))); at < end; at += 25*time.Second + time.Duration(rng.Int64N(int64(10*time.Second))) {
				node := c.Nodes[rng.IntN(len(c.Nodes))]
				s = append(s, sim.Fault{At: at, Kind: sim.FaultRestartProcess, Targets: [][]string{{node}}, Process: kubelet.Process})
			}
			return s
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 46, Members: 3, Seed: 1, Reaches: "probes that fail k-1 times then succeed: failureThreshold and successThreshold"},
		},
	}
}

// schedulingPressure fills small nodes exactly, then asks for more than
// they have, with two schedulers racing for every pod.
func schedulingPressure() scenarios.Spec {
	// Each node fits two big pods, or one big and two small: exactly, in
	// cpu and memory both.
	big := scenarios.NewReplicaSet("big", 8, scenarios.AppSpec{CPU: "1", Memory: "1Gi"})
	small := scenarios.NewReplicaSet("small", 4, scenarios.AppSpec{CPU: "500m", Memory: "1536Mi"})
	return scenarios.Spec{Name: "scheduling-pressure", Description: "four nodes of 2 cpu and 4Gi, and two schedulers racing for every pod (the elected leader and one deployed without leader election): big's 8 pods (1 cpu, 1Gi) fill the nodes exactly; small's 4 (500m, 1.5Gi) find no room and stay Pending until big is scaled to 6 at 75 s; big scaled to 10 at 105 s leaves 4 Pending; at 135 s small goes and big is scaled to 8, which fits exactly again; the scheduler leader crashes at 90 s for 10 s, and a node at 120 s for 10 s (back, its kubelet admits its pods again, in creation order). " +
		"Two schedulers can bind one node's last room twice: its kubelet rejects the second pod (OutOfcpu, Failed) and its ReplicaSet replaces it; no node ever runs more than it has, and no scheduler binds past what it bound itself",
		Duration: 260 * time.Second, Settle: 120 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Unelected: 1, Capacity: model.ResourceListOf("cpu", "2", "memory", "4Gi", "pods", "110"),
			Script: func(*scenarios.StackLayer) []apiload.Step {
				return []apiload.Step{scenarios.CreateStep(15*time.Second, big), scenarios.CreateStep(45*time.Second, small),
					scenarios.ScaleReplicaSet(75*time.Second, scenarios.WorkloadNamespace, "big", 6), scenarios.ScaleReplicaSet(105*time.Second, scenarios.WorkloadNamespace, "big", 10),
					scenarios.ScaleReplicaSet(135*time.Second, scenarios.WorkloadNamespace, "small", 0), scenarios.ScaleReplicaSet(135*time.Second, scenarios.WorkloadNamespace, "big", 8)}
			}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			node := c.Nodes[rng.IntN(len(c.Nodes))]
			return sim.Schedule{{At: 90 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"scheduler-leader"}}, For: 10 * time.Second},
				{At: 120 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{node}}, For: 10 * time.Second}}
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 47, Members: 3, Seed: 1, Reaches: "nodes filled to the last room: the scheduler's assumed pods, bursts past capacity"},
			{Rank: 48, Members: 3, Seed: 2, Reaches: "two schedulers bind one node's last room: kubelet admission (this seed catches kubelet-no-admission)"},
		},
	}
}

// overlappingOwners gives the controllers objects that several of them
// could claim, objects none owns, and owners replaced under their
// dependents.
func overlappingOwners() scenarios.Spec {
	api := scenarios.NewDeployment("api", 3, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})
	return scenarios.Spec{Name: "overlapping-owners", Description: "ReplicaSets and Deployments whose selectors overlap (web and web-canary, whose pods match web's selector too; api and api-canary), stray pods the operator creates by hand that match them (one matches both web and web-canary: exactly one adopts it), a web pod relabelled to take it out for debugging (web releases it and replaces it; it runs on, an orphan nothing selects), and the api Deployment deleted and created again at once while its old ReplicaSet and pods run (the garbage collector deletes them, the new Deployment's ReplicaSet takes over, under another name if the old one is still there); " +
		"meanwhile four faults from 30 s cut off the controller manager's leader, slow its links, crash an API server or cut one off from etcd; no pod ever has two controllers or changes controller in one write, adoptions follow selectors, a ReplicaSet deletes only its own pods, and nothing loses an owner that still exists",
		Duration: 240 * time.Second, Settle: 120 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{
				scenarios.CreateStep(15*time.Second, web(4)),
				scenarios.CreateStep(15*time.Second, newCanary("web", 1, scenarios.AppSpec{})),
				scenarios.CreateStep(15*time.Second, api),
				scenarios.CreateStep(15*time.Second, newCanaryDeployment("api", 1, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})),
				scenarios.CreateStep(40*time.Second, barePod("stray-web", map[string]string{"app": "web"})),
				scenarios.CreateStep(40*time.Second, barePod("stray-canary", map[string]string{"app": "web", "track": "canary"})),
				relabelPod(60*time.Second, "app=web,track!=canary", map[string]string{"app": "debug"}),
				replaceDeployment(90*time.Second, api),
			}
		}},
		Faults: ownershipFaults,
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 49, Members: 3, Seed: 1, Reaches: "overlapping selectors, orphans, a Deployment replaced: adoption, owner references by UID, garbage collection"},
		},
	}
}

// ownershipFaults draws four faults between 30 s and the end of the
// faults that make the controllers act on stale or lost views: the
// controller manager's leader cut off, its links slow and reordering
// (watches break and lag), an API server crashed, or cut off from etcd.
func ownershipFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	var s sim.Schedule
	for i := 0; i < 4; i++ {
		at := 30*time.Second + time.Duration(rng.Int64N(int64(80*time.Second)))
		f := sim.Fault{At: at, For: 5*time.Second + time.Duration(rng.Int64N(int64(15*time.Second)))}
		switch rng.IntN(4) {
		case 0:
			f.Kind, f.Targets = sim.FaultIsolate, [][]string{{"controller-manager-leader"}}
		case 1:
			f.Kind, f.Targets, f.Delay, f.Reorder = sim.FaultFlaky, [][]string{{"controller-managers"}}, 500*time.Millisecond, 0.1
		case 2:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{c.Servers[rng.IntN(len(c.Servers))]}}
		default:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{c.Servers[rng.IntN(len(c.Servers))]}, {"etcd"}}
		}
		if at+f.For <= end {
			s = append(s, f)
		}
	}
	slices.SortStableFunc(s, func(a, b sim.Fault) int { return int(a.At - b.At) })
	return s
}
