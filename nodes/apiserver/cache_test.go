package apiserver

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// listPods lists pods in default on server i at rv.
func listPods(tw *world, i int, rv string) *apiwire.Response {
	return tw.do(i, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", ResourceVersion: rv})
}

// names returns the items' names.
func names(items []model.Object) []string {
	var out []string
	for _, o := range items {
		out = append(out, o.GetObjectMeta().Name)
	}
	return out
}

// cutFromEtcd cuts (or heals) both directions between server i and every
// etcd member.
func (tw *world) cutFromEtcd(i int, cut bool) {
	for _, m := range tw.members {
		a, b := tw.servers[i].ID(), m.ID()
		if cut {
			tw.w.Network().Cut(a, b)
			tw.w.Network().Cut(b, a)
		} else {
			tw.w.Network().Uncut(a, b)
			tw.w.Network().Uncut(b, a)
		}
	}
}

func TestListResourceVersionSemantics(t *testing.T) {
	tw := newWorld(t, 21, 2, nil)
	tw.must(0, create(newPod("a")))
	tw.run(time.Second)
	tw.cutFromEtcd(1, true) // replica 2's cache stops hearing from etcd
	b := tw.must(0, create(newPod("b"))).Object

	quorum := listPods(tw, 0, "")
	require.True(t, quorum.Status.OK())
	assert.Equal(t, []string{"a", "b"}, names(quorum.Items), "a quorum list sees the write just done")

	stale := listPods(tw, 1, "0")
	require.True(t, stale.Status.OK())
	assert.Equal(t, []string{"a"}, names(stale.Items), "RV=0 on a lagging replica is stale")

	start := tw.w.Now()
	tooNew := listPods(tw, 1, b.GetObjectMeta().ResourceVersion)
	assert.Equal(t, 504, tooNew.Status.Code)
	assert.Equal(t, apiwire.ReasonTimeout, tooNew.Status.Reason)
	assert.GreaterOrEqual(t, tw.w.Now().Sub(start), DefaultFreshnessTimeout)

	// A read at N waits for the cache to catch up.
	wait := tw.send(1, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default",
		ResourceVersion: b.GetObjectMeta().ResourceVersion})
	tw.run(time.Second)
	tw.cutFromEtcd(1, false)
	resp := wait()
	if resp.Status.Code == 504 { // the re-watch may take longer than one wait
		tw.run(10 * time.Second)
		resp = listPods(tw, 1, b.GetObjectMeta().ResourceVersion)
	}
	require.True(t, resp.Status.OK(), "%+v", resp.Status)
	assert.Equal(t, []string{"a", "b"}, names(resp.Items))
	rv, _ := parseRV(resp.ResourceVersion)
	brv, _ := parseRV(b.GetObjectMeta().ResourceVersion)
	assert.GreaterOrEqual(t, rv, brv)

	got := tw.must(1, &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "pods", Namespace: "default", Name: "b", ResourceVersion: "0"})
	assert.Equal(t, b.GetObjectMeta().ResourceVersion, got.Object.GetObjectMeta().ResourceVersion)
}

func TestListPaging(t *testing.T) {
	tw := newWorld(t, 22, 1, nil)
	for i := 0; i < 5; i++ {
		tw.must(0, create(newPod("p"+strconv.Itoa(i))))
	}
	var all []string
	cont := ""
	for pages := 0; pages < 10; pages++ {
		resp := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", Limit: 2, Continue: cont})
		assert.LessOrEqual(t, len(resp.Items), 2)
		all = append(all, names(resp.Items)...)
		if cont = resp.Continue; cont == "" {
			break
		}
		if pages == 0 {
			tw.must(0, create(newPod("p9"))) // the pages keep the first page's revision
		}
	}
	assert.Equal(t, []string{"p0", "p1", "p2", "p3", "p4"}, all)
	sel := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", LabelSelector: "app=web", Limit: 100})
	assert.Len(t, sel.Items, 6)
	none := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", LabelSelector: "app=db", ResourceVersion: "0"})
	assert.Empty(t, none.Items)
}

// startWatch opens a watch on server i.
func (tw *world) startWatch(i int, rv, selector string, bookmarks bool) uint64 {
	id := tw.watchID()
	tw.must(i, &apiwire.Request{User: "admin", Verb: apiwire.VerbWatch, Resource: "pods", Namespace: "default",
		ResourceVersion: rv, LabelSelector: selector, WatchPort: "watch", WatchID: id, AllowWatchBookmarks: bookmarks})
	return id
}

// kinds summarises events as "TYPE name".
func kinds(evs []*apiwire.WatchEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Type == apiwire.Bookmark || e.Type == apiwire.Error || e.Type == apiwire.Closed {
			out = append(out, string(e.Type))
			continue
		}
		out = append(out, string(e.Type)+" "+e.Object.GetObjectMeta().Name)
	}
	return out
}

// checkSeq asserts the stream's sequence numbers run 1, 2, 3...
func checkSeq(t *testing.T, evs []*apiwire.WatchEvent) {
	for i, e := range evs {
		assert.Equal(t, uint64(i+1), e.Seq)
	}
}

func TestWatchFromResourceVersion(t *testing.T) {
	tw := newWorld(t, 23, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	tw.must(0, create(newPod("z")))
	from := tw.startWatch(0, a.ResourceVersion, "", false)
	zero := tw.startWatch(0, "0", "", false)
	sel := tw.startWatch(0, a.ResourceVersion, "tier=db", false)

	tw.must(0, create(newPod("b")))
	a2 := a.DeepCopy()
	a2.Labels["tier"] = "db"
	tw.must(0, update("admin", apiwire.VerbUpdate, a2))
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: "b"})
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "pods", Namespace: "default", Name: "a",
		Patch: []byte(`{"metadata":{"labels":{"tier":null}}}`)})
	tw.run(time.Second)

	evs := tw.eventsOf(from)
	assert.Equal(t, []string{"ADDED z", "ADDED b", "MODIFIED a", "DELETED b", "MODIFIED a"}, kinds(evs))
	checkSeq(t, evs)
	last := int64(0)
	for _, e := range evs {
		rv, _ := parseRV(e.ResourceVersion)
		assert.Greater(t, rv, last, "events in revision order")
		last = rv
		assert.Equal(t, "apiserver-1", e.Server)
	}
	assert.Equal(t, []string{"ADDED a", "ADDED z", "ADDED b", "MODIFIED a", "DELETED b", "MODIFIED a"}, kinds(tw.eventsOf(zero)))
	assert.Equal(t, []string{"ADDED a", "DELETED a"}, kinds(tw.eventsOf(sel)), "selector: entering is ADDED, leaving DELETED")

	// cancel-watch stops the stream.
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbCancelWatch, WatchPort: "watch", WatchID: from})
	n := len(tw.eventsOf(from))
	tw.must(0, create(newPod("c")))
	tw.run(time.Second)
	assert.Len(t, tw.eventsOf(from), n)
}

func TestWatchTooOld(t *testing.T) {
	for _, no410 := range []bool{false, true} {
		tw := newWorld(t, 24, 1, func(c *Config) {
			c.WatchCacheMinCapacity, c.WatchCacheMaxCapacity = 1, 1
			c.Ablations = ablation.When(no410, ablation.CacheNo410)
		})
		a := tw.must(0, create(newPod("a"))).Object
		tw.must(0, create(newPod("b")))
		tw.run(10 * time.Second)
		tw.must(0, create(newPod("c")))
		id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
		tw.run(time.Second)
		evs := distinctFrames(tw.eventsOf(id))
		if !no410 {
			require.Equal(t, []string{"ERROR"}, kinds(evs))
			assert.Equal(t, 410, evs[0].Status.Code)
			assert.Equal(t, apiwire.ReasonGone, evs[0].Status.Reason)
			assert.Contains(t, evs[0].Status.Message, "too old resource version: "+a.GetObjectMeta().ResourceVersion)
		} else {
			assert.Equal(t, []string{"ADDED c"}, kinds(evs), "b's event is silently lost")
		}
	}
}

// distinctFrames drops the retransmitted copies of a stream's frames.
func distinctFrames(evs []*apiwire.WatchEvent) []*apiwire.WatchEvent {
	var out []*apiwire.WatchEvent
	for _, e := range evs {
		if len(out) == 0 || out[len(out)-1].Seq != e.Seq {
			out = append(out, e)
		}
	}
	return out
}

// TestWatchFinalFrameRetransmitted: the ERROR frame that ends a stream is
// sent again with a doubling timeout (TCP's retransmission, which a lossy
// link cannot defeat) until the client's cancel acknowledges it, or until
// TCP would give the connection up: 15 copies after the first, the timeout
// doubling from 200 ms to 120 s (the last copy leaves 804.6 s after the
// first), and none after that.
func TestWatchFinalFrameRetransmitted(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		tw := newWorld(t, 24, 1, func(c *Config) { c.WatchCacheMinCapacity, c.WatchCacheMaxCapacity = 1, 1 })
		a := tw.must(0, create(newPod("a"))).Object
		tw.must(0, create(newPod("b")))
		tw.must(0, create(newPod("c"))) // b's event leaves the ring
		tw.run(10 * time.Second)
		id := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
		tw.run(time.Second)
		evs := tw.eventsOf(id)
		require.Len(t, evs, 3, "sent at 0, 200 ms and 600 ms")
		for _, e := range evs {
			require.Equal(t, evs[0].Seq, e.Seq, "copies of one frame")
			require.Equal(t, 410, e.Status.Code)
		}
		if cancel {
			tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbCancelWatch, WatchPort: "watch", WatchID: id})
		}
		if cancel {
			tw.run(20 * time.Second)
			require.Len(t, tw.eventsOf(id), 3, "a cancel acknowledges the frame: no more copies")
			continue
		}
		tw.run(19 * time.Second) // 20 s after the first copy
		require.Len(t, tw.eventsOf(id), 7, "0, 0.2, 0.6, 1.4, 3, 6.2 and 12.6 s")
		tw.run(784*time.Second + 500*time.Millisecond) // 804.5 s
		require.Len(t, tw.eventsOf(id), 15)
		tw.run(200 * time.Millisecond) // 804.7 s
		require.Len(t, tw.eventsOf(id), 16, "the fifteenth copy, at 804.6 s")
		tw.run(time.Hour)
		require.Len(t, tw.eventsOf(id), 16, "then the connection counts as dead")
	}
}

// TestBookmarksAboutEveryMinute: a watch that allows bookmarks gets its
// first one a minute after it started and then one a minute after the last,
// found by the cacher's one-second bookmark tick (k8s.io/apiserver,
// pkg/storage/cacher/cacher.go, defaultBookmarkFrequency and
// dispatchEvents; cache_watcher.go, nextBookmarkTime), each at the cache's
// revision; a watch that does not allow them gets none.
func TestBookmarksAboutEveryMinute(t *testing.T) {
	tw := newWorld(t, 25, 1, nil)
	p := tw.must(0, create(newPod("a"))).Object
	start := tw.w.Now()
	id := tw.startWatch(0, p.GetObjectMeta().ResourceVersion, "", true)
	plain := tw.startWatch(0, p.GetObjectMeta().ResourceVersion, "", false)
	var at []time.Duration
	for range 200 {
		tw.run(time.Second)
		if n := len(tw.eventsOf(id)); n > len(at) {
			at = append(at, tw.w.Now().Sub(start))
		}
	}
	evs := tw.eventsOf(id)
	require.Len(t, evs, 3, "bookmarks at about 1, 2 and 3 minutes")
	for i, d := range at {
		want := time.Duration(i+1) * DefaultBookmarkFrequency
		assert.GreaterOrEqual(t, d, want, "bookmark %d", i)
		assert.Less(t, d, want+time.Duration(i+2)*bookmarkTick, "bookmark %d", i)
	}
	for _, e := range evs {
		assert.Equal(t, apiwire.Bookmark, e.Type)
		rv, _ := parseRV(e.ResourceVersion)
		prv, _ := parseRV(p.GetObjectMeta().ResourceVersion)
		assert.GreaterOrEqual(t, rv, prv)
	}
	checkSeq(t, evs)
	assert.Empty(t, tw.eventsOf(plain))
}

func TestCacheSurvivesEtcdMemberCrash(t *testing.T) {
	tw := newWorld(t, 26, 1, nil)
	id := tw.startWatch(0, "0", "", false)
	ch := tw.server(0).caches["pods"]
	watched := ch.wh.Endpoint()
	tw.w.Host(watched).Crash()
	var want []string
	for i := 0; i < 20; i++ {
		name := "p" + strconv.Itoa(i)
		for attempt := 0; attempt < 5; attempt++ {
			resp := tw.do(0, create(newPod(name)))
			if resp.Status.OK() {
				want = append(want, "ADDED "+name)
				break
			}
			if resp.Status.Code == 409 { // an earlier attempt with unknown outcome landed
				break
			}
		}
		tw.run(500 * time.Millisecond)
	}
	tw.run(10 * time.Second)
	assert.NotEqual(t, watched, ch.wh.Endpoint(), "the cache re-watched on another member")
	list := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default"})
	var got []string
	for _, e := range tw.eventsOf(id) {
		got = append(got, string(e.Type)+" "+e.Object.GetObjectMeta().Name)
	}
	assert.Len(t, got, len(list.Items), "every stored pod reached the watch")
	for _, w := range want {
		assert.Contains(t, got, w)
	}
	checkSeq(t, tw.eventsOf(id))
	last := int64(0)
	for _, e := range tw.eventsOf(id) {
		rv, _ := parseRV(e.ResourceVersion)
		assert.Greater(t, rv, last)
		last = rv
	}
	cached := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", ResourceVersion: list.ResourceVersion})
	assert.Equal(t, names(list.Items), names(cached.Items))
}

func TestAPIServerCrashEndsWatches(t *testing.T) {
	tw := newWorld(t, 27, 1, nil)
	tw.must(0, create(newPod("a")))
	id := tw.startWatch(0, "0", "", true)
	tw.run(1500 * time.Millisecond)
	n := len(tw.eventsOf(id))
	require.Positive(t, n)
	tw.servers[0].Crash()
	tw.run(3 * time.Second)
	assert.Len(t, tw.eventsOf(id), n, "a crashed replica sends nothing more")
	tw.servers[0].Restart()
	tw.run(2 * time.Second)
	assert.Len(t, tw.eventsOf(id), n, "the restarted replica has forgotten the watch")
	p := tw.must(0, create(newPod("after")))
	assert.Equal(t, "apiserver-1", p.Server)
	assert.Len(t, tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", ResourceVersion: p.Object.GetObjectMeta().ResourceVersion}).Items, 2)
}

// TestWatchKnownByItsPort: a stream is known by its host, port and id, as a
// real one by its connection. A restarted process watches from a new port
// with its IDs counting from the start again; its first watch is a new
// stream, not a duplicate of its predecessor's, which the server still
// serves because it never learned that its connection died.
func TestWatchKnownByItsPort(t *testing.T) {
	tw := newWorld(t, 25, 1, nil)
	tw.must(0, create(newPod("a")))
	id := tw.startWatch(0, "", "", false)
	tw.run(time.Second)
	require.Equal(t, []string{"ADDED a"}, kinds(tw.eventsOf(id)))
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbWatch, Resource: "pods", Namespace: "default",
		WatchPort: "watch#2", WatchID: id})
	tw.run(time.Second)
	require.Equal(t, []string{"ADDED a", "ADDED a"}, kinds(tw.eventsOf(id)), "the second stream got its synthetic ADDED too")
	tw.must(0, create(newPod("b")))
	tw.run(time.Second)
	require.Equal(t, []string{"ADDED a", "ADDED a", "ADDED b", "ADDED b"}, kinds(tw.eventsOf(id)), "both streams live")
}

// TestWatchWithinWindowAfterTrim: a full watch cache ring drops its oldest
// event for each new one (k8s.io/apiserver,
// pkg/storage/cacher/watch_cache.go, updateCache), so a watch from a
// resourceVersion whose successor left the ring gets 410, while one from a
// resourceVersion whose successors are all still in it is served, with
// nothing missing (getAllEventsSinceLocked: 410 below oldest-1).
func TestWatchWithinWindowAfterTrim(t *testing.T) {
	tw := newWorld(t, 25, 1, func(c *Config) { c.WatchCacheMinCapacity, c.WatchCacheMaxCapacity = 2, 2 })
	a := tw.must(0, create(newPod("a"))).Object
	tw.run(10 * time.Second)
	c := tw.must(0, create(newPod("c"))).Object
	tw.run(3 * time.Second)
	tw.must(0, create(newPod("d")))
	tw.run(3 * time.Second) // the ring now holds c and d: e pushes c out
	tw.must(0, create(newPod("e")))
	old := tw.startWatch(0, a.GetObjectMeta().ResourceVersion, "", false)
	inWindow := tw.startWatch(0, c.GetObjectMeta().ResourceVersion, "", false)
	tw.run(time.Second)
	evs := distinctFrames(tw.eventsOf(old))
	require.Equal(t, []string{"ERROR"}, kinds(evs))
	assert.Equal(t, 410, evs[0].Status.Code)
	assert.Equal(t, []string{"ADDED d", "ADDED e"}, kinds(distinctFrames(tw.eventsOf(inWindow))))
}
