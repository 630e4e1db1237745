package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/kvload"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Roles of the hosts a scenario builds.
const (
	RoleEtcd   = "etcd"
	RoleClient = "client"
)

// Topology sizes the etcd part of a world.
type Topology struct {
	Members  int // etcd members, 1 to 7
	Clients  int // KV clients
	Watchers int // resuming watchers
	// Compaction is the compactor's interval, as kube-apiserver's
	// --etcd-compaction-interval (5 min by default, longer than an etcd
	// scenario: scenarios that must compact set it lower, as an operator
	// can); 0 runs no compactor.
	Compaction time.Duration
	Think      time.Duration // mean pause between a client's operations
	// SnapshotCount is applied entries between Raft snapshots.
	SnapshotCount uint64
	// QuietAt, when set, is when the workload stops starting operations, so
	// that the members can agree before the run ends.
	QuietAt time.Duration
	// PinClients gives each KV client one member only (client i member i,
	// round the members), as kubeadm's stacked control plane points each
	// kube-apiserver at its local etcd member: a client then keeps reading
	// through its member however slow it is, instead of failing over.
	PinClients bool
	// SwarmOps, when set, has the KV clients run a random subset of the
	// kinds of operation (kvload.OpKinds), drawn per seed from its own
	// stream (SwarmOpsStream) and recorded in Cluster.SwarmOps: a swarm
	// run's workload.
	SwarmOps bool
}

// DefaultTopology is the etcd cluster most scenarios run: three clients, two
// watchers and kube-apiserver's compaction every 5 minutes.
func DefaultTopology(members int) Topology {
	return Topology{Members: members, Clients: 3, Watchers: 2, Compaction: 5 * time.Minute,
		Think: 100 * time.Millisecond, SnapshotCount: 2000}
}

// CompactEvery is DefaultTopology with compaction every d, as an operator
// sets --etcd-compaction-interval: a 2-minute run then compacts several
// times, so that compacted reads and watches, and the compaction itself,
// run.
func CompactEvery(d time.Duration) func(members int) Topology {
	return func(members int) Topology {
		t := DefaultTopology(members)
		t.Compaction = d
		return t
	}
}

// Cluster is a built etcd world: the hosts by role, and what tracks them.
type Cluster struct {
	World   *sim.World
	Members []string // etcd host names, etcd-1..etcd-N
	// Joined are the hosts of members added by a membership change
	// (their etcd joins the running cluster), in the order they were
	// added.
	Joined []string
	// snapshotCount is the members' --snapshot-count, for members added
	// later.
	snapshotCount uint64
	Clients       []string // client, watcher and compactor host names
	Leader        *nemesis.LeaderTracker
	// API is the API layer built on the cluster, nil in etcd scenarios.
	API *APILayer
	// Stack is the full control plane built on it, nil unless a full-stack
	// scenario built it.
	Stack *StackLayer
	// SwarmOps are the kinds of operation the KV clients run when
	// Topology.SwarmOps drew them; nil when they run every kind.
	SwarmOps []string
}

// MaxMembers is the largest etcd cluster a scenario may ask for.
const MaxMembers = 7

// BuildCluster adds an etcd cluster and its KV workload to w.
func BuildCluster(w *sim.World, top Topology, abl ablation.Set) (*Cluster, error) {
	if top.Members < 1 || top.Members > MaxMembers {
		return nil, fmt.Errorf("members must be between 1 and %d, got %d", MaxMembers, top.Members)
	}
	c := &Cluster{World: w, snapshotCount: top.SnapshotCount}
	var peers []etcd.Peer
	for i := 1; i <= top.Members; i++ {
		name := fmt.Sprintf("etcd-%d", i)
		c.Members = append(c.Members, name)
		// Hosts are added in order, so member i is host i-1.
		peers = append(peers, etcd.Peer{ID: uint64(i), Host: sim.HostID(i - 1), Name: name})
	}
	var endpoints []sim.HostID
	for i, p := range peers {
		cfg := etcd.Config{Name: p.Name, ID: p.ID, Peers: peers, SnapshotCount: top.SnapshotCount, Ablations: abl}
		h, err := w.AddHost(sim.HostSpec{Name: p.Name, Role: RoleEtcd, Boot: etcd.Boot(cfg)})
		if err != nil {
			return nil, err
		}
		if h.ID() != p.Host {
			return nil, fmt.Errorf("BuildCluster needs a world without hosts")
		}
		endpoints = append(endpoints, sim.HostID(i))
	}
	add := func(name string, boot func(*sim.Host)) error {
		c.Clients = append(c.Clients, name)
		_, err := w.AddHost(sim.HostSpec{Name: name, Role: RoleClient, Boot: boot})
		return err
	}
	// Each client starts on a different member, as a load balancer would.
	rotate := func(k int) []sim.HostID {
		out := make([]sim.HostID, 0, len(endpoints))
		for i := range endpoints {
			out = append(out, endpoints[(k+i)%len(endpoints)])
		}
		return out
	}
	if top.SwarmOps {
		c.SwarmOps = swarmOps(w)
	}
	for i := 1; i <= top.Clients; i++ {
		name := fmt.Sprintf("client-%d", i)
		eps := rotate(i - 1)
		if top.PinClients {
			eps = eps[:1]
		}
		if err := add(name, kvload.BootClient(kvload.ClientConfig{Name: name, Endpoints: eps, Think: top.Think, Until: top.QuietAt, Ops: c.SwarmOps})); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.Watchers; i++ {
		name := fmt.Sprintf("watcher-%d", i)
		if err := add(name, kvload.BootWatcher(kvload.WatcherConfig{Name: name, Endpoints: rotate(i)})); err != nil {
			return nil, err
		}
	}
	if top.Compaction > 0 {
		if err := add("compactor", kvload.BootCompactor(kvload.CompactorConfig{Name: "compactor", Endpoints: rotate(0), Interval: top.Compaction, Until: top.QuietAt})); err != nil {
			return nil, err
		}
	}
	c.Leader = nemesis.NewLeaderTracker(w, c.Members)
	w.Subscribe(c.Leader.Observe)
	w.AddResolver(c.Leader.Resolve)
	w.AddResolver(c.resolveGroups)
	for _, role := range []string{"etcd-leader", "etcd-follower", "etcd-followers"} {
		w.DeclareWithin(role, "etcd")
	}
	return c, nil
}

// resolveGroups knows "etcd" (every member), "etcd-minority" (the largest
// group that is not a quorum: the first (N-1)/2 members), "etcd-majority"
// (the rest: a quorum), "etcd-quorum" (the first N/2+1 members) and
// "etcd-followers" (every member but the leader).
func (c *Cluster) resolveGroups(name string) ([]sim.HostID, bool) {
	n := len(c.Members)
	var names []string
	switch name {
	case "etcd":
		names = c.Members
	case "etcd-minority":
		names = c.Members[:(n-1)/2]
	case "etcd-majority":
		names = c.Members[(n-1)/2:]
	case "etcd-quorum":
		names = c.Members[:n/2+1]
	case "etcd-followers":
		leader, _ := c.Leader.Leader()
		for _, m := range c.Members {
			if m != leader {
				names = append(names, m)
			}
		}
	default:
		return nil, false
	}
	return hostIDs(c.World, names), true
}

// View returns what a nemesis sees of the cluster, with the layers built
// so far.
func (c *Cluster) View() *nemesis.Cluster {
	v := &nemesis.Cluster{World: c.World, Members: c.Members, Clients: c.Clients, Leader: c.Leader}
	if c.API != nil {
		v.Servers = c.API.Servers
	}
	if l := c.Stack; l != nil {
		v.Nodes, v.Spare, v.Placement, v.Dead, v.Leaders = l.Nodes, l.Spare, l.Placement, &l.Dead, l.Leaders
	}
	return v
}

// hostID finds a host of the cluster's world by name.
func (c *Cluster) hostID(name string) (sim.HostID, bool) {
	h, ok := c.World.HostByName(name)
	if !ok {
		return 0, false
	}
	return h.ID(), true
}

// MemberIDs returns the etcd members' hosts.
func (c *Cluster) MemberIDs() []sim.HostID { return hostIDs(c.World, c.Members) }

// HostIDs returns the hosts of the cluster's world with the given names,
// which must exist: the etcd members, c.API.Servers for a client of the
// API servers that a Build hook adds, a resolver's answer.
func (c *Cluster) HostIDs(names ...string) []sim.HostID { return hostIDs(c.World, names) }

// hostIDs returns the ids of the named hosts of w, which must exist.
func hostIDs(w *sim.World, names []string) []sim.HostID {
	ids := make([]sim.HostID, len(names))
	for i, n := range names {
		h, _ := w.HostByName(n)
		ids[i] = h.ID()
	}
	return ids
}

// EmitKVHashes asks every live member to report its store hash into the
// trace, for the kv-agreement check. Where the workload never stops
// writing (the full stack: leases are renewed every few seconds), members
// are compared at the lowest revision any live member has applied, as
// etcd's own corruption check compares them; elsewhere at their current
// revision, so that a member that lags is a failure too.
func (c *Cluster) EmitKVHashes() {
	var live []*sim.Host
	for _, m := range append(slices.Clip(c.Members), c.Joined...) {
		if h, ok := c.World.HostByName(m); ok && h.Up() {
			live = append(live, h)
		}
	}
	rev := int64(0)
	if c.Stack != nil {
		for _, h := range live {
			if r, ok := etcd.KVRevision(h); ok && (rev == 0 || r < rev) {
				rev = r
			}
		}
	}
	for _, h := range live {
		etcd.EmitKVHashAt(h, rev)
	}
}

// SnapshotCount is the members' --snapshot-count, which an operator gives
// the members it adds later.
func (c *Cluster) SnapshotCount() uint64 { return c.snapshotCount }
