package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestUpdateFromStaleCache: an update starts from the watch cache's copy of
// the object; when that copy lags behind the resourceVersion the client
// sends, the server reads etcd before refusing, and the update succeeds.
// With update-trusts-stale-cache it is refused with 409. A write that
// would change nothing against the stale copy is not answered from it
// either.
func TestUpdateFromStaleCache(t *testing.T) {
	for _, trust := range []bool{false, true} {
		tw := newWorld(t, 36, 1, func(c *Config) { c.Ablations = ablation.When(trust, ablation.UpdateTrustsStaleCache) })
		v1 := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
		up := v1.DeepCopy()
		up.Labels["v"] = "2"
		v2 := tw.must(0, update("admin", apiwire.VerbUpdate, up)).Object.(*model.Pod)
		tw.run(time.Second)
		ch := tw.server(0).caches["pods"]
		key := "/registry/pods/default/a"
		ch.store[key] = v1.DeepCopy() // the cache lags

		next := v2.DeepCopy()
		next.Labels["v"] = "3"
		resp := tw.do(0, update("admin", apiwire.VerbUpdate, next))
		if trust {
			assert.Equal(t, 409, resp.Status.Code, "refused against the stale copy")
			continue
		}
		require.True(t, resp.Status.OK(), "%+v", resp.Status)
		assert.Equal(t, "3", resp.Object.GetObjectMeta().Labels["v"])

		// An update that the stale copy says changes nothing does change
		// the current object.
		tw.run(time.Second)
		ch.store[key] = v1.DeepCopy()
		back := v1.DeepCopy()
		back.ResourceVersion = ""
		out := tw.must(0, update("admin", apiwire.VerbUpdate, back)).Object
		assert.NotEqual(t, resp.Object.GetObjectMeta().ResourceVersion, out.GetObjectMeta().ResourceVersion, "written")
		assert.Equal(t, "", out.GetObjectMeta().Labels["v"])
	}
}
