package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/trace/apiwire"
)

func TestCompactionAndContinueTooOld(t *testing.T) {
	tw := newWorld(t, 31, 2, func(c *Config) { c.CompactionInterval = 10 * time.Second })
	for _, n := range []string{"a", "b", "c"} {
		tw.must(0, create(newPod(n)))
	}
	first := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", Limit: 1})
	require.NotEmpty(t, first.Continue)
	tw.run(25 * time.Second) // two intervals: the list's revision is compacted
	resp := tw.do(1, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default", Limit: 1, Continue: first.Continue})
	assert.Equal(t, 410, resp.Status.Code, resp.Status.Message)
	// The caches keep working.
	tw.must(1, create(newPod("d")))
	tw.run(time.Second)
	assert.Len(t, tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", ResourceVersion: "0"}).Items, 4)
}

func TestDeterministicTrace(t *testing.T) {
	hash := func() uint64 {
		tw := newWorld(t, 32, 2, nil)
		tw.startWatch(1, "0", "", true)
		for _, n := range []string{"a", "b", "c"} {
			tw.must(0, create(newPod(n)))
		}
		tw.run(5 * time.Second)
		return tw.w.Trace().Hash()
	}
	assert.Equal(t, hash(), hash())
}

// TestExactListAndContinuePages: a list at resourceVersion N with a limit
// reads etcd at exactly N (the legacy exact match), and so does a continue
// page at its token's revision; once N is compacted the exact list gets
// 410 Gone. The list-continue-at-latest ablation reads continue pages at
// the latest revision, mixing states.
func TestExactListAndContinuePages(t *testing.T) {
	for _, latest := range []bool{false, true} {
		tw := newWorld(t, 34, 1, func(c *Config) {
			c.CompactionInterval = 10 * time.Second
			c.Ablations = ablation.When(latest, ablation.ContinueAtLatest)
		})
		for _, n := range []string{"a", "b", "c"} {
			tw.must(0, create(newPod(n)))
		}
		list := func(rv, cont string, limit int64) *apiwire.Response {
			return tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "pods", Namespace: "default",
				ResourceVersion: rv, Limit: limit, Continue: cont})
		}
		first := list("", "", 2)
		require.True(t, first.Status.OK())
		assert.Equal(t, []string{"a", "b"}, names(first.Items))
		tw.must(0, create(newPod("d")))
		rest := list("", first.Continue, 2)
		require.True(t, rest.Status.OK())
		if latest {
			assert.Equal(t, []string{"c", "d"}, names(rest.Items), "the ablation mixes in a later state")
		} else {
			assert.Equal(t, []string{"c"}, names(rest.Items), "the pages are one snapshot")
		}

		exact := list(first.ResourceVersion, "", 10)
		require.True(t, exact.Status.OK())
		assert.Equal(t, []string{"a", "b", "c"}, names(exact.Items), "exactly at N, without the later d")
		assert.Equal(t, first.ResourceVersion, exact.ResourceVersion)
		notOlder := list(first.ResourceVersion, "", 0)
		assert.Equal(t, []string{"a", "b", "c", "d"}, names(notOlder.Items), "without a limit: not older than N, from the cache")

		tw.run(25 * time.Second) // two intervals: N is compacted
		gone := list(first.ResourceVersion, "", 10)
		assert.Equal(t, 410, gone.Status.Code)
		assert.Equal(t, "The resourceVersion for the provided list is too old.", gone.Status.Message)
	}
}
