package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// boundPod is a pod with uid on node requesting cpu.
func boundPod(uid, node, cpu string) *model.Pod {
	p := requestPod("cpu", cpu)
	p.UID, p.Spec.NodeName = model.UID(uid), node
	return p
}

func TestCacheAssumptions(t *testing.T) {
	sec := func(s int) sim.Time { return sim.Time(time.Duration(s) * time.Second) }
	tests := []struct {
		name string
		// then runs after pod "x" (500m) was assumed on "a".
		then     func(c *schedCache)
		wantA    model.Quantity // cpu requested on a
		wantB    model.Quantity
		assumed  bool
		wantPods int
	}{
		{name: "assumed counts at once", then: func(*schedCache) {}, wantA: 500, assumed: true, wantPods: 1},
		{name: "forget after a failed bind", then: func(c *schedCache) { c.forgetPod("x") }, wantPods: 0},
		{name: "the informer confirms", then: func(c *schedCache) { c.setPod(boundPod("x", "a", "500m")) }, wantA: 500, wantPods: 1},
		{name: "the informer shows it elsewhere", then: func(c *schedCache) { c.setPod(boundPod("x", "b", "500m")) },
			wantB: 500, wantPods: 1},
		{name: "forget does not drop a confirmed pod", then: func(c *schedCache) {
			c.setPod(boundPod("x", "a", "500m"))
			c.forgetPod("x")
		}, wantA: 500, wantPods: 1},
		{name: "no TTL: never expires", then: func(c *schedCache) {
			c.finishBinding("x", 0)
			require.False(t, c.expireAssumed(sec(3600)))
		}, wantA: 500, assumed: true, wantPods: 1},
		{name: "TTL not yet over", then: func(c *schedCache) {
			c.finishBinding("x", sec(30))
			require.True(t, c.hasExpiring())
			require.False(t, c.expireAssumed(sec(29)))
		}, wantA: 500, assumed: true, wantPods: 1},
		{name: "TTL over", then: func(c *schedCache) {
			c.finishBinding("x", sec(30))
			require.True(t, c.expireAssumed(sec(30)))
			require.False(t, c.hasExpiring())
		}, wantPods: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSchedCache(false)
			for _, n := range []string{"a", "b"} {
				c.setNode(&model.Node{ObjectMeta: model.ObjectMeta{Name: n}})
			}
			c.assumePod(boundPod("x", "a", "500m"))
			tt.then(c)
			require.Equal(t, tt.wantA, c.nodes["a"].requested[model.ResourceCPU])
			require.Equal(t, tt.wantB, c.nodes["b"].requested[model.ResourceCPU])
			require.Equal(t, tt.assumed, c.isAssumed("x"))
			require.Len(t, c.pods, tt.wantPods)
		})
	}
}

func TestCacheNodeLifecycle(t *testing.T) {
	c := newSchedCache(false)
	c.setPod(boundPod("x", "gone", "1"))
	require.Empty(t, c.nodeList(), "a node only pods name is not schedulable")
	c.setNode(&model.Node{ObjectMeta: model.ObjectMeta{Name: "gone"}})
	c.setNode(&model.Node{ObjectMeta: model.ObjectMeta{Name: "a"}})
	require.Len(t, c.nodeList(), 2)
	require.Equal(t, "a", c.nodeList()[0].name)
	c.removeNode("gone")
	require.Len(t, c.nodeList(), 1)
	require.Contains(t, c.nodes, "gone", "its pod still counts there")
	c.removePod("x")
	require.NotContains(t, c.nodes, "gone")
}

// TestCacheIgnoreAssumedAblation: with scheduler-ignores-assumed an
// assumed pod counts nowhere until the informer shows it bound, then it
// counts once; forgetting or removing it never takes off what was not
// counted.
func TestCacheIgnoreAssumedAblation(t *testing.T) {
	c := newSchedCache(true)
	c.setNode(&model.Node{ObjectMeta: model.ObjectMeta{Name: "a"}})
	c.assumePod(boundPod("x", "a", "500m"))
	require.True(t, c.isAssumed("x"))
	require.Equal(t, model.Quantity(0), c.nodes["a"].requested[model.ResourceCPU])
	c.setPod(boundPod("x", "a", "500m"))
	require.Equal(t, model.Quantity(500), c.nodes["a"].requested[model.ResourceCPU])
	c.removePod("x")
	require.Equal(t, model.Quantity(0), c.nodes["a"].requested[model.ResourceCPU])

	c.assumePod(boundPod("y", "a", "250m"))
	c.forgetPod("y")
	require.Equal(t, model.Quantity(0), c.nodes["a"].requested[model.ResourceCPU])
	require.Equal(t, 0, c.nodes["a"].numPods)
}
