package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/apiwire"
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
