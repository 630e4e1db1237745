package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestCacheStartsOverWhenItsMemberLosesTheLeader: the API server's etcd
// watches require a leader (k8s.io/apiserver, pkg/storage/etcd3/watcher.go,
// startWatching: clientv3.WithRequireLeader). When the member a cache
// watches is cut off from the others, it loses its leader and ends the
// watch with "etcdserver: no leader"; the Cacher's reflector returns and
// the cache starts over (pkg/storage/cacher/cacher.go, startCaching): it
// closes the client watches it serves and relists from another member. A
// client resuming from before that list gets 410 Gone, the relist storm of
// a real etcd leader loss.
func TestCacheStartsOverWhenItsMemberLosesTheLeader(t *testing.T) {
	tw := newWorld(t, 44, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object
	tw.run(time.Second)
	id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.must(0, create(newPod("x"))) // the relist's revision will be past a's
	tw.run(time.Second)
	ch := tw.server(0).caches["pods"]
	member := ch.client.Endpoint()
	for _, m := range tw.members {
		if m.ID() != member {
			tw.w.Network().Cut(member, m.ID())
			tw.w.Network().Cut(m.ID(), member)
		}
	}
	tw.run(8 * time.Second)
	tw.must(0, create(newPod("b")))
	tw.run(2 * time.Second)

	evs := distinctFrames(tw.eventsOf(id))
	require.NotEmpty(t, evs)
	assert.Equal(t, apiwire.Closed, evs[len(evs)-1].Type, "the client watch is closed")
	assert.NotEqual(t, member, ch.client.Endpoint(), "the cache moved to another member")
	assert.True(t, ch.ready, "the cache relisted")
	_, hasB := ch.store["/registry/pods/default/b"]
	assert.True(t, hasB, "and follows the writes again")

	again := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	tw.run(time.Second)
	evs = distinctFrames(tw.eventsOf(again))
	require.Len(t, evs, 1)
	assert.Equal(t, 410, evs[0].Status.Code, "a resume from before the relist is gone")
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
