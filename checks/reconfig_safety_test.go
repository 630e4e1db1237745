package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// rsEvent is one event of a hand-built reconfig-safety trace, at ms.
type rsEvent struct {
	ms int64
	ev sim.Event
}

// heardAt: host to (n1 is host 0, ...) received a Raft message from host
// from at ms.
func heardAt(ms int64, to, from sim.HostID) rsEvent {
	return rsEvent{ms, sim.Event{Kind: sim.KindDeliver, Host: to, Peer: from, Port: etcdtrace.PeerPort}}
}

func nodeAt(ms int64, host sim.HostID, d sim.Data) rsEvent {
	return rsEvent{ms, sim.Event{Kind: sim.KindNode, Host: host, Data: d}}
}

func faultAt(ms int64, host sim.HostID, name string) rsEvent {
	return rsEvent{ms, sim.Event{Kind: sim.KindFault, Host: host, Name: name}}
}

// check is the leader n1's judgement of op on node, with voters and
// learners, the learner's match and the refusal.
func check(ms int64, op, node, voters, learners string, match uint64, err string) rsEvent {
	return nodeAt(ms, 0, &etcdtrace.MemberCheck{Member: "n1", Op: op, Node: node, Voters: voters, Learners: learners, Match: match, Err: err})
}

// durable: member's log is durable up to last.
func durable(ms int64, host sim.HostID, member string, last uint64) rsEvent {
	return nodeAt(ms, host, &etcdtrace.Persist{Member: member, Runs: []etcdtrace.TermRun{{From: 1, To: last, Term: 1}}})
}

// allHeard: n1 heard from n2 and n3 at ms.
func allHeard(ms int64) []rsEvent { return []rsEvent{heardAt(ms, 0, 1), heardAt(ms, 0, 2)} }

func runReconfig(evs []rsEvent) Result {
	c := NewReconfigSafety(msEnv())
	for i, x := range evs {
		e := x.ev
		e.Seq, e.At = uint64(i), sim.Time(x.ms*int64(time.Millisecond))
		c.Observe(&e)
	}
	return c.Finish()
}

const (
	rsVoters = "n1,n2,n3"
	errNES   = etcdtrace.ErrNotEnoughStartedText
	errUnh   = etcdtrace.ErrUnhealthyText
	errLNR   = etcdtrace.ErrLearnerNotReadyText
	errTML   = etcdtrace.ErrTooManyLearnersText
)

// TestReconfigSafetyAgrees: verdicts that are etcd's rules' pass, whether
// they let the change through or refuse it.
func TestReconfigSafetyAgrees(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []rsEvent
	}{
		{"every voter heard: an add, a remove pass", append(allHeard(1000),
			check(2000, etcdtrace.MemberAddLearner, "n4", rsVoters, "", 0, ""),
			check(2100, etcdtrace.MemberRemove, "n3", rsVoters, "", 0, ""))},
		{"n3 silent for over 5 s: adds and the removal of n2 refused, n3's removal passes", []rsEvent{
			heardAt(1000, 0, 2), heardAt(6500, 0, 1),
			check(7000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, errNES),
			check(7000, etcdtrace.MemberAddLearner, "n4", rsVoters, "", 0, errUnh),
			check(7000, etcdtrace.MemberRemove, "n2", rsVoters, "", 0, errNES),
			check(7000, etcdtrace.MemberRemove, "n3", rsVoters, "", 0, ""),
		}},
		{"n3 heard 4 s ago still counts", append([]rsEvent{heardAt(3000, 0, 2)}, heardAt(6500, 0, 1),
			check(7000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, ""))},
		{"a second learner is refused", append(allHeard(1000),
			check(2000, etcdtrace.MemberAddLearner, "n5", rsVoters, "n4", 0, errTML))},
		{"a learner at 90% is promoted, one at 50% is not", append(allHeard(1000),
			durable(1500, 0, "n1", 100), durable(1500, 3, "n4", 90),
			check(2000, etcdtrace.MemberPromote, "n4", rsVoters, "n4", 90, ""),
			check(2000, etcdtrace.MemberPromote, "n4", rsVoters, "n4", 50, errLNR))},
		{"a crash of the leader forgets what it heard", append(allHeard(1000),
			faultAt(1500, 0, string(sim.FaultCrash)), faultAt(2000, 0, string(sim.FaultRestart)),
			check(2500, etcdtrace.MemberAddLearner, "n4", rsVoters, "", 0, errUnh))},
		{"other refusals are not judged", []rsEvent{
			check(2000, etcdtrace.MemberAddLearner, "n2", rsVoters, "", 0, "etcdserver: member ID already exist")}},
		{"one voter grows to two", []rsEvent{check(2000, etcdtrace.MemberAddVoter, "n2", "n1", "", 0, "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runReconfig(tc.evs)
			require.True(t, r.OK, r.String())
		})
	}
}

// TestReconfigSafetyNegative: each verdict the rules contradict fails.
func TestReconfigSafetyNegative(t *testing.T) {
	silentN3 := []rsEvent{heardAt(1000, 0, 2), heardAt(6500, 0, 1)}
	for _, tc := range []struct {
		name string
		evs  []rsEvent
		want string
	}{
		{"a voter added with a bare quorum started", append(silentN3,
			check(7000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, "")), "accepted"},
		{"a learner added while the leader hears no quorum of four", append(silentN3,
			check(7000, etcdtrace.MemberAddLearner, "n4", rsVoters, "", 0, "")), errUnh},
		{"a running voter removed while another is down", append(silentN3,
			check(7000, etcdtrace.MemberRemove, "n2", rsVoters, "", 0, "")), errNES},
		{"a learner promoted while behind", append(allHeard(1000), durable(1500, 0, "n1", 100), durable(1500, 3, "n4", 89),
			check(2000, etcdtrace.MemberPromote, "n4", rsVoters, "n4", 89, "")), errLNR},
		{"a second learner added", append(allHeard(1000),
			check(2000, etcdtrace.MemberAddLearner, "n5", rsVoters, "n4", 0, "")), errTML},
		{"a safe change refused", append(allHeard(1000),
			check(2000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, errNES)), "refused"},
		{"a wrong reason", append(silentN3,
			check(7000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, errUnh)), "refused"},
		{"a learner's match above its durable log", append(allHeard(1000), durable(1500, 0, "n1", 100), durable(1500, 3, "n4", 50),
			check(2000, etcdtrace.MemberPromote, "n4", rsVoters, "n4", 95, "")), "learner progress"},
		{"two learners applied", []rsEvent{nodeAt(2000, 1, mem("n2", 9, etcdtrace.MemberAddLearner, "n4", rsVoters, "n3,n4"))}, "learner limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runReconfig(tc.evs)
			require.False(t, r.OK, "the check must fail")
			assert.Contains(t, r.Detail, tc.want)
		})
	}
}

// TestReconfigSafetyDriftedClock: the leader's health interval runs on
// its clock. Running at half speed, 8 s of world time since n3 last spoke
// are 4 s on its clock: n3 still counts. A message heard at the interval's
// edge is not judged.
func TestReconfigSafetyDriftedClock(t *testing.T) {
	drift := rsEvent{0, sim.Event{Kind: sim.KindFault, Host: 0, Name: string(sim.FaultClockDrift), Data: &sim.FaultDetail{Rate: 0.5}}}
	r := runReconfig([]rsEvent{drift, heardAt(1000, 0, 2), heardAt(8500, 0, 1),
		check(9000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, "")})
	require.True(t, r.OK, r.String())
	r = runReconfig([]rsEvent{heardAt(2000, 0, 2), heardAt(6500, 0, 1),
		check(7000, etcdtrace.MemberAddVoter, "n4", rsVoters, "", 0, errNES)})
	require.True(t, r.OK, r.String())
	assert.Contains(t, r.Detail, "1 not judged")
}
