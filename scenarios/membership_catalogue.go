package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// OperatorHost is the host of the membership scenarios' operator, who
// changes the membership with etcdctl's member commands.
const OperatorHost = "operator"

// operatorRetry is how long the operator waits before trying a refused or
// failed member command again.
const operatorRetry = 2 * time.Second

// membershipCatalogue returns the scenarios of etcd's membership change.
func membershipCatalogue() []Spec {
	return []Spec{
		{
			Name: "etcd-replace-member",
			Description: "etcd-2's disk is wiped at 30 s and it stays down; the operator then follows etcd's procedure: member remove etcd-2, member add a new member on a fresh host as a learner (it joins with an empty disk and catches up by snapshot), and member promote it once it is in sync; " +
				"the membership changes one voter at a time and no member comes back from a wiped disk as a voter",
			Topology: CompactEvery(20 * time.Second),
			Members:  []int{3, 5},
			Build:    buildReplaceMember,
		},
		{
			Name: "etcd-scale-out-in",
			Description: "the operator grows the cluster by two members (each added as a learner, then promoted) and shrinks it back by removing etcd-1 and etcd-2, while members crash and are partitioned away: " +
				"refused or failed commands are retried, every change is single-server, and the KV workload's availability is measured",
			Topology: CompactEvery(20 * time.Second),
			Faults:   scaleFaults,
			Members:  []int{3, 5},
			Build:    buildScaleOutIn,
		},
	}
}

// memberPeers returns the etcd peers of the cluster's members (member i is
// host i-1, ID i, as BuildCluster makes them).
func memberPeers(c *Cluster) []etcd.Peer {
	peers := make([]etcd.Peer, len(c.Members))
	for i, name := range c.Members {
		h, _ := c.World.HostByName(name)
		peers[i] = etcd.Peer{ID: uint64(i + 1), Host: h.ID(), Name: name}
	}
	return peers
}

// addJoiner adds a fresh host running a member that joins the cluster
// (etcd's --initial-cluster-state=existing) with ID n; known are the
// members its --initial-cluster names besides itself (what `member add`
// prints), the ones it may first hear from.
func addJoiner(c *Cluster, env Env, n int, known []etcd.Peer) (etcd.Peer, error) {
	p := etcd.Peer{ID: uint64(n), Name: fmt.Sprintf("etcd-%d", n)}
	var cfg etcd.Config
	h, err := c.World.AddHost(sim.HostSpec{Name: p.Name, Role: RoleEtcd, Boot: func(h *sim.Host) { etcd.Boot(cfg)(h) }})
	if err != nil {
		return p, err
	}
	p.Host = h.ID()
	c.Joined = append(c.Joined, p.Name)
	cfg = etcd.Config{Name: p.Name, ID: p.ID, Peers: append(slices.Clip(known), p), Join: true, Ablations: env.Ablations}
	return p, nil
}

// operator runs member commands one after the other, each retried until
// it is done.
type operator struct {
	h   *sim.Host
	cli *etcd.Client
}

// memberStep is one operator command: call issues it; done reports whether
// its answer means the change is in place (an error may say so too: the
// member is already removed, added or a voter).
type memberStep struct {
	at   time.Duration
	call func(cli *etcd.Client, done func(etcd.MemberListResult, error))
	done func(err error) bool
}

// run issues the steps in order, each no earlier than its time.
func (o *operator) run(steps []memberStep) {
	if len(steps) == 0 {
		return
	}
	s := steps[0]
	wait := max(0, s.at-time.Duration(o.h.Now()))
	o.h.After(wait, "operator-step", func() {
		s.call(o.cli, func(_ etcd.MemberListResult, err error) {
			if s.done(err) {
				o.run(steps[1:])
				return
			}
			steps[0].at = time.Duration(o.h.Now()) + operatorRetry
			o.run(steps)
		})
	})
}

func doneUnless(ok ...error) func(error) bool {
	return func(err error) bool {
		if err == nil {
			return true
		}
		for _, e := range ok {
			if errors.Is(err, e) {
				return true
			}
		}
		return false
	}
}

func removeStep(at time.Duration, id uint64) memberStep {
	return memberStep{at: at, call: func(cli *etcd.Client, d func(etcd.MemberListResult, error)) { cli.MemberRemove(id, d) },
		done: doneUnless(etcd.ErrIDRemoved, etcd.ErrIDNotFound)}
}

func addLearnerStep(at time.Duration, p etcd.Peer) memberStep {
	return memberStep{at: at, call: func(cli *etcd.Client, d func(etcd.MemberListResult, error)) { cli.MemberAdd(p, true, d) },
		done: doneUnless(etcd.ErrIDExists)}
}

func promoteStep(at time.Duration, id uint64) memberStep {
	return memberStep{at: at, call: func(cli *etcd.Client, d func(etcd.MemberListResult, error)) { cli.MemberPromote(id, d) },
		done: doneUnless(etcd.ErrMemberNotLearner)}
}

// addOperator adds the operator's host, with a client of every member
// and joiner, running steps. Its role is "operator", or RoleEtcdOperator
// when an API layer is built, whose fabric lets only API servers and
// etcd operators reach etcd's client port (the scenario then names
// OperatorHost in Spec.EtcdClients).
func addOperator(c *Cluster, extra []etcd.Peer, steps func(o *operator) []memberStep) error {
	eps := c.MemberIDs()
	for _, p := range extra {
		eps = append(eps, p.Host)
	}
	role := "operator"
	if c.API != nil {
		role = RoleEtcdOperator
	}
	_, err := c.World.AddHost(sim.HostSpec{Name: OperatorHost, Role: role, Boot: func(h *sim.Host) {
		o := &operator{h: h, cli: etcd.NewClient(h, etcd.ClientConfig{Endpoints: eps})}
		o.run(steps(o))
	}})
	return err
}

func membershipCheck(c *Cluster) []checks.Check {
	return []checks.Check{checks.NewMembershipSafety(checks.Env{HostName: c.World.HostName})}
}

// buildReplaceMember wipes etcd-2 at 30 s and replaces it as etcd's
// documentation says (remove, add as learner, promote). With the
// rejoin-wiped-member ablation the operator restarts the wiped member
// under its old ID instead, with its empty disk.
func buildReplaceMember(c *Cluster, env Env) ([]checks.Check, error) {
	const wipeAt = 30 * time.Second
	victim := memberPeers(c)[1]
	if env.Ablations.Has(ablation.RejoinWipedMember) {
		c.World.At(sim.Time(wipeAt), "operator-wipe", func() {
			c.World.Inject(sim.Fault{Kind: sim.FaultWipe, Targets: [][]string{{victim.Name}}, For: 5 * time.Second})
		})
		return membershipCheck(c), nil
	}
	p, err := addJoiner(c, env, len(c.Members)+1, memberPeers(c))
	if err != nil {
		return nil, err
	}
	c.World.At(sim.Time(wipeAt), "operator-wipe", func() {
		c.World.Inject(sim.Fault{Kind: sim.FaultWipe, Targets: [][]string{{victim.Name}}})
	})
	err = addOperator(c, []etcd.Peer{p}, func(*operator) []memberStep {
		return []memberStep{removeStep(wipeAt+5*time.Second, victim.ID), addLearnerStep(0, p), promoteStep(0, p.ID)}
	})
	return membershipCheck(c), err
}

// buildScaleOutIn adds two members (learner, then promoted, one after the
// other) from 20 s, then removes etcd-1 and etcd-2 from 70 s.
func buildScaleOutIn(c *Cluster, env Env) ([]checks.Check, error) {
	n := len(c.Members)
	var added []etcd.Peer
	for k := 1; k <= 2; k++ {
		p, err := addJoiner(c, env, n+k, memberPeers(c))
		if err != nil {
			return nil, err
		}
		added = append(added, p)
	}
	err := addOperator(c, added, func(*operator) []memberStep {
		return []memberStep{
			addLearnerStep(20*time.Second, added[0]), promoteStep(0, added[0].ID),
			addLearnerStep(0, added[1]), promoteStep(0, added[1].ID),
			removeStep(70*time.Second, 1), removeStep(0, 2),
		}
	})
	return membershipCheck(c), err
}

// scaleFaults crashes a random original member for 3 to 6 s every 20 s or
// so, and partitions one from the rest for 8 s every 30 s or so.
func scaleFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	var s sim.Schedule
	s = append(s, nemesis.Every(10*time.Second, 20*time.Second, end, rng, func(at time.Duration) sim.Fault {
		m := c.Members[rng.IntN(len(c.Members))]
		d := 3*time.Second + time.Duration(rng.Int64N(int64(3*time.Second))).Truncate(time.Millisecond)
		return sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{m}}, For: d}
	})...)
	s = append(s, nemesis.Every(15*time.Second, 30*time.Second, end, rng, func(at time.Duration) sim.Fault {
		i := rng.IntN(len(c.Members))
		others := append(append([]string(nil), c.Members[:i]...), c.Members[i+1:]...)
		return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{c.Members[i]}, others}, For: 8 * time.Second}
	})...)
	return s
}
