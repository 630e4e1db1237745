package etcd

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// addJoiner adds a host running a member that joins the cluster (Join) with
// the next ID, and returns its index and Peer.
func (cl *cluster) addJoiner(mod func(*Config)) (int, Peer) {
	i := len(cl.members)
	p := Peer{ID: uint64(i + 1), Host: sim.HostID(i), Name: "etcd-" + strconv.Itoa(i+1)}
	peers := append(append([]Peer(nil), cl.peers...), p)
	cfg := Config{ID: p.ID, Peers: peers, Join: true}
	if mod != nil {
		mod(&cfg)
	}
	h := cl.w.MustAddHost(sim.HostSpec{Name: p.Name, Role: "etcd", Boot: Boot(cfg)})
	require.Equal(cl.t, p.Host, h.ID())
	cl.members = append(cl.members, h)
	return i, p
}

// memberCall runs one member call and waits for its answer.
func (cl *cluster) memberCall(call func(done func(MemberListResult, error))) (MemberListResult, error) {
	var res MemberListResult
	var err error
	done := false
	cl.w.After(0, "test-member", func() {
		call(func(r MemberListResult, e error) { res, err, done = r, e, true })
	})
	cl.await(30*time.Second, func() bool { return done })
	return res, err
}

// raftLeader returns the index of a live leader, or -1.
func (cl *cluster) raftLeader() int {
	for i := range cl.members {
		if m := cl.member(i); m != nil && m.node.Role() == raft.Leader {
			return i
		}
	}
	return -1
}

func memberIDs(ms []Member) (voters, learners []uint64) {
	for _, m := range ms {
		if m.IsLearner {
			learners = append(learners, m.ID)
		} else {
			voters = append(voters, m.ID)
		}
	}
	return voters, learners
}

// TestMemberAddLearnerPromote: the operator's way to add a member (etcd's
// "learner first" procedure): MemberAdd as learner, the new member boots
// with Join and catches up (by snapshot), serves only serializable reads,
// is promoted once in sync, and every member traces each change.
func TestMemberAddLearnerPromote(t *testing.T) {
	cl := newCluster(t, 7, 3, func(c *Config) { c.SnapshotCount = 20 }, sim.DiskSpec{})
	var evs []etcdtrace.Membership
	var calls []etcdtrace.MemberCall
	cl.w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.Membership:
			evs = append(evs, *d)
		case *etcdtrace.MemberCall:
			calls = append(calls, *d)
		}
	})
	j, p4 := cl.addJoiner(func(c *Config) { c.SnapshotCount = 20 })
	cl.w.RunFor(3 * time.Second)
	require.GreaterOrEqual(t, cl.raftLeader(), 0)
	c := cl.addClient("c", 0, 1, 2)
	for i := 0; i < 30; i++ {
		_, err := cl.put(c, "k"+strconv.Itoa(i), "v")
		require.NoError(t, err)
	}
	res, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(p4, true, d) })
	require.NoError(t, err)
	v, l := memberIDs(res.Members)
	assert.Equal(t, []uint64{1, 2, 3}, v)
	assert.Equal(t, []uint64{4}, l)

	// A second learner is refused (maxLearners).
	_, err = cl.memberCall(func(d func(MemberListResult, error)) {
		(*c).MemberAdd(Peer{ID: 9, Host: 9, Name: "etcd-9"}, true, d)
	})
	require.ErrorIs(t, err, ErrTooManyLearners)

	// The learner catches up and refuses KV requests but serializable reads.
	cl.await(10*time.Second, func() bool {
		m := cl.member(j)
		return m != nil && m.applied >= cl.member(cl.raftLeader()).applied && m.isLearner()
	})
	cj := cl.addClient("cj", j)
	_, err = cl.put(cj, "x", "y")
	require.ErrorIs(t, err, ErrLearnerNotSupported)
	g, err := cl.get(cj, "k1", GetOptions{Serializable: true})
	require.NoError(t, err)
	val, ok := value(g)
	assert.True(t, ok)
	assert.Equal(t, "v", val)
	_, err = cl.get(cj, "k1", GetOptions{})
	require.ErrorIs(t, err, ErrLearnerNotSupported)

	res, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberPromote(4, d) })
	require.NoError(t, err)
	v, l = memberIDs(res.Members)
	assert.Equal(t, []uint64{1, 2, 3, 4}, v)
	assert.Empty(t, l)
	cl.w.RunFor(time.Second)
	assert.Equal(t, raft.ConfState{Voters: []uint64{1, 2, 3, 4}}, cl.member(j).node.ConfState())
	_, err = cl.put(cj, "x", "y")
	require.NoError(t, err, "a voter serves writes")

	// Every member traced both changes.
	counts := map[string]int{}
	for _, e := range evs {
		counts[e.Change]++
	}
	assert.Equal(t, 3, counts[etcdtrace.MemberAddLearner], "the 3 voters; the learner got a snapshot that holds it")
	assert.Equal(t, 4, counts[etcdtrace.MemberPromote])
	// And the client traced its calls, the refused one with its error.
	require.Len(t, calls, 3)
	assert.Equal(t, etcdtrace.MemberCall{Client: "c", Op: etcdtrace.MemberAddLearner, NodeID: 4}, calls[0])
	assert.Equal(t, etcdtrace.MemberCall{Client: "c", Op: etcdtrace.MemberAddLearner, NodeID: 9, Err: ErrTooManyLearners.Error()}, calls[1])
	assert.Equal(t, etcdtrace.MemberCall{Client: "c", Op: etcdtrace.MemberPromote, NodeID: 4}, calls[2])
}

// TestMemberRemoveAndRestart: a removed member stops; the membership
// survives restarts of every member (WAL replay and snapshots).
func TestMemberRemoveAndRestart(t *testing.T) {
	cl := newCluster(t, 3, 3, func(c *Config) { c.SnapshotCount = 10 }, sim.DiskSpec{})
	cl.w.RunFor(3 * time.Second)
	lead := cl.raftLeader()
	require.GreaterOrEqual(t, lead, 0)
	victim := (lead + 1) % 3
	c := cl.addClient("c")
	res, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberRemove(uint64(victim+1), d) })
	require.NoError(t, err)
	v, _ := memberIDs(res.Members)
	assert.Len(t, v, 2)
	cl.w.RunFor(time.Second)
	assert.True(t, cl.member(victim).stopped, "a removed member stops")
	for i := 0; i < 15; i++ {
		_, err := cl.put(c, "k"+strconv.Itoa(i), "v")
		require.NoError(t, err)
	}
	for i := range cl.members {
		cl.members[i].Crash()
		cl.members[i].Restart()
	}
	cl.w.RunFor(5 * time.Second)
	for i := range cl.members {
		if i == victim {
			continue
		}
		got, _ := memberIDs(cl.member(i).cluster)
		assert.Equal(t, v, got, "member %d after restart", i)
		assert.Equal(t, raft.ConfState{Voters: v}, cl.member(i).node.ConfState())
	}
	_, err = cl.put(c, "after", "v")
	require.NoError(t, err)
	// The removed ID cannot come back.
	_, err = cl.memberCall(func(d func(MemberListResult, error)) {
		(*c).MemberAdd(cl.peers[victim], false, d)
	})
	require.ErrorIs(t, err, ErrIDRemoved)
}

// TestMemberStrictReconfig: etcd's strict reconfiguration checks refuse a
// change that would lose quorum with the connected members, and promoting a
// learner that is not in sync.
func TestMemberStrictReconfig(t *testing.T) {
	cl := newCluster(t, 5, 3, nil, sim.DiskSpec{})
	_, p4 := cl.addJoiner(nil)
	cl.w.RunFor(3 * time.Second)
	lead := cl.raftLeader()
	require.GreaterOrEqual(t, lead, 0)
	c := cl.addClient("c", lead)
	down := (lead + 1) % 3
	cl.members[down].Crash()
	cl.w.RunFor(6 * time.Second) // past the health interval
	_, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(p4, false, d) })
	require.ErrorIs(t, err, ErrNotEnoughStartedMembers, "2 of 4 voters would be connected")
	_, err = cl.memberCall(func(d func(MemberListResult, error)) {
		(*c).MemberRemove(uint64((lead+2)%3+1), d)
	})
	require.ErrorIs(t, err, ErrNotEnoughStartedMembers, "1 of 2 voters would be left")
	// Removing the member that is down is allowed.
	cl.members[down].Restart()
	cl.w.RunFor(6 * time.Second)

	// A learner cut off from everyone cannot be promoted.
	_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(p4, true, d) })
	require.NoError(t, err)
	cl.partition([]*sim.Host{cl.members[3]}, []*sim.Host{cl.members[0], cl.members[1], cl.members[2], cl.host("c")})
	for i := 0; i < 20; i++ {
		_, err := cl.put(c, "k"+strconv.Itoa(i), "v")
		require.NoError(t, err)
	}
	_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberPromote(4, d) })
	require.ErrorIs(t, err, ErrLearnerNotReady)
}

// TestMemberAddPromoteQuorumChecks pins etcd v3.7.3's strict checks
// (server.go mayAddMember with isConnectedToQuorumAfterAddingNewMemberSince,
// and mayPromoteMember with membership.IsReadyToPromoteMember), found by the
// conformance suite against an embedded etcd:
//   - a voter added to a one-member cluster is accepted (the one exception
//     of IsReadyToAddVotingMember), and, never started, takes the quorum:
//     afterwards even a learner is refused as "unhealthy cluster" (the new
//     member counts as down, and 1 of 3 is no quorum) instead of being
//     proposed to a log that cannot commit, and a voter as "not enough
//     started members";
//   - with one voter of five down, a learner and a voter can still be
//     added (4 connected of 6 is a quorum), where checking that every
//     voter is connected (etcd v3.5's isConnectedFullySince) refused;
//   - with one voter of three down, an in-sync learner is promoted: it
//     counts as started (3 of 4), and no connectivity is checked.
func TestMemberAddPromoteQuorumChecks(t *testing.T) {
	t.Run("one-member-cluster", func(t *testing.T) {
		cl := newCluster(t, 3, 1, nil, sim.DiskSpec{})
		c := cl.addClient("c")
		cl.w.RunFor(3 * time.Second)
		h := cl.w.MustAddHost(sim.HostSpec{Name: "unstarted", Role: "etcd"}) // nobody listens
		_, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(Peer{ID: 2, Host: h.ID()}, false, d) })
		require.NoError(t, err, "one started member may grow to two")
		_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(Peer{ID: 3, Host: h.ID()}, true, d) })
		require.ErrorIs(t, err, ErrUnhealthy, "1 connected of 3 voters-to-be")
		_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(Peer{ID: 3, Host: h.ID()}, false, d) })
		require.ErrorIs(t, err, ErrNotEnoughStartedMembers, "1 started of 3")
		assert.Equal(t, "etcdserver: unhealthy cluster", ErrUnhealthy.Error())
		// What a client sees of etcd's cluster service: an unknown ID as
		// rpctypes.ErrGRPCMemberNotFound, and a header without a store
		// revision (v3rpc/member.go, ClusterServer.header).
		_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberRemove(99, d) })
		require.ErrorIs(t, err, ErrIDNotFound)
		assert.Equal(t, "etcdserver: member not found", err.Error())
		res, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberList(d) })
		require.NoError(t, err)
		assert.Zero(t, res.Revision)
		assert.Len(t, res.Members, 2)
	})
	t.Run("five-voters-one-down", func(t *testing.T) {
		cl := newCluster(t, 5, 5, nil, sim.DiskSpec{})
		cl.w.RunFor(3 * time.Second)
		lead := cl.raftLeader()
		require.GreaterOrEqual(t, lead, 0)
		c := cl.addClient("c", lead)
		cl.members[(lead+1)%5].Crash()
		cl.w.RunFor(6 * time.Second) // past the health interval
		h := cl.w.MustAddHost(sim.HostSpec{Name: "unstarted", Role: "etcd"})
		_, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(Peer{ID: 6, Host: h.ID()}, true, d) })
		require.NoError(t, err, "learner: 4 connected of 6")
		_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberRemove(6, d) })
		require.NoError(t, err)
		_, err = cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(Peer{ID: 7, Host: h.ID()}, false, d) })
		require.NoError(t, err, "voter: 4 started and connected of 6")
	})
	t.Run("promote-with-a-voter-down", func(t *testing.T) {
		cl := newCluster(t, 5, 3, nil, sim.DiskSpec{})
		_, p4 := cl.addJoiner(nil)
		cl.members[3].Crash() // starts once it is a member
		cl.w.RunFor(3 * time.Second)
		lead := cl.raftLeader()
		require.GreaterOrEqual(t, lead, 0)
		c := cl.addClient("c", lead)
		_, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberAdd(p4, true, d) })
		require.NoError(t, err)
		cl.members[3].Restart()
		cl.w.RunFor(5 * time.Second) // the learner catches up
		cl.members[(lead+1)%3].Crash()
		cl.w.RunFor(6 * time.Second) // past the health interval
		res, err := cl.memberCall(func(d func(MemberListResult, error)) { (*c).MemberPromote(4, d) })
		require.NoError(t, err, "the learner counts as started: 3 of 4")
		voters, learners := memberIDs(res.Members)
		assert.Len(t, voters, 4)
		assert.Empty(t, learners)
	})
}
