package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// tracedLog is a member's durable log as its etcdtrace.Persist events
// tell it: a snapshot and the term of each later entry.
type tracedLog struct {
	snap, snapTerm uint64
	terms          []uint64 // terms[i]: entry snap+1+i
}

func (l *tracedLog) replay(d *etcdtrace.Persist) {
	if d.Boot || d.SnapIndex > 0 {
		*l = tracedLog{snap: d.SnapIndex, snapTerm: d.SnapTerm}
	}
	for _, r := range d.Runs {
		for i := r.From; i <= r.To; i++ {
			if i <= l.snap {
				continue
			}
			l.terms = append(l.terms[:i-l.snap-1], r.Term)
		}
	}
}

// TestPersistTracesTheDurableLog: a member's etcdtrace.Persist events,
// replayed, give the log its disk holds: the same last index and, above
// its latest snapshot (which it takes on its own, untraced), the same
// terms. Followers restart from their disk, one after falling so far
// behind that the leader sends it a snapshot, and one after a torn write.
func TestPersistTracesTheDurableLog(t *testing.T) {
	cl := newCluster(t, 3, 3, func(c *Config) { c.SnapshotCount = 5 }, sim.DiskSpec{SyncBase: 5 * time.Millisecond})
	logs := map[string]*tracedLog{}
	boots, sent := map[string]int{}, 0 // sent: snapshots from the leader
	cl.w.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*etcdtrace.Persist); ok {
			if logs[d.Member] == nil {
				require.True(t, d.Boot, "a member's first Persist is its boot's")
				logs[d.Member] = &tracedLog{}
			}
			if d.Boot {
				boots[d.Member]++
			} else if d.SnapIndex > 0 {
				sent++
			}
			logs[d.Member].replay(d)
		}
	})
	c := cl.addClient("client")
	lead := cl.waitLeader(5 * time.Second)
	f1, f2 := (lead+1)%3, (lead+2)%3
	write := func(n int, tag string) {
		for i := 0; i < n; i++ {
			_, err := cl.put(c, fmt.Sprintf("k%d", i%4), fmt.Sprintf("%s%d", tag, i))
			require.NoError(t, err)
		}
	}
	write(12, "a")
	cl.members[f1].Crash()
	write(20, "b") // the leader compacts past f1's log: f1 gets a snapshot
	cl.members[f1].Restart()
	cl.requireConverged(5 * time.Second)
	cl.w.After(0, "writes", func() {
		for i := 0; i < 3; i++ {
			(*c).Put(fmt.Sprintf("t%d", i), "torn", func(PutResult, error) {})
		}
	})
	cl.w.RunFor(3 * time.Millisecond)
	cl.w.Inject(sim.Fault{Kind: sim.FaultTorn, Targets: [][]string{{cl.members[f2].Name()}}})
	cl.members[f2].Restart()
	write(4, "c")
	cl.requireConverged(5 * time.Second)

	for i, h := range cl.members {
		name := cl.peers[i].Name
		ps, _ := loadDisk(h.Disk())
		var snap uint64
		if ps.Snapshot != nil {
			snap = ps.Snapshot.Index
		}
		l := logs[name]
		require.NotNil(t, l, name)
		last := snap + uint64(len(ps.Entries))
		require.Equal(t, last, l.snap+uint64(len(l.terms)), "%s: the last durable index", name)
		require.GreaterOrEqual(t, snap, l.snap, "%s: a traced snapshot is on the disk or compacted past", name)
		for _, e := range ps.Entries {
			require.Equal(t, e.Term, termAt(l, e.Index), "%s: the term of entry %d", name, e.Index)
		}
	}
	require.Equal(t, 2, boots[cl.peers[f1].Name], "the restarted followers traced their boots")
	require.Equal(t, 2, boots[cl.peers[f2].Name])
	require.Positive(t, sent, "a follower got the leader's snapshot")
}

func termAt(l *tracedLog, i uint64) uint64 {
	if i == l.snap {
		return l.snapTerm
	}
	if i < l.snap || i > l.snap+uint64(len(l.terms)) {
		return 0
	}
	return l.terms[i-l.snap-1]
}

func TestTermRuns(t *testing.T) {
	ents := []raft.Entry{{Index: 4, Term: 1}, {Index: 5, Term: 1}, {Index: 6, Term: 3}, {Index: 7, Term: 3}, {Index: 8, Term: 4}}
	require.Equal(t, []etcdtrace.TermRun{{From: 4, To: 5, Term: 1}, {From: 6, To: 7, Term: 3}, {From: 8, To: 8, Term: 4}}, termRuns(nil, ents))
	require.Empty(t, termRuns(nil, nil))
}
