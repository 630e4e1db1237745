package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// watchLog collects a stream's responses.
type watchLog struct {
	resps []WatchResponse
	revs  []int64 // ModRevision of every event, in order
}

func (l *watchLog) add(r WatchResponse) {
	l.resps = append(l.resps, r)
	for _, ev := range r.Events {
		l.revs = append(l.revs, ev.Kv.ModRevision)
	}
}

func (cl *cluster) watch(c **Client, req WatchRequest, l *watchLog) **WatchHandle {
	wh := new(*WatchHandle)
	cl.w.After(0, "test-watch", func() { *wh = (*c).Watch(req, l.add) })
	cl.w.RunFor(10 * time.Millisecond)
	return wh
}

func revRange(from, to int64) []int64 {
	var out []int64
	for r := from; r <= to; r++ {
		out = append(out, r)
	}
	return out
}

func TestWatchInOrderAndResumeAfterMemberCrash(t *testing.T) {
	cl := newCluster(t, 7, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client")
	cl.waitLeader(5 * time.Second)
	for i := 0; i < 5; i++ { // revisions 2..6
		_, err := cl.put(c, fmt.Sprintf("k%d", i), "a")
		require.NoError(t, err)
	}
	var l watchLog
	wh := cl.watch(c, WatchRequest{Key: "k", End: "l", StartRev: 2}, &l)
	ep := (*wh).Endpoint()
	for i := 0; i < 5; i++ { // revisions 7..11
		_, err := cl.put(c, fmt.Sprintf("k%d", i), "b")
		require.NoError(t, err)
	}
	cl.w.RunFor(100 * time.Millisecond)
	require.Equal(t, revRange(2, 11), l.revs, "catch-up then live events, in order, once each")
	require.Equal(t, "a", string(l.resps[0].Events[0].Kv.Value))

	// The member crashes: the stream falls silent. Resume elsewhere from
	// the last revision seen + 1.
	cl.w.Host(ep).Crash()
	cl.w.After(0, "failover", func() {
		for (*c).Endpoint() == ep {
			(*c).NextEndpoint()
		}
	})
	cl.waitLeader(5 * time.Second)
	for i := 0; i < 3; i++ { // revisions 12..14
		_, err := cl.put(c, "k0", fmt.Sprint(i))
		require.NoError(t, err)
	}
	require.Equal(t, revRange(2, 11), l.revs)
	cl.watch(c, WatchRequest{Key: "k", End: "l", StartRev: l.revs[len(l.revs)-1] + 1}, &l)
	_, err := cl.put(c, "k1", "c") // revision 15
	require.NoError(t, err)
	cl.w.RunFor(100 * time.Millisecond)
	require.Equal(t, revRange(2, 15), l.revs, "no gap, no duplicate across the resume")
}

func TestWatchCompactedAndProgress(t *testing.T) {
	cl := newCluster(t, 8, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client")
	cl.waitLeader(5 * time.Second)
	for i := 0; i < 6; i++ {
		_, err := cl.put(c, "k", fmt.Sprint(i))
		require.NoError(t, err)
	}
	var cerr error
	done := false
	cl.w.After(0, "compact", func() { (*c).Compact(5, func(err error) { cerr, done = err, true }) })
	cl.await(5*time.Second, func() bool { return done })
	require.NoError(t, cerr)
	_, err := cl.get(c, "k", GetOptions{Rev: 3})
	require.ErrorIs(t, err, mvcc.ErrCompacted)
	require.Equal(t, "mvcc: required revision has been compacted", err.Error())

	var l watchLog
	cl.watch(c, WatchRequest{Key: "k", StartRev: 3}, &l)
	require.Len(t, l.resps, 1)
	require.True(t, l.resps[0].Canceled)
	require.Equal(t, int64(5), l.resps[0].CompactRevision)

	var p watchLog
	wh := cl.watch(c, WatchRequest{Key: "k"}, &p)
	cl.w.After(0, "progress", func() { (*wh).RequestProgress() })
	cl.w.RunFor(20 * time.Millisecond)
	require.Len(t, p.resps, 1)
	require.True(t, p.resps[0].Progress)
	require.Equal(t, int64(7), p.resps[0].Revision)
}

func TestWatchStreamBreaksOnLoss(t *testing.T) {
	cl := newCluster(t, 9, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client", 0)
	cl.waitLeader(5 * time.Second)
	var l watchLog
	cl.watch(c, WatchRequest{Key: "k", End: "l"}, &l)
	client := cl.host("client")
	cl.w.Network().SetLink(cl.members[0].ID(), client.ID(), sim.LinkSpec{Latency: time.Millisecond, Loss: 0.3})
	for i := 0; i < 20 && (len(l.resps) == 0 || l.resps[len(l.resps)-1].Err == nil); i++ {
		_, _ = cl.put(c, "k", fmt.Sprint(i))
	}
	require.NotEmpty(t, l.resps)
	last := l.resps[len(l.resps)-1]
	require.ErrorIs(t, last.Err, ErrWatchBroken)
	for i := 1; i < len(l.revs); i++ {
		require.Equal(t, l.revs[i-1]+1, l.revs[i], "delivered events have no gap")
	}
}

// TestRestartedClientsStreamsAreNew: a member tells watch streams apart by
// client host and stream number, and keeps a stream until told to drop it.
// A client process that restarts opens new streams (new gRPC streams on new
// connections), so its first watch must not be taken for its
// predecessor's first one: here the predecessor watched "a", the new
// process watches "b", and must get b's events, not be bound to the old
// stream on "a" (which answers progress requests and sends nothing).
func TestRestartedClientsStreamsAreNew(t *testing.T) {
	cl := newCluster(t, 9, 3, nil, sim.DiskSpec{})
	c := cl.addClient("client", 1)
	cl.waitLeader(5 * time.Second)
	var old watchLog
	cl.watch(c, WatchRequest{Key: "a"}, &old)
	cl.w.RunFor(100 * time.Millisecond)
	host, _ := cl.w.HostByName("client")
	host.Crash()
	host.Restart() // NewClient runs again: *c is the new process's client
	cl.w.RunFor(100 * time.Millisecond)
	var l watchLog
	cl.watch(c, WatchRequest{Key: "b"}, &l)
	put, err := cl.put(c, "b", "x")
	require.NoError(t, err)
	cl.w.RunFor(100 * time.Millisecond)
	require.Equal(t, []int64{put.Header.Revision}, l.revs, "the new process's watch sees its own key")
}
