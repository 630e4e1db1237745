package checks

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// ReconfigSafety judges each member change the leader judged (the
// etcdtrace.MemberCheck it traces before proposing one) against etcd
// v3.7.3's strict reconfiguration rules (--strict-reconfig-check, on by
// default), evaluated on the trace's own view of the world at that moment,
// and against its limit of one learner:
//
//   - connected: a voter counts as connected to the leader (and, as the
//     simulated member counts them, started) when the leader received one
//     of its Raft messages (a delivery on etcdtrace.PeerPort) within the
//     last HealthInterval of the leader's clock, itself always; a crash of
//     the leader's host forgets what it heard. This is what the leader
//     counts: rafthttp's peer activity (etcdserver/util.go
//     numConnectedSince, isConnectedSince).
//   - add: a voter only if the started voters, the new one counted as not
//     started, make a quorum (one started member may grow to two:
//     membership.IsReadyToAddVotingMember), and any member only if the
//     leader is connected to a quorum of the voters plus the new one,
//     unless there is one voter (isConnectedToQuorumAfterAddingNewMemberSince);
//     a learner only while there is no learner (maxLearners, 1:
//     membership.ValidateMaxLearnerConfig).
//   - remove: a learner freely; a voter only if the started voters left
//     make a quorum of the voters left (IsReadyToRemoveVotingMember), and,
//     unless it is a peer the leader does not hear, if the connected voters
//     less one keep a quorum of the voters less one (server.go
//     mayRemoveMember).
//   - promote: only a learner whose match index (MemberCheck.Match) is at
//     least 90% of the leader's (server.go isLearnerReady,
//     readyPercentThreshold), the leader's being its durable log (the
//     etcdtrace.Persist events: a leader counts its own entries once
//     durable), and only if the started voters plus the learner make a
//     quorum of the voters plus the learner (IsReadyToPromoteMember).
//
// A change that passed the leader's checks while the rules refuse it is an
// offense (etcd would have proposed a change that can cost the cluster its
// quorum), and so is a refusal with one of these rules' errors where the
// rules give another answer (the operator was told a wrong reason, or a
// safe change was refused). A promote's Match must not exceed the learner's
// durable log (it acknowledges only what it holds), and no applied change
// (etcdtrace.Membership) may leave more than one learner. A judgement whose
// inputs the trace cannot tell (a drifting clock whose rate is unknown, a
// message heard within a millisecond of the interval's edge) is skipped
// and counted. Refusals for other reasons (an unknown or taken member ID)
// are not judged.
type ReconfigSafety struct {
	rec     Recorder
	env     Env
	clocks  hostClocks
	heard   map[sim.HostID]map[string]sim.Time // receiving host -> sender's name -> last delivery
	durable map[string]uint64                  // member name -> last durable index
	applied map[uint64]bool                    // Membership indexes already judged
	// Tallies for the verdict.
	accepted, refused, other, unjudged int
}

// HealthInterval is how recently a leader must have heard from a peer for
// etcd to count it as connected (etcdserver.HealthInterval, 5 s).
const HealthInterval = 5 * time.Second

// reconfigEdge is how close to HealthInterval's edge a last message may
// be before the judgement is skipped: the check rebuilds the leader's
// clock from the trace, to the nanosecond only when it ran at one rate.
const reconfigEdge = time.Millisecond

// learnerReadyPercent and reconfigMaxLearners are etcd's
// readyPercentThreshold (server.go) and maxLearners (membership).
const (
	learnerReadyPercent = 0.9
	reconfigMaxLearners = 1
)

// NewReconfigSafety returns the "reconfig-safety" check; env.HostName
// names the hosts.
func NewReconfigSafety(env Env) *ReconfigSafety {
	return &ReconfigSafety{env: env, clocks: newHostClocks(), heard: map[sim.HostID]map[string]sim.Time{},
		durable: map[string]uint64{}, applied: map[uint64]bool{}}
}

// Name implements Check.
func (c *ReconfigSafety) Name() string { return "reconfig-safety" }

// Observe implements Check.
func (c *ReconfigSafety) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.KindFault:
		c.clocks.observe(e)
		if f := sim.ParseFaultEvent(e.Name); !f.Unresolved && !f.Ends && f.Kind.CrashesHost() {
			delete(c.heard, e.Host) // the member boots with an empty view
		}
	case sim.KindDeliver:
		if e.Port == etcdtrace.PeerPort {
			h := c.heard[e.Host]
			if h == nil {
				h = map[string]sim.Time{}
				c.heard[e.Host] = h
			}
			h[c.env.HostName(e.Peer)] = e.At
		}
	case sim.KindNode:
		switch d := e.Data.(type) {
		case *etcdtrace.Persist:
			switch {
			case len(d.Runs) > 0:
				c.durable[d.Member] = d.Runs[len(d.Runs)-1].To
			case d.SnapIndex > 0 || d.Boot:
				c.durable[d.Member] = d.SnapIndex
			}
		case *etcdtrace.MemberCheck:
			c.judge(e, d)
		case *etcdtrace.Membership:
			c.observeApplied(e, d)
		}
	}
}

// observeApplied judges the learner limit on an applied change, once per
// index.
func (c *ReconfigSafety) observeApplied(e *sim.Event, d *etcdtrace.Membership) {
	if d.Change != etcdtrace.MemberAddLearner || c.applied[d.Index] {
		return
	}
	c.applied[d.Index] = true
	if n := len(etcdtrace.Names(d.Learners)); n > reconfigMaxLearners {
		c.rec.Add(e, "learner limit: member %s applied the addition of learner %s at index %d, which leaves %d learners (%s); etcd allows %d",
			d.Member, d.Node, d.Index, n, d.Learners, reconfigMaxLearners)
	}
}

// reconfigJudged are the refusals the rules explain.
var reconfigJudged = map[string]bool{etcdtrace.ErrNotEnoughStartedText: true, etcdtrace.ErrUnhealthyText: true,
	etcdtrace.ErrLearnerNotReadyText: true, etcdtrace.ErrTooManyLearnersText: true}

// judge compares the leader's verdict with the rules'.
func (c *ReconfigSafety) judge(e *sim.Event, d *etcdtrace.MemberCheck) {
	if d.Err != "" && !reconfigJudged[d.Err] {
		c.other++
		return
	}
	if d.Op == etcdtrace.MemberPromote && d.Match > c.durable[d.Node] {
		c.rec.Add(e, "learner progress: leader %s counts learner %s's match index as %d, above the %d entries the learner holds durably",
			d.Member, d.Node, d.Match, c.durable[d.Node])
	}
	want, ok := c.rules(e, d)
	if !ok {
		c.unjudged++
		return
	}
	if d.Err == "" {
		c.accepted++
	} else {
		c.refused++
	}
	switch {
	case d.Err == "" && want != "":
		c.rec.Add(e, "accepted: leader %s passed %s of %s (voters %s, learners [%s]) where etcd's rules refuse it: %q",
			d.Member, d.Op, d.Node, d.Voters, d.Learners, want)
	case d.Err != "" && d.Err != want:
		if want == "" {
			want = "no refusal"
		}
		c.rec.Add(e, "refused: leader %s refused %s of %s (voters %s, learners [%s]) with %q where etcd's rules give %q",
			d.Member, d.Op, d.Node, d.Voters, d.Learners, d.Err, want)
	}
}

// rules returns the refusal etcd's rules give the change d at event e,
// empty when they allow it; ok is false when the trace cannot tell.
func (c *ReconfigSafety) rules(e *sim.Event, d *etcdtrace.MemberCheck) (refusal string, ok bool) {
	voters, learners := etcdtrace.Names(d.Voters), etcdtrace.Names(d.Learners)
	up := map[string]bool{}
	for _, v := range voters {
		conn, known := c.connected(e, d.Member, v)
		if !known {
			return "", false
		}
		up[v] = conn
	}
	count := func(skip string) int {
		n := 0
		for _, v := range voters {
			if v != skip && up[v] {
				n++
			}
		}
		return n
	}
	quorum := func(n int) int { return n/2 + 1 }
	switch d.Op {
	case etcdtrace.MemberAddLearner, etcdtrace.MemberAddVoter:
		if d.Op == etcdtrace.MemberAddLearner && len(learners)+1 > reconfigMaxLearners {
			return etcdtrace.ErrTooManyLearnersText, true
		}
		started, members := count(""), len(voters)+1
		if d.Op == etcdtrace.MemberAddVoter && !(started == 1 && members == 2) && started < quorum(members) {
			return etcdtrace.ErrNotEnoughStartedText, true
		}
		if len(voters) != 1 && count("") < quorum(len(voters)+1) {
			return etcdtrace.ErrUnhealthyText, true
		}
	case etcdtrace.MemberRemove:
		if !slices.Contains(voters, d.Node) {
			return "", true // a learner goes freely
		}
		if count(d.Node) < quorum(len(voters)-1) {
			return etcdtrace.ErrNotEnoughStartedText, true
		}
		if d.Node != d.Member && !up[d.Node] {
			return "", true // a member the leader does not hear is safe to remove
		}
		if count("")-1 < 1+(len(voters)-1)/2 {
			return etcdtrace.ErrUnhealthyText, true
		}
	case etcdtrace.MemberPromote:
		if float64(d.Match) < float64(c.durable[d.Member])*learnerReadyPercent {
			return etcdtrace.ErrLearnerNotReadyText, true
		}
		if count("")+1 < quorum(len(voters)+1) {
			return etcdtrace.ErrNotEnoughStartedText, true
		}
	}
	return "", true
}

// connected reports whether leader heard from voter v within
// HealthInterval of its clock before e; known is false when the trace
// cannot tell.
func (c *ReconfigSafety) connected(e *sim.Event, leader, v string) (conn, known bool) {
	if v == leader {
		return true, true
	}
	t, ok := c.heard[e.Host][v]
	if !ok {
		return false, true
	}
	d, ok := c.clocks.elapsed(e.Host, t, e.At)
	if !ok || (d-HealthInterval).Abs() < reconfigEdge {
		return false, false
	}
	return d <= HealthInterval, true
}

// Finish implements Check.
func (c *ReconfigSafety) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d member changes passed and %d refused as etcd's strict reconfiguration rules say (%d refused for other reasons, %d not judged)",
		c.accepted, c.refused, c.other, c.unjudged))
}

var _ Check = (*ReconfigSafety)(nil)
