package cache_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/stretchr/testify/require"
)

// churn runs an informer through writes, a dropped event, a compaction and
// a server crash, and returns the trace hash.
func churn(seed uint64) uint64 {
	e := newEnv(seed, 2, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	e.do(e.inf.Run)
	e.do(func() { e.Server(0).DropWatchEvents = 1; e.Server(1).DropWatchEvents = 1; e.del("a") })
	e.Backend.Compact()
	e.do(func() { e.create("c", nil) })
	e.World.Host(e.Servers[0]).Crash()
	e.do(func() { e.create("d", nil) })
	e.World.RunFor(3 * time.Minute)
	return e.World.Trace().Hash()
}

func TestDeterministicTrace(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		require.Equal(t, churn(seed), churn(seed), "seed %d", seed)
	}
}

func TestBookmarksAdvanceLastRV(t *testing.T) {
	e := newEnv(11, 1, cache.InformerConfig{})
	e.Backend.BookmarkEvery = 10 * time.Second
	e.World.Host(e.Servers[0]).Crash()
	e.World.Host(e.Servers[0]).Restart() // boots again with bookmarks on
	e.do(func() { e.create("a", nil) })
	e.do(e.inf.Run)
	require.Equal(t, "1", e.inf.LastSyncResourceVersion())
	e.do(func() {
		l := &model.Lease{}
		l.Name, l.Namespace = "x", "default"
		e.writer.Leases("default").Create(l, func(model.Object, error) {})
	})
	e.World.RunFor(10 * time.Second)
	require.Equal(t, "2", e.inf.LastSyncResourceVersion(), "a bookmark carried the revision of a write to another resource")
	require.Len(t, e.inf.GetStore().List(), 1)
}
