package scenarios

import (
	"github.com/kubesim/kubesim/nodes/etcd/kvload"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// SwarmOpsStream names the random stream a swarm run draws its KV
// operations from (Topology.SwarmOps): a stream of its own, apart from the
// one of its fault kinds (nemesis.SwarmStream), so that either draws the
// same whatever the other does.
const SwarmOpsStream = "scenario/swarm-ops"

// Swarm is what a swarm run switched on (swarm testing: per seed, a random
// subset of what a generator can do): the kinds of fault of its chaos
// generator or profile (nemesis.Chaos.Swarm) and the kinds of operation of
// its KV workload (Topology.SwarmOps). The seed draws it, so a replay by
// seed switches on the same.
type Swarm struct {
	Faults []string `json:"faults,omitempty"`
	Ops    []string `json:"ops,omitempty"`
}

// String prints s as a run's output shows it: "faults crash,pause; ops
// get,put".
func (s *Swarm) String() string {
	out := ""
	add := func(what string, names []string) {
		if len(names) == 0 {
			return
		}
		if out != "" {
			out += "; "
		}
		out += what
		for i, n := range names {
			if i == 0 {
				out += " " + n
			} else {
				out += "," + n
			}
		}
	}
	add("faults", s.Faults)
	add("ops", s.Ops)
	return out
}

// swarmOps draws the KV operations of a swarm run: each of
// kvload.OpKinds on with probability 1/2, at least one.
func swarmOps(w *sim.World) []string {
	kinds := kvload.OpKinds()
	var out []string
	for i, on := range nemesis.SwarmPick(w.Rand(SwarmOpsStream), len(kinds)) {
		if on {
			out = append(out, kinds[i])
		}
	}
	return out
}

// swarmOf is what the run switched on, nil unless it is a swarm run.
func swarmOf(view *nemesis.Cluster, c *Cluster) *Swarm {
	if len(view.SwarmKinds) == 0 && len(c.SwarmOps) == 0 {
		return nil
	}
	return &Swarm{Faults: view.SwarmKinds, Ops: c.SwarmOps}
}
