package nemesis

import "github.com/kubesim/kubesim/sim"

// Cluster is what a nemesis sees of a built world: the hosts it may aim at,
// by role, and the trackers that tell it who leads and what runs where.
// Package scenarios fills it in once the world's layers are built.
type Cluster struct {
	World *sim.World
	// Members are the etcd members (etcd-1..etcd-N); Clients the hosts of
	// the etcd KV workload (clients, watchers, compactor).
	Members, Clients []string
	// Leader follows which etcd member leads.
	Leader *LeaderTracker
	// Servers are the API servers; nil below the API layer.
	Servers []string
	// Nodes are the kubelets' hosts, nil below the full stack, and
	// Placement counts the pods running on each. Spare are nodes a nemesis
	// must not kill for good; it records those it did kill for good in
	// Dead, for the operator's script.
	Nodes, Spare []string
	Placement    *Placement
	Dead         *[]string
	// Leaders follows which replica of each leader-elected component
	// leads; nil below the full stack.
	Leaders *SpokeLeaders
	// SwarmKinds are the fault kinds a swarm generator switched on for
	// the run (Chaos.Swarm, or a profile's swarm=true), nil when none
	// did: package scenarios records them in the run's result.
	SwarmKinds []string
}
