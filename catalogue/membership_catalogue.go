package catalogue

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/scenarios"
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
func membershipCatalogue() []scenarios.Spec {
	return []scenarios.Spec{
		{
			Name: "etcd-replace-member",
			Description: "members one short of a quorum (etcd-3 with 3 members, etcd-3 and etcd-4 with 5) are partitioned from the rest from 18 s to 31 s, so that only the rest holds the writes committed meanwhile; " +
				"at 30 s etcd-2's disk is wiped and it stays down, and the other members that hold those writes (etcd-1, and etcd-5 with 5 members) crash for 15 s, so that the cluster has no quorum until they are back; " +
				"the operator then follows etcd's procedure: member remove etcd-2, member add a new member on a fresh host as a learner (it joins with an empty disk and catches up by snapshot), and member promote it once it is in sync; " +
				"the membership changes one voter at a time, no member comes back from a wiped disk as a voter, and no committed write is lost",
			// 75 s: the replacement is done by about 52 s, before the
			// settle window; a longer run would only lengthen the ablated
			// run, where a member whose committed log conflicts with the
			// new leader's rejects its appends in a loop until the end.
			Duration: 75 * time.Second,
			Topology: scenarios.CompactEvery(20 * time.Second),
			Faults:   replaceFaults,
			Members:  []int{3, 5},
			// With two members, removing the wiped one needs both to
			// commit, so the procedure cannot start (etcd refuses the
			// member remove); with one, there is nobody to replace it.
			MinMembers:    3,
			MinMembersWhy: "replacing a member needs a quorum without it (etcd refuses a member remove that the other members cannot commit)",
			Build:         buildReplaceMember,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 18, Members: 3, Seed: 1, Reaches: "a wiped member replaced as etcd documents it: member remove, add as a learner caught up by snapshot, promote (this seed catches rejoin-wiped-member)"},
			},
		},
		{
			Name: "etcd-scale-out-in",
			Description: "the operator grows the cluster by two members (each added as a learner, then promoted) and shrinks it back by removing etcd-1 and etcd-2, while members crash and are partitioned away: " +
				"refused or failed commands are retried, every change is single-server, and the KV workload's availability is measured",
			Topology: scenarios.CompactEvery(20 * time.Second),
			Faults:   scaleFaults,
			Members:  []int{3, 5},
			Build:    buildScaleOutIn,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 19, Members: 5, Seed: 1, Reaches: "growing and shrinking the membership under crashes and partitions: conf change entries, learners, strict reconfiguration checks, refused and retried member commands"},
				{Rank: 59, Members: 3, Seed: 1, Reaches: "a learner caught up and acknowledging while a voter lags: only voters' durable copies commit (this seed catches raft-learner-counts-in-quorum)"},
			},
		},
		{
			Name: "etcd-strict-reconfig",
			Description: "in the middle of an incident (a member crashes for 4 to 8 s every 12 s or so, one is cut off for 6 s every 15 s or so, and each new member's disk is slow for its first 8 s as a learner) an operator issues a member command every 1 to 3 s, each once whatever the answer: " +
				"add a learner (a second one too), add a voter directly, promote the learner before it has caught up, remove a voter (most often the one monitoring shows down, else any); " +
				"etcd's leader must let through exactly the changes its strict reconfiguration checks allow at that moment (enough started and connected voters for a quorum, a learner promoted only in sync, one learner at most) and refuse the others with their errors",
			Duration: time.Minute,
			Topology: scenarios.CompactEvery(20 * time.Second),
			Faults:   reconfigFaults,
			Members:  []int{3, 5},
			Build:    buildStrictReconfig,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 61, Members: 3, Seed: 1, Reaches: "member adds and promotes attempted while members are down or lagging: learners added while the leader hears no quorum, promoted before they caught up, a second learner (this seed catches etcd-strict-reconfig-check-off, etcd-promote-unready-learner and etcd-no-learner-limit)"},
				{Rank: 62, Members: 3, Seed: 6, Reaches: "a voter added, and a running voter removed, while another has been down past the 5 s health interval: refused for not enough started members"},
			},
		},
	}
}

// memberPeers returns the etcd peers of the cluster's members (member i is
// host i-1, ID i, as BuildCluster makes them).
func memberPeers(c *scenarios.Cluster) []etcd.Peer {
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
func addJoiner(c *scenarios.Cluster, env scenarios.Env, n int, known []etcd.Peer) (etcd.Peer, error) {
	p := etcd.Peer{ID: uint64(n), Name: fmt.Sprintf("etcd-%d", n)}
	var cfg etcd.Config
	h, err := c.World.AddHost(sim.HostSpec{Name: p.Name, Role: scenarios.RoleEtcd, Boot: func(h *sim.Host) { etcd.Boot(cfg)(h) }})
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
func addOperator(c *scenarios.Cluster, extra []etcd.Peer, steps func(o *operator) []memberStep) error {
	eps := c.MemberIDs()
	for _, p := range extra {
		eps = append(eps, p.Host)
	}
	role := "operator"
	if c.API != nil {
		role = scenarios.RoleEtcdOperator
	}
	_, err := c.World.AddHost(sim.HostSpec{Name: OperatorHost, Role: role, Boot: func(h *sim.Host) {
		o := &operator{h: h, cli: etcd.NewClient(h, etcd.ClientConfig{Endpoints: eps})}
		o.run(steps(o))
	}})
	return err
}

// membershipCheck returns the checks of a scenario that changes the
// membership: membership-safety and reconfig-safety.
func membershipCheck(c *scenarios.Cluster) []checks.Check {
	env := checks.Env{HostName: c.World.HostName}
	return []checks.Check{checks.NewMembershipSafety(env), checks.NewReconfigSafety(env)}
}

// buildReplaceMember wipes etcd-2 at 30 s and replaces it as etcd's
// documentation says (remove, add as learner, promote). With the
// rejoin-wiped-member ablation the operator restarts the wiped member
// under its old ID instead, with its empty disk, 5 s after the wipe.
//
// Real etcd lets that happen: a member started on an empty data
// directory with --initial-cluster-state=existing and its old name and
// peer URL fetches the membership from the peers and takes the ID of the
// member whose peer URLs match its own (go.etcd.io/etcd/server/v3
// v3.7.3, etcdserver/bootstrap.go bootstrapExistingClusterNoWAL, calling
// GetClusterFromRemotePeers in cluster_util.go and
// membership.ValidateClusterAndAssignIDs in api/membership/cluster.go),
// and with no WAL it starts Raft from an empty storage
// (bootstrapRaft: bootstrapRaftFromCluster with no peers, then
// raft.RestartNode): no log, and a zero HardState, so no term and no
// vote to remember. go.etcd.io/raft/v3 (raft.go, Step, MsgVote and
// MsgPreVote) grants a vote to any candidate whose log is at least as
// up to date as its own, whatever its configuration, so the amnesiac
// member votes again in a term it voted in before the wipe and backs
// a candidate that lacks entries it had acknowledged. kubesim's
// restart does the same: the member boots from the empty disk with no
// HardState (term 0, no vote) and no log (nodes/etcd newMember, raft.New).
// It differs in one way: it boots with the initial voters as its
// configuration, where etcd's starts with none until a snapshot brings
// it; with its empty log it can win no election, so only its votes
// count, as in etcd.
func buildReplaceMember(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	const wipeAt = replaceWipeAt
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

// Timings of etcd-replace-member's faults: the lagging minority is cut off
// from lagAt until healAt; the victim's disk is wiped at wipeAt, when the
// other members that hold the writes the minority lacks crash for
// holdersDown.
const (
	replaceLagAt       = 18 * time.Second
	replaceWipeAt      = 30 * time.Second
	replaceHealAt      = 31 * time.Second
	replaceHoldersDown = 15 * time.Second
)

// replaceGroups splits the members for etcd-replace-member: the victim
// (etcd-2), the lagging minority (the q-1 members from etcd-3 on, q the
// quorum size) and the holders (the rest of the members but the victim).
// The victim and the lagging members are together a quorum, and only the
// victim and the holders see what is committed while the lagging ones are
// cut off.
func replaceGroups(members []string) (victim string, lagging, holders []string) {
	n := len(members)
	if n < 3 {
		return "", nil, nil
	}
	q := n/2 + 1
	lagging = append(lagging, members[2:2+q-1]...)
	holders = append(holders, members[0])
	holders = append(holders, members[2+q-1:]...)
	return members[1], lagging, holders
}

// replaceFaults makes the wipe of etcd-2 matter: the lagging minority is
// partitioned from the rest from 18 s (the rest, etcd-2 among them, keeps
// a quorum and commits writes the minority lacks), and when etcd-2 is
// wiped at 30 s the holders crash for 15 s, and the partition heals at
// 31 s. A member that came back from the wiped disk under its old ID
// would, with the lagging minority, be a quorum without the writes;
// etcd's procedure leaves no quorum until the holders are back. The
// schedule is the same with and without the rejoin-wiped-member
// ablation: only the operator's action differs. Below 3 members, or when
// the faults must end before the holders are back, there are no faults.
func replaceFaults(c *nemesis.Cluster, _ *sim.Stream, end time.Duration) sim.Schedule {
	_, lagging, holders := replaceGroups(c.Members)
	if len(lagging) == 0 || end < replaceWipeAt+replaceHoldersDown {
		return nil
	}
	var rest []string
	for _, m := range c.Members {
		if !slices.Contains(lagging, m) {
			rest = append(rest, m)
		}
	}
	return sim.Schedule{
		{At: replaceLagAt, Kind: sim.FaultPartition, Targets: [][]string{lagging, rest}, For: replaceHealAt - replaceLagAt},
		{At: replaceWipeAt, Kind: sim.FaultCrash, Targets: [][]string{holders}, For: replaceHoldersDown},
	}
}

// buildScaleOutIn adds two members (learner, then promoted, one after the
// other) from 20 s, then removes etcd-1 and etcd-2 from 70 s.
func buildScaleOutIn(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
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
	return memberFaults(c, rng, end, recurring{10 * time.Second, 20 * time.Second, 3 * time.Second}, recurring{15 * time.Second, 30 * time.Second, 8 * time.Second})
}
