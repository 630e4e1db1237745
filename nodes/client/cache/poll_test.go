package cache_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/stretchr/testify/require"
)

func pollEnv(seed uint64) *env {
	return newEnv(seed, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{PollInterval: 2 * time.Second}})
}

func TestPollModeListsInsteadOfWatching(t *testing.T) {
	e := pollEnv(21)
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	e.do(e.inf.Run) // the first list, at once
	require.True(t, e.inf.HasSynced())
	e.requireConverged(t)

	e.log = nil
	e.do(func() { e.create("c", nil); e.update("a"); e.del("b") })
	require.Empty(t, e.log, "nothing is seen before the next poll")
	e.World.RunFor(time.Second) // the poll at 2 s after the first list
	e.requireConverged(t)
	require.Equal(t, []string{"update a", "add c", "delete b (tombstone)"}, e.log, "a list diffed against the store")

	e.World.RunFor(10 * time.Second)
	srv := e.Server(0)
	require.Zero(t, srv.Requests[apiwire.VerbWatch], "never watches")
	require.GreaterOrEqual(t, srv.Requests[apiwire.VerbList], 6, "a list every 2 s")
	for _, rv := range srv.ListRVs {
		require.Equal(t, "", rv, "every poll is a quorum read")
	}
	require.Equal(t, cache.RelistInitial, e.relists[0].Reason)
	for _, r := range e.relists[1:] {
		require.Equal(t, cache.RelistPoll, r.Reason)
	}
}

func TestPollModeMissesShortLivedObjects(t *testing.T) {
	e := pollEnv(22)
	e.do(e.inf.Run)
	e.log = nil
	e.World.RunFor(200 * time.Millisecond)
	e.World.After(0, "test", func() { e.create("brief", nil) })
	e.World.RunFor(300 * time.Millisecond)
	e.World.After(0, "test", func() { e.del("brief") })
	e.World.RunFor(5 * time.Second)
	require.Empty(t, e.log, "created and deleted between two polls: never seen")
}

func TestPollModeStops(t *testing.T) {
	e := pollEnv(23)
	e.do(e.inf.Run)
	e.World.RunFor(5 * time.Second)
	e.inf.Stop()
	lists := e.Server(0).Requests[apiwire.VerbList]
	e.World.RunFor(10 * time.Second)
	require.Equal(t, lists, e.Server(0).Requests[apiwire.VerbList], "no poll after Stop")
}

func TestPollModeRetriesAtNextTick(t *testing.T) {
	e := pollEnv(24)
	e.do(func() { e.create("a", nil) })
	e.do(e.inf.Run)
	e.World.Host(e.Servers[0]).Crash()
	e.World.RunFor(3 * time.Second) // a poll is sent into the void
	e.World.Host(e.Servers[0]).Restart()
	e.do(func() { e.create("b", nil) })
	e.World.RunFor(30 * time.Second) // client timeouts, then polls again
	e.requireConverged(t)
	require.Zero(t, e.Server(0).Requests[apiwire.VerbWatch])
}
