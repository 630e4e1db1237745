package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

func TestTokenBucket(t *testing.T) {
	sec := func(s float64) model.Time { return model.Time(s * 1e9) }
	b := newTokenBucket(0.1, 1, 0)
	require.True(t, b.tryAccept(0), "full at first")
	require.False(t, b.tryAccept(sec(9.9)))
	require.True(t, b.tryAccept(sec(10)), "one token per 10 s")
	require.False(t, b.tryAccept(sec(10)))
	require.True(t, b.tryAccept(sec(100)))
	require.False(t, b.tryAccept(sec(100)), "burst 1: no savings")
	require.False(t, newTokenBucket(0, 1, 0).tryAccept(sec(1000)), "qps 0 never accepts")
}

func TestRateLimitedQueue(t *testing.T) {
	q := newRateLimitedQueue(0.1, 0)
	require.True(t, q.add("a", 0))
	require.True(t, q.add("b", 0))
	require.False(t, q.add("a", 0), "unique")
	var got []string
	process := func(v string, done func(bool, time.Duration)) { got = append(got, v); done(true, 0) }
	q.try(func() model.Time { return 0 }, process, func() {})
	require.Equal(t, []string{"a"}, got, "one token")
	q.try(func() model.Time { return model.Time(10 * time.Second) }, process, func() {})
	require.Equal(t, []string{"a", "b"}, got)
	require.False(t, q.add("a", 0), "processed values stay in the set")
	require.False(t, q.remove("a"))
	require.True(t, q.add("a", 0), "until removed")

	q.swapLimiter(0, model.Time(20*time.Second))
	q.try(func() model.Time { return model.Time(1000 * time.Second) }, process, func() {})
	require.Equal(t, []string{"a", "b"}, got, "rate 0 stops it")
}

func TestComputeZoneState(t *testing.T) {
	ready := &model.NodeCondition{Type: model.NodeReady, Status: model.ConditionTrue}
	unknown := &model.NodeCondition{Type: model.NodeReady, Status: model.ConditionUnknown}
	conds := func(r, u int) []*model.NodeCondition {
		var out []*model.NodeCondition
		for i := 0; i < r; i++ {
			out = append(out, ready)
		}
		for i := 0; i < u; i++ {
			out = append(out, unknown)
		}
		return out
	}
	c := &Controller{cfg: Config{}.withDefaults()}
	cases := []struct {
		name        string
		ready, down int
		want        zoneState
	}{
		{"all ready", 5, 0, stateNormal},
		{"none ready", 0, 3, stateFullDisruption},
		{"2 of 2 down is full", 0, 2, stateFullDisruption},
		{"2 of 3 down: not more than 2", 1, 2, stateNormal},
		{"3 of 5 down: 60%", 2, 3, statePartialDisruption},
		{"11 of 20 down: exactly 55%", 9, 11, statePartialDisruption},
		{"10 of 20 down: 50%", 10, 10, stateNormal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, st := c.computeZoneState(conds(tc.ready, tc.down))
			require.Equal(t, tc.down, n)
			require.Equal(t, tc.want, st)
		})
	}
}

func TestTaintHelpers(t *testing.T) {
	n := &model.Node{}
	t1 := model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: model.Ptr(model.Time(1))}
	require.True(t, addOrUpdateTaint(n, t1))
	require.False(t, addOrUpdateTaint(n, t1), "same taint")
	t2 := t1
	t2.TimeAdded = model.Ptr(model.Time(2))
	require.True(t, addOrUpdateTaint(n, t2), "a new TimeAdded replaces it")
	require.Len(t, n.Spec.Taints, 1)
	require.True(t, removeTaint(n, &unreachableTaint))
	require.Empty(t, n.Spec.Taints)

	want := []model.Taint{{Key: "a", Effect: model.TaintEffectNoSchedule}, {Key: "b", Effect: model.TaintEffectNoSchedule}}
	have := []model.Taint{{Key: "b", Effect: model.TaintEffectNoSchedule}, {Key: "c", Effect: model.TaintEffectNoSchedule}}
	add, remove := taintSetDiff(want, have)
	require.Equal(t, []model.Taint{want[0]}, add)
	require.Equal(t, []model.Taint{have[1]}, remove)
}
