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
}
