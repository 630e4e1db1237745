package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func TestElectsOneLeaderAndServes(t *testing.T) {
	cl := newCluster(t, 1, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client")
	var leaders []string
	cl.w.Subscribe(func(e *sim.Event) {
		if rs, ok := e.Data.(*etcdtrace.RaftState); ok && rs.Role == "leader" {
			leaders = append(leaders, fmt.Sprintf("%s@%d", rs.Member, rs.Term))
		}
	})
	cl.waitLeader(5 * time.Second)
	require.LessOrEqual(t, cl.w.Now(), sim.Time(5*time.Second))

	res, err := cl.put(c, "a", "1")
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Revision, "first write of a fresh store is revision 2")
	res, err = cl.put(c, "b", "2")
	require.NoError(t, err)
	require.Equal(t, int64(3), res.Revision)

	g, err := cl.get(c, "a", GetOptions{})
	require.NoError(t, err)
	v, ok := value(g)
	require.True(t, ok)
	require.Equal(t, "1", v)
	require.Equal(t, int64(2), g.KVs[0].ModRevision)
	require.Equal(t, int64(3), g.Revision)
	require.NotEmpty(t, g.Member)

	g, err = cl.get(c, "a", GetOptions{Rev: 1})
	require.NoError(t, err)
	require.Empty(t, g.KVs, "a did not exist at revision 1")

	hs := cl.requireConverged(2 * time.Second)
	require.Len(t, hs, 3)
	leaderIDs := map[uint64]bool{}
	isLeader := 0
	for _, m := range cl.members {
		var st StatusResult
		var err error
		done := false
		cl.w.After(0, "status", func() {
			(*c).Status(m.ID(), func(r StatusResult, e error) { st, err, done = r, e, true })
		})
		cl.await(time.Second, func() bool { return done })
		require.NoError(t, err)
		require.Equal(t, m.Name(), st.Member)
		require.Equal(t, int64(3), st.Revision)
		require.Equal(t, st.RaftIndex, st.RaftAppliedIndex)
		leaderIDs[st.Leader] = true
		if st.IsLeader {
			isLeader++
		}
	}
	require.Len(t, leaderIDs, 1)
	require.Equal(t, 1, isLeader)
	// One leader per term, and only one term needed here.
	seen := map[string]bool{}
	for _, l := range leaders {
		seen[l] = true
	}
	require.Len(t, seen, 1, "leaders: %v", leaders)
}

func TestWriteSurvivesLeaderCrash(t *testing.T) {
	cl := newCluster(t, 2, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client")
	lead := cl.waitLeader(5 * time.Second)
	for i := 0; i < 5; i++ {
		_, err := cl.put(c, fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i))
		require.NoError(t, err)
	}
	cl.members[lead].Crash()
	newLead := cl.waitLeader(5 * time.Second)
	require.NotEqual(t, lead, newLead)
	for i := 0; i < 5; i++ {
		g, err := cl.get(c, fmt.Sprintf("k%d", i), GetOptions{})
		require.NoError(t, err)
		v, ok := value(g)
		require.True(t, ok)
		require.Equal(t, fmt.Sprintf("v%d", i), v)
	}
	_, err := cl.put(c, "after", "crash")
	require.NoError(t, err)
	cl.members[lead].Restart()
	hs := cl.requireConverged(5 * time.Second)
	require.Len(t, hs, 3)
}

func TestRestartFromDiskAfterSnapshot(t *testing.T) {
	cl := newCluster(t, 3, 3, func(c *Config) { c.SnapshotCount = 5 }, sim.DiskSpec{})
	c := cl.addClient("client")
	lead := cl.waitLeader(5 * time.Second)
	follower := (lead + 1) % 3
	for i := 0; i < 23; i++ {
		_, err := cl.put(c, fmt.Sprintf("k%d", i%4), fmt.Sprintf("v%d", i))
		require.NoError(t, err)
	}
	cl.requireConverged(2 * time.Second)
	require.Greater(t, cl.member(follower).snapIndex, uint64(0), "the follower took its own snapshots")

	// Restart from its own snapshot + WAL.
	cl.members[follower].Crash()
	cl.members[follower].Restart()
	cl.requireConverged(5 * time.Second)

	// Fall far behind, so the leader must send a snapshot.
	last := cl.member(follower).node.Status().LastIndex
	cl.members[follower].Crash()
	for i := 0; i < 20; i++ {
		_, err := cl.put(c, fmt.Sprintf("k%d", i%4), fmt.Sprintf("w%d", i))
		require.NoError(t, err)
	}
	leaderSnap := cl.member(cl.leader()).snapIndex
	require.Greater(t, leaderSnap, last, "the leader compacted what the follower lacks")
	cl.members[follower].Restart()
	hs := cl.requireConverged(5 * time.Second)
	require.Len(t, hs, 3)
	require.GreaterOrEqual(t, cl.member(follower).snapIndex, leaderSnap, "caught up by a snapshot")
	// The WAL stays bounded by the snapshot count.
	for i := range cl.members {
		require.LessOrEqual(t, len(cl.members[i].Disk().Records(walFile)), 3*5+10)
	}
}

func TestTornWriteIsDroppedAtBoot(t *testing.T) {
	// Slow disks keep unsynced appends pending, so a torn crash tears one.
	disk := sim.DiskSpec{SyncBase: 20 * time.Millisecond}
	cl := newCluster(t, 4, 3, nil, disk)
	c := cl.addClient("client")
	cl.waitLeader(5 * time.Second)
	victim := cl.members[2]
	torn := 0
	for round := 0; round < 8; round++ {
		done := 0
		cl.w.After(0, "writes", func() {
			for i := 0; i < 5; i++ {
				(*c).Put(fmt.Sprintf("k%d", i), fmt.Sprintf("r%d", round), func(PutResult, error) { done++ })
			}
		})
		cl.w.RunFor(time.Duration(2+round*6) * time.Millisecond)
		cl.w.Inject(sim.Fault{Kind: sim.FaultTorn, Targets: [][]string{{victim.Name()}}})
		if _, dropped := loadDisk(victim.Disk()); dropped > 0 {
			torn++
		}
		cl.await(10*time.Second, func() bool { return done == 5 })
		victim.Restart()
		cl.requireConverged(5 * time.Second)
	}
	require.Positive(t, torn, "some crash tore a WAL record")
}

func TestLoadDiskDropsTornTail(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "disk"})
	w.RunFor(0)
	d := h.Disk()
	d.Append(walFile, encodeHardState(raftHS(1, 1, 1)))
	d.Append(walFile, encodeEntry(entry(1, 1, "a")))
	d.Sync(nil)
	w.RunFor(10 * time.Millisecond)
	d.Append(walFile, encodeEntry(entry(2, 1, "b")))
	d.Append(walFile, encodeEntry(entry(3, 1, "c")))
	w.Inject(sim.Fault{Kind: sim.FaultTorn, Targets: [][]string{{"disk"}}})
	ps, dropped := loadDisk(d)
	require.Equal(t, 1, dropped)
	require.Len(t, ps.Entries, 2)
	require.Equal(t, "b", string(ps.Entries[1].Data))
	require.Equal(t, uint64(1), ps.HardState.Commit)
}
