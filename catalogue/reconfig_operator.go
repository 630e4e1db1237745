package catalogue

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Parameters of etcd-strict-reconfig: the spare hosts its operator may add
// as members, the pause between two of its commands, and how long a new
// member's disk is slow once it is added as a learner.
const (
	reconfigSpares   = 6
	reconfigFirst    = 4 * time.Second
	reconfigGapMin   = time.Second
	reconfigGapRange = 2 * time.Second
	reconfigSlowDisk = 8 * time.Second
	// reconfigAlertFor is how long monitoring sees a member down before
	// its alert fires: a little over etcd's 5 s health interval, after
	// which the leader no longer counts the member as connected.
	reconfigAlertFor = 6 * time.Second
)

// incidentOperator is etcd-strict-reconfig's operator: in the middle of an
// incident it issues a member command every few seconds, chosen from what
// `etcdctl member list` shows and what its monitoring says is down, and
// issues each once, whatever etcd answers: its runbook tries again at the
// next step. It makes the mistakes operators make under pressure: it adds
// a second learner, adds a voter directly instead of a learner, promotes
// a learner that has not caught up, and removes a voter while another is
// down. etcd's strict reconfiguration checks must refuse what would cost
// the cluster its quorum, and reconfig-safety judges that they do.
type incidentOperator struct {
	h      *sim.Host
	cli    *etcd.Client
	c      *scenarios.Cluster
	rng    *sim.Stream
	spares []*spareMember // the spare hosts whose member was never added
	size   int            // the members the cluster was built with
	// downSince is when monitoring first saw each voter's host down.
	downSince map[sim.HostID]sim.Time
	end       time.Duration
}

// spareMember is a fresh machine with etcd installed but not started
// (etcd's procedure for adding a member: `member add` first, then start
// the new member with --initial-cluster-state=existing and the
// --initial-cluster that member add printed, the members at that moment).
type spareMember struct {
	etcd.Peer
	cfg *etcd.Config // nil until the operator configured and started it
}

// step lists the members and issues one command, then waits for the next.
func (o *incidentOperator) step() {
	if time.Duration(o.h.Now()) >= o.end {
		return
	}
	next := func() {
		gap := reconfigGapMin + time.Duration(o.rng.Int64N(int64(reconfigGapRange))).Truncate(time.Millisecond)
		o.h.After(gap, "operator-step", o.step)
	}
	o.cli.MemberList(func(res etcd.MemberListResult, err error) {
		if err != nil {
			next()
			return
		}
		o.act(res.Members, next)
	})
}

// act issues one command given the member list, and calls next when it is
// answered.
func (o *incidentOperator) act(members []etcd.Member, next func()) {
	var voters []etcd.Member
	var learner *etcd.Member
	for i := range members {
		if members[i].IsLearner {
			learner = &members[i]
		} else {
			voters = append(voters, members[i])
		}
		if sp := o.spare(members[i].ID); sp != nil {
			o.start(sp, members) // added, though its answer was lost
		}
	}
	after := func(etcd.MemberListResult, error) { next() }
	down, up := o.monitor(voters)
	var choices []string
	switch {
	case len(down) > 0:
		// The alert fires (a voter down for reconfigAlertFor): remove
		// it (the runbook), remove a running voter (the wrong line
		// copied from the member list), or add its replacement first,
		// as a voter or as a learner.
		choices = append(choices, "remove-down")
		if len(up) > 0 {
			choices = append(choices, "remove-up") // none runs in a cluster of one
		}
		if len(o.spares) > 0 {
			choices = append(choices, "voter", "learner")
		}
	default:
		// The runbook keeps the cluster about its size: with no more
		// members than it was built with, add one (as a learner, or,
		// the mistake, as a voter); with more voters, remove the
		// newest. With a learner in the list, promote it (twice as
		// likely), or add another learner anyway (the first add seemed
		// to hang).
		if len(o.spares) > 0 && (len(members) <= o.size || learner != nil) {
			choices = append(choices, "learner")
		}
		if len(o.spares) > 0 && len(members) <= o.size {
			choices = append(choices, "voter")
		}
		if learner != nil {
			choices = append(choices, "promote", "promote")
		}
		if len(voters) > o.size {
			choices = append(choices, "remove-newest")
		}
	}
	if len(choices) == 0 {
		next()
		return
	}
	switch pick := choices[o.rng.IntN(len(choices))]; pick {
	case "learner", "voter":
		sp, learnerAdd := o.spares[0], pick == "learner"
		o.cli.MemberAdd(sp.Peer, learnerAdd, func(res etcd.MemberListResult, err error) {
			switch {
			case err == nil && o.spare(sp.ID) != nil:
				o.start(sp, res.Members)
				if learnerAdd {
					// The runbook's script promotes at once; etcd
					// refuses until the learner has caught up.
					o.cli.MemberPromote(sp.ID, after)
					return
				}
			case errors.Is(err, etcd.ErrIDRemoved):
				o.spares = o.spares[1:] // added, and removed since
			}
			next()
		})
	case "remove-down":
		o.cli.MemberRemove(down[o.rng.IntN(len(down))].ID, after)
	case "remove-up":
		o.cli.MemberRemove(up[o.rng.IntN(len(up))].ID, after)
	case "remove-newest":
		o.cli.MemberRemove(voters[len(voters)-1].ID, after) // the list is sorted by ID
	case "promote":
		o.cli.MemberPromote(learner.ID, after)
	}
}

// monitor splits voters into those whose down alert fires (monitoring has
// seen the host down for reconfigAlertFor) and those running.
func (o *incidentOperator) monitor(voters []etcd.Member) (down, up []etcd.Member) {
	now := o.h.Now()
	for _, v := range voters {
		if o.c.World.Host(v.Host).Up() {
			delete(o.downSince, v.Host)
			up = append(up, v)
			continue
		}
		since, ok := o.downSince[v.Host]
		if !ok {
			o.downSince[v.Host] = now
		} else if now.Sub(since) >= reconfigAlertFor {
			down = append(down, v)
		}
	}
	return down, up
}

// spare returns the spare of member id that the operator has not started
// yet, or nil.
func (o *incidentOperator) spare(id uint64) *spareMember {
	for _, sp := range o.spares {
		if sp.ID == id {
			return sp
		}
	}
	return nil
}

// start configures the spare's etcd to join the cluster of members (its
// --initial-cluster) and starts it (`systemctl start etcd`, a
// restart-process of EtcdProcess).
func (o *incidentOperator) start(sp *spareMember, members []etcd.Member) {
	peers := make([]etcd.Peer, 0, len(members))
	for _, m := range members {
		peers = append(peers, etcd.Peer{ID: m.ID, Name: m.Name, Host: m.Host})
	}
	sp.cfg.Peers, sp.cfg.Join = peers, true
	o.spares = slices.DeleteFunc(o.spares, func(x *spareMember) bool { return x == sp })
	o.c.Joined = append(o.c.Joined, sp.Name)
	o.c.World.Inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{sp.Name}}, Process: EtcdProcess})
}

// buildStrictReconfig adds the spare hosts and the incident operator, who
// acts from reconfigFirst until the faults end.
func buildStrictReconfig(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	n := len(c.Members)
	eps := c.MemberIDs()
	var spares []*spareMember
	for k := 1; k <= reconfigSpares; k++ {
		sp := &spareMember{Peer: etcd.Peer{ID: uint64(n + k), Name: fmt.Sprintf("etcd-%d", n+k)}}
		sp.cfg = &etcd.Config{Name: sp.Name, ID: sp.ID, SnapshotCount: c.SnapshotCount(), Ablations: env.Ablations}
		h, err := c.World.AddHost(sim.HostSpec{Name: sp.Name, Role: scenarios.RoleEtcd, Processes: []string{EtcdProcess}, Boot: bootJoiner(sp)})
		if err != nil {
			return nil, err
		}
		sp.Host = h.ID()
		eps = append(eps, sp.Host)
		spares = append(spares, sp)
	}
	_, err := c.World.AddHost(sim.HostSpec{Name: OperatorHost, Role: "operator", Boot: func(h *sim.Host) {
		o := &incidentOperator{h: h, cli: etcd.NewClient(h, etcd.ClientConfig{Endpoints: eps}), c: c,
			rng: c.World.Rand("reconfig-operator"), spares: slices.Clone(spares), size: n,
			downSince: map[sim.HostID]sim.Time{}, end: env.FaultEnd}
		h.After(reconfigFirst, "operator-step", o.step)
	}})
	return membershipCheck(c), err
}

// bootJoiner boots a spare's host: its etcd runs once the operator has
// configured it to join (Config.Join), from boot or from the
// restart-process that starts it.
func bootJoiner(sp *spareMember) func(*sim.Host) {
	return func(h *sim.Host) {
		started := false
		start := func() {
			if started || !sp.cfg.Join {
				return
			}
			started = true
			etcd.Boot(*sp.cfg)(h)
		}
		start()
		h.OnProcessRestart(EtcdProcess, start)
	}
}

// reconfigFaults are etcd-strict-reconfig's incident: a random member
// crashed for 8 to 16 s every 18 s or so, long enough for the leader to
// stop counting it after etcd's 5 s health interval, and one cut off from
// the others for 7 s every 30 s or so (memberFaults), and each spare's disk slow
// (fsync 50 to 300 ms) for reconfigSlowDisk from the moment it is added
// as a learner (the learner-present moment), so that it lags while the
// operator tries to promote it.
func reconfigFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	s := memberFaults(c, rng, end, recurring{6 * time.Second, 18 * time.Second, 8 * time.Second}, recurring{15 * time.Second, 30 * time.Second, 7 * time.Second})
	for k := 1; k <= reconfigSpares; k++ {
		name := fmt.Sprintf("etcd-%d", len(c.Members)+k)
		fsync := 50*time.Millisecond + time.Duration(rng.Int64N(int64(250*time.Millisecond))).Truncate(time.Millisecond)
		s = append(s, sim.Fault{Kind: sim.FaultSlowDisk, Targets: [][]string{{name}}, For: reconfigSlowDisk, Fsync: fsync,
			On: &sim.Trigger{Event: etcdtrace.KindMembership, Match: []sim.FieldMatch{{Key: "change", Value: etcdtrace.MemberAddLearner}, {Key: "node", Value: name}}}})
	}
	return s
}
