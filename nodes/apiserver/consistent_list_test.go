package apiserver

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// lagCache cuts replica i's host from the etcd member its watch cache
// watches, and moves its request client to another member: its cache stops
// hearing of writes while the replica can still read etcd.
func (tw *world) lagCache(i int) {
	s := tw.server(i)
	member := s.caches["pods"].client.Endpoint()
	if s.etcd.Endpoint() == member {
		s.etcd.NextEndpoint()
	}
	tw.w.Network().Cut(tw.servers[i].ID(), member)
	tw.w.Network().Cut(member, tw.servers[i].ID())
}

// TestConsistentListFromCache: a list with resourceVersion "" is served from
// the watch cache once the cache has seen etcd's current revision
// (k8s.io/apiserver, pkg/storage/cacher/delegator.go, GetList with
// ConsistentListFromCache, GA in 1.34; watch_cache.go,
// waitAndListConsistent), and from etcd when the cache does not catch up in
// time (delegator.go: the TooLargeResourceVersion fallback). Either way it
// holds every write acknowledged before it. With the
// consistent-list-from-stale-cache ablation a lagging cache answers at
// once, without the write.
func TestConsistentListFromCache(t *testing.T) {
	for _, stale := range []bool{false, true} {
		tw := newWorld(t, 46, 2, func(c *Config) { c.Ablations = ablation.When(stale, ablation.ConsistentListFromStaleCache) })
		tw.must(0, create(newPod("a")))
		tw.run(time.Second)
		fresh := listPods(tw, 1, "")
		require.True(t, fresh.Status.OK())
		assert.Equal(t, []string{"a"}, names(fresh.Items))
		cacheRev := tw.server(1).caches["pods"].rev
		assert.Equal(t, formatRV(cacheRev), fresh.ResourceVersion, "served from the cache, at its revision")

		tw.lagCache(1)
		tw.must(0, create(newPod("b")))
		start := tw.w.Now()
		resp := listPods(tw, 1, "")
		require.True(t, resp.Status.OK(), "%+v", resp.Status)
		if stale {
			assert.Equal(t, []string{"a"}, names(resp.Items), "the ablation answers from the lagging cache")
			continue
		}
		assert.Equal(t, []string{"a", "b"}, names(resp.Items), "a consistent list holds the acknowledged write")
		assert.GreaterOrEqual(t, tw.w.Now().Sub(start), DefaultFreshnessTimeout, "after waiting for the cache")
	}
}

// TestListLimitFromCache: a list served from the cache honours its limit,
// except at resourceVersion "0" (k8s.io/apiserver,
// pkg/storage/cacher/cacher.go, computeListLimit), and its continue token
// resumes after the last key at the list's revision.
func TestListLimitFromCache(t *testing.T) {
	tw := newWorld(t, 47, 1, nil)
	var last *apiwire.Response
	for i := range 5 {
		last = tw.must(0, create(newPod("p"+strconv.Itoa(i))))
	}
	tw.run(time.Second)
	list := func(rv, match string, limit int64, cont string) *apiwire.Response {
		return tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default",
			ResourceVersion: rv, ResourceVersionMatch: match, Limit: limit, Continue: cont})
	}
	zero := list("0", "", 2, "")
	assert.Len(t, zero.Items, 5, "the limit is ignored at \"0\"")
	assert.Empty(t, zero.Continue)

	lastRV := last.Object.GetObjectMeta().ResourceVersion
	for _, tc := range []struct{ rv, match string }{{"", ""}, {lastRV, apiwire.ResourceVersionMatchNotOlderThan}} {
		var all []string
		cont := ""
		page := list(tc.rv, tc.match, 2, "")
		for range 5 {
			require.True(t, page.Status.OK(), "%+v", page.Status)
			assert.LessOrEqual(t, len(page.Items), 2)
			all = append(all, names(page.Items)...)
			if cont = page.Continue; cont == "" {
				break
			}
			page = list("", "", 2, cont)
		}
		assert.Equal(t, []string{"p0", "p1", "p2", "p3", "p4"}, all, "rv %q match %q", tc.rv, tc.match)
	}

	// A page that ends with the last object carries no continue token
	// (cacher.go, GetList: hasMoreListItems).
	exact := list("", "", 5, "")
	require.True(t, exact.Status.OK())
	assert.Len(t, exact.Items, 5)
	assert.Empty(t, exact.Continue, "nothing more to list")
	short := list("", "", 4, "")
	assert.Len(t, short.Items, 4)
	assert.NotEmpty(t, short.Continue)
}

// TestResourceVersionMatch: Exact lists the state at exactly that
// revision, NotOlderThan at least as new (k8s.io/apiserver,
// pkg/storage/cacher/delegator/interface.go, ShouldDelegateList;
// pkg/storage/interfaces.go, ValidateListOptions), and the combinations
// apimachinery's ValidateListOptions forbids are 422 Invalid with its
// messages.
func TestResourceVersionMatch(t *testing.T) {
	tw := newWorld(t, 48, 1, nil)
	a := tw.must(0, create(newPod("a"))).Object
	tw.must(0, create(newPod("b")))
	tw.run(time.Second)
	arv := a.GetObjectMeta().ResourceVersion
	list := func(rv, match, cont string) *apiwire.Response {
		return tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default",
			ResourceVersion: rv, ResourceVersionMatch: match, Continue: cont})
	}
	exact := list(arv, apiwire.ResourceVersionMatchExact, "")
	require.True(t, exact.Status.OK(), "%+v", exact.Status)
	assert.Equal(t, []string{"a"}, names(exact.Items))
	assert.Equal(t, arv, exact.ResourceVersion)
	newer := list(arv, apiwire.ResourceVersionMatchNotOlderThan, "")
	require.True(t, newer.Status.OK())
	assert.Equal(t, []string{"a", "b"}, names(newer.Items))

	for _, tc := range []struct{ rv, match, cont, msg string }{
		{"", apiwire.ResourceVersionMatchExact, "", "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"0", apiwire.ResourceVersionMatchExact, "", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{arv, "Newest", "", `Unsupported value: "Newest"`},
		{"0", apiwire.ResourceVersionMatchNotOlderThan, "x", "resourceVersionMatch is forbidden when continue is provided"},
	} {
		resp := list(tc.rv, tc.match, tc.cont)
		assert.Equal(t, 422, resp.Status.Code, "%+v", tc)
		assert.Equal(t, apiwire.ReasonInvalid, resp.Status.Reason)
		assert.Contains(t, resp.Status.Message, tc.msg)
	}
}

// TestUnreadyCache: while a cache is (re)initializing, a list with a limit
// and no label selector and any get read etcd, and other lists and watches
// get 429 at once (k8s.io/apiserver, pkg/storage/cacher/delegator.go, Get
// and GetList, shouldDelegateListOnNotReadyCache; cacher.go, GetList and
// Watch: ResilientWatchCacheInitialization, GA in 1.34).
func TestUnreadyCache(t *testing.T) {
	tw := newWorld(t, 49, 1, nil)
	tw.must(0, create(newPod("a")))
	tw.run(time.Second)
	tw.server(0).caches["pods"].ready = false

	paged := tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", Limit: 10})
	require.True(t, paged.Status.OK(), "%+v", paged.Status)
	assert.Equal(t, []string{"a"}, names(paged.Items))
	get := tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "pods", Namespace: "default", Name: "a", ResourceVersion: "0"})
	require.True(t, get.Status.OK(), "%+v", get.Status)

	start := tw.w.Now()
	for _, req := range []*apiwire.Request{
		{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default"},
		{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", LabelSelector: "app=web", Limit: 10},
		{User: "admin", Verb: apiwire.VerbWatch, Resource: "pods", Namespace: "default", WatchPort: "watch", WatchID: tw.watchID()},
	} {
		resp := tw.do(0, req)
		assert.Equal(t, 429, resp.Status.Code, "%s %q", req.Verb, req.LabelSelector)
	}
	assert.Less(t, tw.w.Now().Sub(start), time.Second, "refused at once, not after a wait")
}
