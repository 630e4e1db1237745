package nemesis

import (
	"time"

	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/sim"
)

// stackChaosStart is when stack-chaos's faults start: the workload runs.
const stackChaosStart = 30 * time.Second

// StackChaosSchedule draws control-plane chaos for a full-stack scenario,
// from 30 s (when the workload runs) until end: about one fault every 8 s,
// each lasting 1 to 30 s, anywhere: an etcd member or the etcd leader
// crashed, paused or cut off, an API server crashed or cut off from etcd,
// the scheduler's leader crashed or deaf (a one-way cut from the API
// servers), the controller manager's leader crashed or isolated,
// a node crashed (its containers die; they restart with its kubelet), cut
// off from the control plane or paused, flaky links to the nodes, and
// faults aimed at a moment (a leader just elected, a watch cache starting
// over, a rollout started, an EndpointSlice update in flight);
// besides, a kubelet process restarts every 20 to 40 s (kubeletRestarts).
func StackChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	return StackChaos.Schedule(c, rng, end)
}

// StackChaos is StackChaosSchedule's generator: its kinds of fault, then
// the kubelet restarts ("kubelet-restart"). When a swarm run leaves only
// the restarts on, they come four times as often, so that a run has about
// as many faults.
var StackChaos = Chaos{kinds: append(kindNames(stackKinds(nil, nil)), "kubelet-restart"), draw: drawStackChaos}

// drawStackChaos draws StackChaosSchedule's faults of the kinds on.
func drawStackChaos(c *Cluster, rng *sim.Stream, end time.Duration, on []bool) sim.Schedule {
	n := len(on) - 1
	start, dur, gap := span{stackChaosStart, 5 * time.Second}, span{time.Second, 29 * time.Second}, span{2 * time.Second, 12 * time.Second}
	s := drawKinds(rng, start, dur, gap, end, stackKinds(c, rng), on[:n])
	switch {
	case !on[n]:
		return s
	case !anyOn(on[:n]):
		return kubeletRestarts(c, end, 4)
	}
	return Merge(s, kubeletRestarts(c, end, 1))
}

// stackKinds are the kinds of fault of StackChaosSchedule but the kubelet
// restarts, drawing from rng.
func stackKinds(c *Cluster, rng *sim.Stream) []chaosKind {
	pick := func(names []string) string { return names[rng.IntN(len(names))] }
	fault := func(kind sim.FaultKind, target func() string) func(f *sim.Fault) {
		return func(f *sim.Fault) { f.Kind, f.Targets = kind, [][]string{{target()}} }
	}
	role := func(name string) func() string { return func() string { return name } }
	members := func() string { return pick(c.Members) }
	servers := func() string { return pick(c.Servers) }
	nodes := func() string { return pick(c.Nodes) }
	return []chaosKind{
		{"member-crash", 10, fault(sim.FaultCrash, members)},
		{"leader-isolate", 8, fault(sim.FaultIsolate, role("etcd-leader"))},
		{"member-pause", 4, func(f *sim.Fault) { f.Kind, f.Targets, f.For = sim.FaultPause, [][]string{{pick(c.Members)}}, f.For/3 }},
		{"apiserver-crash", 10, fault(sim.FaultCrash, servers)},
		{"apiserver-etcd-cut", 6, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultPartition, [][]string{{pick(c.Servers)}, {"etcd"}} }},
		{"scheduler-crash", 4, fault(sim.FaultCrash, role("scheduler-leader"))},
		// An asymmetric failure: the leading scheduler's requests reach
		// the API servers, but nothing comes back, neither answers nor
		// watch events.
		{"scheduler-deaf", 4, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultOneWay, [][]string{{"apiservers"}, {"scheduler-leader"}}
		}},
		{"controller-manager-isolate", 10, fault(sim.FaultIsolate, role("controller-manager-leader"))},
		{"controller-manager-crash", 6, fault(sim.FaultCrash, role("controller-manager-leader"))},
		{"node-crash", 10, fault(sim.FaultCrash, nodes)},
		{"node-cut", 10, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{pick(c.Nodes)}, {"apiservers"}}
		}},
		{"node-pause", 6, func(f *sim.Fault) { f.Kind, f.Targets, f.For = sim.FaultPause, [][]string{{pick(c.Nodes)}}, f.For/3 }},
		{"nodes-flaky", 12, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{"nodes"}}
			drawFlaky(f, rng, 20, 5, 20, 20)
		}},
		aimedKind("stack", 10, rng, "leader-elected", "watch-cache-reinit", "rollout-started", "endpointslice-update"),
	}
}

// kubeletRestarts draws stack-chaos's second nemesis: every 20 to 40 s,
// from 30 s until end, the kubelet process of a random node restarts
// (systemctl restart kubelet), and its containers must go on running. It
// draws from its own stream, so that the other faults do not shift it; the
// stream keeps the name of the driver that drew these restarts before they
// were faults, so that every seed restarts the same kubelets at the same
// times as it did then. busy times as often, they come every 20/busy to
// 40/busy s.
func kubeletRestarts(c *Cluster, end time.Duration, busy int) sim.Schedule {
	rng := c.World.Rand("scenario/driver")
	period := 20 * time.Second / time.Duration(busy)
	var s sim.Schedule
	for at := stackChaosStart + time.Duration(rng.Int64N(int64(period))); at < end; at += period + time.Duration(rng.Int64N(int64(period))) {
		node := c.Nodes[rng.IntN(len(c.Nodes))]
		s = append(s, sim.Fault{At: at, Kind: sim.FaultRestartProcess, Targets: [][]string{{node}}, Process: kubelet.Process})
	}
	return s
}
