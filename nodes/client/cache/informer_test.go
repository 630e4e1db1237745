package cache_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/stretchr/testify/require"
)

func TestListThenWatch(t *testing.T) {
	e := newEnv(1, 1, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	require.False(t, e.inf.HasSynced())
	e.do(e.inf.Run)
	require.True(t, e.inf.HasSynced())
	e.requireConverged(t)
	require.Equal(t, []apitrace.Relist{{Informer: "informer/pods", Resource: "pods", Reason: "initial", RV: "2", Items: 2}}, e.relists)
	require.Equal(t, 1, e.Server(0).Requests[apiwire.VerbList])

	e.do(func() { e.create("c", nil); e.update("a"); e.del("b") })
	e.requireConverged(t)
	require.Equal(t, []string{"add a (initial)", "add b (initial)", "add c", "delete b", "update a"}, e.log)
	require.Equal(t, "5", e.inf.LastSyncResourceVersion())
	var types []string
	for _, ev := range e.events {
		types = append(types, ev.Type+" "+ev.Key+"@"+ev.RV)
	}
	require.Equal(t, []string{"add default/a@1", "add default/b@2", "add default/c@3", "delete default/b@4", "update default/a@5"}, types)
}

func TestInitialListResourceVersion(t *testing.T) {
	for _, tc := range []struct {
		consistent bool
		rv         string
	}{{false, "0"}, {true, ""}} {
		e := newEnv(2, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{ConsistentInitialList: tc.consistent}})
		e.do(e.inf.Run)
		require.True(t, e.inf.HasSynced())
		require.Equal(t, []string{tc.rv}, e.Server(0).ListRVs)
	}
}

func TestResumeAfterDroppedStream(t *testing.T) {
	e := newEnv(3, 1, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil); e.create("c", nil) })
	e.do(e.inf.Run)
	e.do(func() { e.Server(0).DropWatchEvents = 1; e.del("b") })
	e.do(func() { e.create("d", nil) }) // the gap shows: the stream breaks
	e.World.RunFor(time.Second)
	e.requireConverged(t)
	require.Len(t, e.relists, 1, "resumed from the last RV, no relist")
	require.Equal(t, 2, e.Server(0).Requests[apiwire.VerbWatch])
	require.Contains(t, e.log, "delete b")
}

// TestResumeAfterServerClosedStream: a stream the server closes cleanly
// (the cacher's terminateAllWatchers) is resumed from the last
// resourceVersion, as a dropped one is, without a relist.
func TestResumeAfterServerClosedStream(t *testing.T) {
	e := newEnv(3, 1, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	e.do(e.inf.Run)
	e.World.RunFor(2 * time.Second) // not a "very short watch"
	e.do(func() { e.Server(0).CloseWatches(); e.del("b") })
	e.World.RunFor(time.Second)
	e.requireConverged(t)
	require.Len(t, e.relists, 1, "resumed from the last RV, no relist")
	require.Equal(t, 2, e.Server(0).Requests[apiwire.VerbWatch])
	require.Contains(t, e.log, "delete b")
}

func TestRelistOnGone(t *testing.T) {
	for _, rv0 := range []bool{false, true} {
		t.Run(map[bool]string{false: "relist-from-last-rv", true: "ablation-relist-rv0"}[rv0], func(t *testing.T) {
			testRelistOnGone(t, rv0)
		})
	}
}

func testRelistOnGone(t *testing.T, rv0 bool) {
	e := newEnv(4, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Ablations: ablation.When(rv0, ablation.RelistRV0)}})
	e.do(func() { e.create("a", nil); e.create("b", nil); e.create("c", nil) })
	e.do(e.inf.Run)
	e.do(func() { e.Server(0).DropWatchEvents = 1; e.del("b") })
	e.Backend.Compact()
	var goneAt sim.Time
	e.World.Subscribe(func(ev *sim.Event) {
		if _, ok := ev.Data.(*apitrace.Relist); ok {
			goneAt = ev.At
		}
	})
	start := e.World.Now()
	e.do(func() { e.create("d", nil) })
	e.World.RunFor(5 * time.Second)
	e.requireConverged(t)
	require.Len(t, e.relists, 2)
	require.Equal(t, cache.RelistGone, e.relists[1].Reason)
	// The relist waits the reflector's first backoff: [800 ms, 1.6 s).
	wait := goneAt.Sub(start)
	require.Greater(t, wait, 800*time.Millisecond)
	require.Less(t, wait, 1700*time.Millisecond)
	require.Contains(t, e.log, "delete b (tombstone)")
	require.Contains(t, e.log, "add d")
	if rv0 {
		require.Equal(t, []string{"0", "0"}, e.Server(0).ListRVs)
	} else {
		require.Equal(t, []string{"0", "3"}, e.Server(0).ListRVs, "relist from the last RV seen")
	}
}

func TestNoResumeAblationMissesEvents(t *testing.T) {
	e := newEnv(3, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Ablations: ablation.Of(ablation.NoResume)}})
	e.do(func() { e.create("a", nil); e.create("b", nil); e.create("c", nil) })
	e.do(e.inf.Run)
	e.do(func() { e.Server(0).DropWatchEvents = 1; e.del("b") })
	e.do(func() { e.create("d", nil) })
	e.World.RunFor(time.Second)
	require.Len(t, e.relists, 1)
	require.NotEqual(t, e.truth(), e.stored())
	_, stale := e.inf.Lister().Get("default/b")
	require.True(t, stale, "the deletion of b was missed")
	_, ok := e.inf.Lister().Get("default/d")
	require.True(t, ok, "the re-watch from now still sees the present")
}

// TestFailoverWhenWatchServerCrashes: the server of the watch crashes
// and stays down; the connection fails its health check, which client-go's
// watch stream reports as an ERROR event (TestLostConnectionRelists), so
// the reflector relists from its last resourceVersion on the other replica
// and converges.
func TestFailoverWhenWatchServerCrashes(t *testing.T) {
	e := newEnv(5, 2, cache.InformerConfig{})
	e.do(func() { e.create("a", nil) })
	e.do(e.inf.Run)
	serving, other := -1, -1
	for i := range e.Servers {
		if e.Server(i).Requests[apiwire.VerbWatch] > 0 {
			serving, other = i, 1-i
		}
	}
	require.NotEqual(t, -1, serving)
	lastRV := e.inf.Reflector().LastSyncResourceVersion()
	e.World.Host(e.Servers[serving]).Crash()
	e.do(func() { e.create("b", nil); e.del("a") })
	e.World.RunFor(2 * time.Minute)
	e.requireConverged(t)
	require.Len(t, e.relists, 2)
	require.Equal(t, cache.RelistWatchError, e.relists[1].Reason)
	require.Equal(t, []string{lastRV}, e.Server(other).ListRVs, "relisted on the other replica from the last RV")
}

func TestResyncAndLister(t *testing.T) {
	e := newEnv(6, 1, cache.InformerConfig{ResyncPeriod: 30 * time.Second})
	e.do(func() {
		e.create("a", map[string]string{"app": "web"})
		e.create("b", map[string]string{"app": "db"})
		e.writer.Resource("pods", "other").Create(func() model.Object { p := pod("c", map[string]string{"app": "web"}); p.Namespace = "other"; return p }(), func(model.Object, error) {})
	})
	e.do(e.inf.Run)
	e.log = nil
	e.World.RunFor(30 * time.Second)
	require.Equal(t, []string{"update a", "update b", "update c"}, e.log)

	web := e.inf.Lister().List(model.MustParseSelector("app=web"))
	require.Len(t, web, 2)
	require.Equal(t, "default/a", cache.MetaNamespaceKeyFunc(web[0]))
	require.Equal(t, "other/c", cache.MetaNamespaceKeyFunc(web[1]))
	require.Len(t, e.inf.Lister().ByNamespace("other").List(model.Everything()), 1)
	_, ok := e.inf.Lister().ByNamespace("default").Get("b")
	require.True(t, ok)

	var late []string
	e.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj model.Object) { late = append(late, obj.GetObjectMeta().Name) }})
	require.Equal(t, []string{"a", "b", "c"}, late, "a late handler is told of the store")

	var store *apitrace.Store
	e.World.Subscribe(func(ev *sim.Event) {
		if s, ok := ev.Data.(*apitrace.Store); ok {
			store = s
		}
	})
	e.inf.EmitStore()
	require.NotNil(t, store)
	require.Equal(t, "3", store.RV)
	require.Equal(t, []apitrace.Item{{Key: "default/a", RV: "1"}, {Key: "default/b", RV: "2"}, {Key: "other/c", RV: "3"}}, store.Items)
}

func TestReplaceSemantics(t *testing.T) {
	e := newEnv(7, 1, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	e.do(e.inf.Run)
	e.log = nil
	// A relist that finds b gone, a changed and c new.
	a := pod("a", nil)
	a.ResourceVersion = "9"
	c := pod("c", nil)
	c.ResourceVersion = "8"
	e.inf.Replace([]model.Object{c, a}, "9")
	require.Equal(t, []string{"update a", "add c", "delete b (tombstone)"}, e.log)
	require.Equal(t, []string{"default/a", "default/c"}, e.inf.GetStore().ListKeys())
}

func TestBackoffManager(t *testing.T) {
	m := cache.NewBackoffManager(cache.BackoffInitial, cache.BackoffMax, cache.BackoffReset, cache.BackoffFactor, cache.BackoffJitter, sim.NewStream(1, "b"))
	now := sim.Time(0)
	base := cache.BackoffInitial
	for i := 0; i < 10; i++ {
		d := m.Next(now)
		require.GreaterOrEqual(t, d, base, "step %d", i)
		require.Less(t, d, 2*base, "step %d", i)
		now = now.Add(time.Second)
		base *= 2
		if base > cache.BackoffMax {
			base = cache.BackoffMax
		}
	}
	d := m.Next(now.Add(cache.BackoffReset + time.Second))
	require.Less(t, d, 2*cache.BackoffInitial, "reset after 2 min without backoff")
}
