package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestCacheMovesOnWhenItsMemberLosesTheLeader: the API server's etcd
// watches require a leader (k8s.io/apiserver, pkg/storage/etcd3/watcher.go,
// startWatching: clientv3.WithRequireLeader). When the member a cache
// watches is cut off from the others, it loses its leader and ends the
// watch with "etcdserver: no leader"; the Cacher's reflector takes that
// internal error as one to retry (cacher.go, NewCacherFromConfig:
// MaxInternalErrorRetryDuration) and watches again from its revision, on
// the next member, which has a leader. The cache stays ready and the
// client watch it serves stays open and gets the next write.
func TestCacheMovesOnWhenItsMemberLosesTheLeader(t *testing.T) {
	tw := newWorld(t, 44, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object
	tw.run(time.Second)
	id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.run(time.Second)
	ch := tw.server(0).caches["pods"]
	member := ch.client.Endpoint()
	tw.isolate(member, true)
	tw.run(8 * time.Second)
	assert.True(t, ch.ready, "the cache stayed ready")
	assert.NotEqual(t, member, ch.client.Endpoint(), "the cache moved to another member")
	tw.must(0, create(newPod("b")))
	tw.run(2 * time.Second)

	assert.Equal(t, []string{"ADDED b"}, kinds(distinctFrames(tw.eventsOf(id))), "the client watch lives on")
}

// TestCacheKeepsItsWatchesThroughAShortQuorumLoss: with two of three
// members down, no member has a leader and every etcd watch of the cache
// ends, or is refused, with "etcdserver: no leader". For 30 s of such
// errors the Cacher's reflector keeps watching again from its revision
// (client-go, tools/cache/reflector.go, watch: IsInternalError and
// retry.ShouldRetry; tools/cache/retry_with_deadline.go), so a quorum that
// is back within that time finds the cache ready with its client watches
// open, and the writes made then reach them. (Before: the first "no
// leader" closed every client watch and made the cache relist, so clients
// resumed into 429s and 410s and relisted after their backoff.)
func TestCacheKeepsItsWatchesThroughAShortQuorumLoss(t *testing.T) {
	tw := newWorld(t, 46, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object
	tw.run(time.Second)
	id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.run(time.Second)
	ch := tw.server(0).caches["pods"]
	down := tw.othersThan(ch.client.Endpoint())
	for _, m := range down {
		m.Crash()
	}
	tw.run(20 * time.Second)
	assert.True(t, ch.ready, "the cache stayed ready without a quorum")
	for _, m := range down {
		m.Restart()
	}
	tw.run(5 * time.Second)
	tw.must(0, create(newPod("b")))
	tw.run(2 * time.Second)

	assert.Equal(t, []string{"ADDED b"}, kinds(distinctFrames(tw.eventsOf(id))), "the client watch was kept and follows the writes")
	assert.True(t, ch.ready)
}

// TestCacheStartsOverAfter30sWithoutALeader: when the "no leader" errors
// last longer than MaxInternalErrorRetryDuration (30 s), ListAndWatch
// returns and the cache starts over (pkg/storage/cacher/cacher.go,
// startCaching): it closes the client watches it serves and relists once
// a quorum is back. A client resuming from before that list gets 410 Gone.
func TestCacheStartsOverAfter30sWithoutALeader(t *testing.T) {
	tw := newWorld(t, 47, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object
	tw.run(time.Second)
	id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.must(0, create(newPod("x"))) // the relist's revision will be past a's
	tw.run(time.Second)
	ch := tw.server(0).caches["pods"]
	down := tw.othersThan(ch.client.Endpoint())
	for _, m := range down {
		m.Crash()
	}
	tw.run(40 * time.Second)
	assert.False(t, ch.ready, "the cache gave up after 30 s and cannot relist")
	for _, m := range down {
		m.Restart()
	}
	tw.run(10 * time.Second)
	tw.must(0, create(newPod("b")))
	tw.run(2 * time.Second)

	evs := distinctFrames(tw.eventsOf(id))
	require.NotEmpty(t, evs)
	assert.Equal(t, apiwire.Closed, evs[len(evs)-1].Type, "the client watch is closed")
	assert.True(t, ch.ready, "the cache relisted")
	_, hasB := ch.store["/registry/pods/default/b"]
	assert.True(t, hasB, "and follows the writes again")

	again := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.run(time.Second)
	evs = distinctFrames(tw.eventsOf(again))
	require.Len(t, evs, 1)
	assert.Equal(t, 410, evs[0].Status.Code, "a resume from before the relist is gone")
}

// isolate cuts (or heals) the links between member and the other members.
func (tw *world) isolate(member sim.HostID, cut bool) {
	for _, m := range tw.othersThan(member) {
		if cut {
			tw.w.Network().Cut(member, m.ID())
			tw.w.Network().Cut(m.ID(), member)
		} else {
			tw.w.Network().Uncut(member, m.ID())
			tw.w.Network().Uncut(m.ID(), member)
		}
	}
}

// othersThan returns the etcd members other than member.
func (tw *world) othersThan(member sim.HostID) []*sim.Host {
	var out []*sim.Host
	for _, m := range tw.members {
		if m.ID() != member {
			out = append(out, m)
		}
	}
	return out
}

// TestIdleCacheKeepsItsMember: etcd sends no progress notification to a
// watch whose start revision is ahead of the store (etcd
// server/storage/mvcc/watchable_store.go, progressIfSync), so an idle
// resource's cache, watching from the revision after its list, hears
// nothing on its stream. Its member still answers the progress requests,
// as a real connection answers gRPC keepalives, so the cache stays on it.
func TestIdleCacheKeepsItsMember(t *testing.T) {
	tw := newWorld(t, 45, 1, nil)
	ch := tw.server(0).caches["replicasets"]
	require.NotNil(t, ch.wh)
	wh := ch.wh
	tw.run(20 * time.Second)
	assert.Same(t, wh, ch.wh, "the same etcd watch after 20 idle seconds")
	assert.Equal(t, ch.rev, ch.listRev, "nothing happened to replicasets")
}
