package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestCacheReinitAfterCompaction: a replica cut off from etcd while its
// history is compacted past its cache's revision finds its etcd watch
// cancelled when it resumes. Like the real Cacher it goes unready, a
// second later closes its watches cleanly and relists; a watch from a
// revision before that list gets 410 Gone, and the cache holds what etcd
// holds. The two ablations skip the relist or keep the watches open, and
// a watch misses the deletion that happened meanwhile.
func TestCacheReinitAfterCompaction(t *testing.T) {
	for _, tc := range []struct {
		name      string
		abl       ablation.Set
		closed    bool // the open watch is closed cleanly
		relisted  bool // the cache relisted: it no longer holds the deleted pod
		deleteSet bool // the open watch saw the deletion
	}{
		{name: "real", closed: true, relisted: true},
		{name: "cache-resume-past-compaction", abl: ablation.Of(ablation.CacheResumePastCompaction)},
		{name: "cache-relist-keeps-watchers", abl: ablation.Of(ablation.CacheRelistKeepsWatchers), relisted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newWorld(t, 33, 2, func(c *Config) {
				c.CompactionInterval = 5 * time.Second
				c.Ablations = tc.abl
			})
			a := tw.must(0, create(newPod("a"))).Object
			tw.must(0, create(newPod("b")))
			tw.run(time.Second)
			id := tw.startWatch(1, a.GetObjectMeta().ResourceVersion, "", false)
			tw.run(time.Second)
			tw.cutFromEtcd(1, true)
			tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: "a"})
			for i := 0; i < 5; i++ { // writes that the compactions pass
				tw.must(0, create(newPod("c"+string(rune('0'+i)))))
				tw.run(4 * time.Second)
			}
			tw.cutFromEtcd(1, false)
			tw.run(10 * time.Second)

			var types []apiwire.EventType
			for _, e := range distinctFrames(tw.eventsOf(id)) {
				types = append(types, e.Type)
			}
			assert.Equal(t, tc.closed, len(types) > 0 && types[len(types)-1] == apiwire.Closed, "%v", types)
			deleted := false
			for _, e := range tw.eventsOf(id) {
				if e.Type == apiwire.Deleted && e.Object.GetObjectMeta().Name == "a" {
					deleted = true
				}
			}
			assert.Equal(t, tc.deleteSet, deleted)

			_, stale := tw.server(1).caches["pods"].store["/registry/pods/default/a"]
			assert.Equal(t, !tc.relisted, stale, "the deleted pod is still in the cache")
			if tc.relisted {
				again := tw.startWatch(1, a.GetObjectMeta().ResourceVersion, "", false)
				tw.run(time.Second)
				evs := distinctFrames(tw.eventsOf(again))
				require.Len(t, evs, 1)
				assert.Equal(t, 410, evs[0].Status.Code)
			}
		})
	}
}
