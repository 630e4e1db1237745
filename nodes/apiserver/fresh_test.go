package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
)

// TestReadAtRVWaitsForTheCache: a list at resourceVersion N on a replica
// whose cache lags behind N waits for it (and fails with 504 when it does
// not catch up); with cache-ignores-min-rv it is answered at once with the
// stale state.
func TestReadAtRVWaitsForTheCache(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		tw := newWorld(t, 35, 2, func(c *Config) { c.Ablations = ablation.When(ignore, ablation.CacheIgnoresMinRV) })
		tw.must(0, create(newPod("a")))
		tw.run(time.Second)
		tw.cutFromEtcd(1, true)
		b := tw.must(0, create(newPod("b"))).Object
		start := tw.w.Now()
		resp := listPods(tw, 1, b.GetObjectMeta().ResourceVersion)
		if ignore {
			require.True(t, resp.Status.OK())
			assert.Equal(t, []string{"a"}, names(resp.Items), "older than the resourceVersion asked for")
			assert.Less(t, tw.w.Now().Sub(start), time.Second)
		} else {
			assert.Equal(t, 504, resp.Status.Code)
			assert.GreaterOrEqual(t, tw.w.Now().Sub(start), DefaultFreshnessTimeout)
		}
	}
}

// TestIdleCacheFollowsProgress: a replica's pod cache that sees no pod
// event still follows etcd's revision through progress notifications
// (the cacher's watch requests them, staging/src/k8s.io/apiserver/pkg/
// storage/cacher/cacher.go and the etcd3 watcher's progress events), so a
// list of pods at the resourceVersion of a Lease write is answered, not
// left waiting for a pod event until 504.
func TestIdleCacheFollowsProgress(t *testing.T) {
	tw := newWorld(t, 36, 1, nil)
	tw.must(0, create(newPod("a")))
	tw.run(time.Second)
	l := tw.must(0, create(&model.Lease{ObjectMeta: model.ObjectMeta{Name: "l", Namespace: "default"},
		Spec: model.LeaseSpec{HolderIdentity: model.Ptr("x")}})).Object
	start := tw.w.Now()
	resp := listPods(tw, 0, l.GetObjectMeta().ResourceVersion)
	require.True(t, resp.Status.OK(), "%d %s", resp.Status.Code, resp.Status.Message)
	assert.Equal(t, []string{"a"}, names(resp.Items))
	assert.Less(t, tw.w.Now().Sub(start), DefaultFreshnessTimeout)
	assert.Equal(t, l.GetObjectMeta().ResourceVersion, resp.ResourceVersion, "the list is at the revision it waited for")
}
