package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"

	"github.com/kubesim/kubesim/sim"
)

// TestAckBeforeFsync checks, on the trace, when the members send what a
// new proposal causes. The leader sends its appends the instant the
// request arrives, before its own fsync, in both cases (etcd's leader
// writes its log in parallel with replicating it). A follower acknowledges
// an append after its fsync normally, and the instant the append arrives
// with the ablation.
func TestAckBeforeFsync(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		t.Run(fmt.Sprintf("AckBeforeFsync=%v", ablate), func(t *testing.T) {
			disk := sim.DiskSpec{SyncBase: 10 * time.Millisecond}
			cl := newCluster(t, 10, 3, func(c *Config) { c.Ablations = ablation.When(ablate, ablation.AckBeforeFsync) }, disk)
			lead := cl.waitLeader(5 * time.Second)
			c := cl.addClient("client", lead)
			leader := cl.members[lead].ID()
			arrivals := 0
			inRequest := false // the leader's events since a request arrived
			appends := map[uint64]bool{}
			answering := map[sim.HostID]sim.Time{} // a follower's instant, when its last event is an append's arrival
			early, total := 0, 0
			cl.w.Subscribe(func(e *sim.Event) {
				if e.Host == leader && e.Kind != sim.KindSend {
					inRequest = e.Kind == sim.KindDeliver && e.Port == ClientPort
				}
				if e.Host != leader && e.Kind != sim.KindSend {
					answering[e.Host] = -1
					if e.Kind == sim.KindDeliver && appends[e.ID] {
						answering[e.Host] = e.At
					}
				}
				switch {
				case e.Kind == sim.KindDeliver && e.Host == leader && e.Port == ClientPort:
					arrivals++
				case e.Kind == sim.KindSend && e.Host == leader && e.Port == PeerPort && inRequest:
					appends[e.ID] = true
				case e.Kind == sim.KindDeliver && e.Port == PeerPort && appends[e.ID]:
					total++
				case e.Kind == sim.KindSend && e.Host != leader && e.Port == PeerPort && answering[e.Host] == e.At:
					early++
					answering[e.Host] = -1
				}
			})
			for i := 0; i < 5; i++ {
				_, err := cl.put(c, "k", fmt.Sprint(i))
				require.NoError(t, err)
			}
			require.Equal(t, 5, arrivals)
			require.Len(t, appends, 10, "the leader sends each proposal's appends at once, to both followers")
			require.Equal(t, 10, total)
			if ablate {
				require.Equal(t, 10, early, "acknowledgements leave before the entry is durable")
			} else {
				require.Zero(t, early, "acknowledgements wait for the follower's fsync")
			}
		})
	}
}

// TestDedup sends every client request twice (a duplicating link): the
// apply layer applies each write once, unless the apply-duplicates ablation
// is on.
func TestDedup(t *testing.T) {
	for _, noDedup := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoDedup=%v", noDedup), func(t *testing.T) {
			cl := newCluster(t, 11, 3, func(c *Config) { c.Ablations = ablation.When(noDedup, ablation.NoDedup) }, sim.DiskSpec{})
			lead := cl.waitLeader(5 * time.Second)
			c := cl.addClient("client", lead)
			cl.w.Network().SetLink(cl.host("client").ID(), cl.members[lead].ID(), sim.LinkSpec{Latency: time.Millisecond, Dup: 1})
			for i := 0; i < 3; i++ {
				_, err := cl.put(c, "k", fmt.Sprint(i))
				require.NoError(t, err)
			}
			hs := cl.requireConverged(2 * time.Second)
			want := int64(4)
			if noDedup {
				want = 7
			}
			require.Equal(t, want, hs["etcd-1"].Rev)
		})
	}
}

func TestSameSeedSameTrace(t *testing.T) {
	run := func(seed uint64) uint64 {
		cl := newCluster(t, seed, 3, func(c *Config) { c.SnapshotCount = 7 }, sim.DiskSpec{})
		c := cl.addClient("client")
		cl.w.Apply(sim.Schedule{
			{At: 2 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-1"}}, For: time.Second},
			{At: 4 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"*"}}, For: 2 * time.Second, Loss: 0.1, Dup: 0.1, Reorder: 0.2},
		})
		cl.w.RunFor(time.Second)
		for i := 0; i < 40; i++ {
			_, _ = cl.put(c, fmt.Sprintf("k%d", i%5), fmt.Sprint(i))
			_, _ = cl.get(c, fmt.Sprintf("k%d", i%3), GetOptions{})
		}
		cl.w.RunFor(3 * time.Second)
		cl.kvHashes()
		return cl.w.Trace().Hash()
	}
	a, b := run(42), run(42)
	require.Equal(t, a, b)
	require.NotEqual(t, a, run(43))
}

func TestIgnoreCompareAndWatchResumeFromNow(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		t.Run(fmt.Sprintf("ablated=%v", ablate), func(t *testing.T) {
			cl := newCluster(t, 12, 3, func(c *Config) {
				c.Ablations = ablation.When(ablate, ablation.IgnoreCompare, ablation.WatchResumeFromNow)
			}, sim.DiskSpec{})
			c := cl.addClient("client")
			cl.waitLeader(5 * time.Second)
			for i := 0; i < 3; i++ { // revisions 2..4
				_, err := cl.put(c, "k", fmt.Sprint(i))
				require.NoError(t, err)
			}
			var res TxnResult
			var err error
			done := false
			cl.w.After(0, "txn", func() {
				(*c).Txn(mvcc.TxnRequest{
					Compares: []mvcc.Compare{{Key: []byte("k"), Target: mvcc.CompareValue, Value: []byte("stale")}},
					Success:  []mvcc.Op{mvcc.OpPutOf([]byte("k"), []byte("swapped"), mvcc.PutOptions{})},
				}, func(r TxnResult, e error) { res, err, done = r, e, true })
			})
			cl.await(5*time.Second, func() bool { return done })
			require.NoError(t, err)
			require.Equal(t, ablate, res.Succeeded, "a failing compare succeeds only when ignored")

			var l watchLog
			cl.watch(c, WatchRequest{Key: "k", StartRev: 2}, &l)
			if ablate {
				require.Empty(t, l.revs, "history is skipped")
			} else {
				require.Equal(t, []int64{2, 3, 4}, l.revs)
			}
		})
	}
}
