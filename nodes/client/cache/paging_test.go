package cache_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/client/cache"
)

// TestReflectorPaging: client-go's reflector lists through a pager of
// DefaultPageSize items a page (k8s.io/client-go, tools/pager/pager.go,
// defaultPageSize), but switches paging off for a list from a
// resourceVersion other than "" and "0", so that the watch cache serves it
// (tools/cache/reflector.go, list: pager.PageSize = 0); WatchListPageSize
// (PageSize) pages every list.
func TestReflectorPaging(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pageSize int64
		want     []int64 // the limit of the initial list, then of the relist from its resourceVersion
	}{
		{name: "default", want: []int64{cache.DefaultPageSize, 0}},
		{name: "WatchListPageSize", pageSize: 2, want: []int64{2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(3, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{PageSize: tc.pageSize}})
			e.do(func() { e.create("a", nil) })
			e.do(e.inf.Run)
			e.World.RunFor(time.Second)
			e.Backend.Rev += 5 // other resources' writes, compacted away:
			e.Backend.Compact()
			e.Server(0).CloseWatches() // the resumed watch gets 410: relist from the last resourceVersion
			e.World.RunFor(5 * time.Second)
			srv := e.Server(0)
			require.GreaterOrEqual(t, len(srv.ListLimits), 2)
			assert.Equal(t, tc.want, srv.ListLimits[:2])
			assert.Equal(t, "0", srv.ListRVs[0])
			assert.NotContains(t, []string{"", "0"}, srv.ListRVs[1])
			e.requireConverged(t)
		})
	}
}

// TestExpiredContinueListsInFull: when a continuation page is refused with
// 410 Gone, client-go's pager lists again in one request at the same
// resourceVersion (k8s.io/client-go, tools/pager/pager.go, list:
// FullListIfExpired), and the reflector ends up with every object.
func TestExpiredContinueListsInFull(t *testing.T) {
	e := newEnv(3, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{PageSize: 2}})
	e.do(func() {
		for i := range 5 {
			e.create("p"+strconv.Itoa(i), nil)
		}
	})
	e.Server(0).ExpireContinues = 1
	e.do(e.inf.Run)
	e.World.RunFor(2 * time.Second)
	srv := e.Server(0)
	require.GreaterOrEqual(t, len(srv.ListLimits), 3)
	assert.Equal(t, []int64{2, 2, 0}, srv.ListLimits[:3], "first page, the expired continuation, then one full list")
	assert.Equal(t, []string{"0", "", "0"}, srv.ListRVs[:3])
	require.Len(t, e.relists, 1)
	assert.Equal(t, 5, e.relists[0].Items)
	e.requireConverged(t)
}
