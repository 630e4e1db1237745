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
// off from the control plane or paused, and flaky links to the nodes;
// besides, a kubelet process restarts every 20 to 40 s (kubeletRestarts).
func StackChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	pick := func(names []string) string { return names[rng.IntN(len(names))] }
	start, dur, gap := span{stackChaosStart, 5 * time.Second}, span{time.Second, 29 * time.Second}, span{2 * time.Second, 12 * time.Second}
	s := drawFaults(rng, start, dur, gap, end, func(f *sim.Fault, r int) {
		switch {
		case r < 10:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{pick(c.Members)}}
		case r < 18:
			f.Kind, f.Targets = sim.FaultIsolate, [][]string{{"etcd-leader"}}
		case r < 22:
			f.Kind, f.Targets, f.For = sim.FaultPause, [][]string{{pick(c.Members)}}, f.For/3
		case r < 32:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{pick(c.Servers)}}
		case r < 38:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{pick(c.Servers)}, {"etcd"}}
		case r < 42:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{"scheduler-leader"}}
		case r < 46:
			// An asymmetric failure: the leading scheduler's requests reach
			// the API servers, but nothing comes back, neither answers nor
			// watch events.
			f.Kind, f.Targets = sim.FaultOneWay, [][]string{{"apiservers"}, {"scheduler-leader"}}
		case r < 56:
			f.Kind, f.Targets = sim.FaultIsolate, [][]string{{"controller-manager-leader"}}
		case r < 62:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{"controller-manager-leader"}}
		case r < 72:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{pick(c.Nodes)}}
		case r < 82:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{pick(c.Nodes)}, {"apiservers"}}
		case r < 88:
			f.Kind, f.Targets, f.For = sim.FaultPause, [][]string{{pick(c.Nodes)}}, f.For/3
		default:
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{"nodes"}}
			drawFlaky(f, rng, 20, 5, 20, 20)
		}
	})
	return Merge(s, kubeletRestarts(c, end))
}

// kubeletRestarts draws stack-chaos's second nemesis: every 20 to 40 s,
// from 30 s until end, the kubelet process of a random node restarts
// (systemctl restart kubelet), and its containers must go on running. It
// draws from its own stream, so that the other faults do not shift it; the
// stream keeps the name of the driver that drew these restarts before they
// were faults, so that every seed restarts the same kubelets at the same
// times as it did then.
func kubeletRestarts(c *Cluster, end time.Duration) sim.Schedule {
	rng := c.World.Rand("scenario/driver")
	var s sim.Schedule
	for at := stackChaosStart + time.Duration(rng.Int64N(int64(20*time.Second))); at < end; at += 20*time.Second + time.Duration(rng.Int64N(int64(20*time.Second))) {
		node := c.Nodes[rng.IntN(len(c.Nodes))]
		s = append(s, sim.Fault{At: at, Kind: sim.FaultRestartProcess, Targets: [][]string{{node}}, Process: kubelet.Process})
	}
	return s
}
