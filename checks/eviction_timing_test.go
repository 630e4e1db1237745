package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// heartbeats are node's acknowledged Lease renewals every 10 s in [from, to]
// seconds.
func heartbeats(node string, from, to int64) []sev {
	var out []sev
	for s := from; s <= to; s += 10 {
		out = append(out, kev(s*1000, node, &spoketrace.NodeHeartbeat{Node: node}))
	}
	return out
}

// podDelete is an admitted delete of pod "default/<pod>" bound to node by user.
func podDelete(ms int64, user, pod, node string) sev {
	return oev(ms, &apitrace.Admit{Server: "apiserver-1", User: user, Verb: "delete", Resource: "pods", Key: "default/" + pod, NodeName: node, Namespace: "default"})
}

// endAt is a kernel timer event at s seconds: the run lasts that long.
func endAt(s int64) sev { return sev{s * 1000, 0, sim.KindTimer, "tick", nil} }

func bind(ms int64, pod, node string) sev {
	return oev(ms, &spoketrace.Bound{Scheduler: "s1", Pod: "default/" + pod, UID: pod + "-uid", Node: node})
}

func TestEvictionTiming(t *testing.T) {
	const cm = "system:kube-controller-manager"
	// node-1 runs pods a and b and stops heartbeating after 100 s; node-2
	// keeps heartbeating until 600 s.
	lostUntil := func(end int64) []sev {
		return seq([]sev{bind(1000, "a", "node-1"), start(2000, "node-1", "b", "web"), bind(3000, "c", "node-2")},
			heartbeats("node-2", 0, end), heartbeats("node-1", 0, 100))
	}
	lost := lostUntil(600)
	cases := []struct {
		name      string
		evs       []sev
		ok        bool
		want      string
		mean, max float64
		evictions float64
	}{
		{"evictions 355 to 361 s after the last heartbeat", seq(lost, []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 358, 360, 2},
		{"an eviction before the toleration ran out", seq(lost, []sev{podDelete(160000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), endAt(600)}), false, "pod default/a evicted from node node-1 60.0 s after its last heartbeat (at 100.000000s), outside [5m55s, 6m1s]", 210, 360, 2},
		{"an eviction too late", seq(lost, []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(467000, cm, "b", "node-1"), endAt(600)}), false, "pod default/b evicted from node node-1 367.0 s after", 361.5, 367, 2},
		{"pods never evicted", seq(lost, []sev{endAt(600)}), false,
			"node node-1 sent no heartbeat for 500.0 s after 100.000000s, but pod default/a on it was still not deleted at 471.000000s (not deleted by the end of the gap)", -1, -1, 0},
		{"a pod deleted long after the eviction time", seq(lost, []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(480000, cm, "b", "node-1"), endAt(600)}), false, "pod default/b on it was still not deleted at 471.000000s (deleted only at 480.000000s)", 368, 380, 2},
		{"a run too short to require the eviction", seq(lostUntil(460), []sev{endAt(460)}), true, "0 eviction(s)", -1, -1, 0},
		{"a node back before its pods were due", seq(lost, heartbeats("node-1", 200, 500), []sev{endAt(600)}), true, "0 eviction(s)", -1, -1, 0},
		{"a pod bound after the last heartbeat is not due with the others", seq(lostUntil(500), []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), bind(120000, "d", "node-1"), endAt(500)}), true, "2 eviction(s)", 358, 360, 2},
		{"a pod bound before the last heartbeat is due with the others", seq(lostUntil(500), []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), bind(90000, "d", "node-1"), endAt(500)}), false, "pod default/d on it was still not deleted", 358, 360, 2},
		{"a scale-down on a live node", seq(lost, []sev{podDelete(35000, cm, "c", "node-2"), podDelete(456000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 358, 360, 2},
		{"a scale-down just before the node was lost", seq(lost, []sev{podDelete(108000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), endAt(600)}), true, "1 eviction(s)", 360, 360, 1},
		{"a deletion during a short heartbeat gap", seq([]sev{bind(1000, "a", "node-1")}, heartbeats("node-1", 0, 100),
			[]sev{podDelete(125000, cm, "a", "node-1")}, heartbeats("node-1", 140, 600)), true, "0 eviction(s)", -1, -1, 0},
		{"the pod garbage collector deletes the pods of a deleted Node", seq(lost, []sev{
			oev(200000, &apitrace.Admit{Server: "apiserver-1", User: "admin", Verb: "delete", Resource: "nodes", Key: "node-1", NodeName: "node-1"}),
			podDelete(250000, cm, "a", "node-1"), podDelete(250000, cm, "b", "node-1"), endAt(600)}), true, "0 eviction(s)", -1, -1, 0},
		{"deletions by the kubelet are not evictions", seq(lost, []sev{podDelete(160000, "system:node:node-1", "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), endAt(600)}), true, "1 eviction(s)", 360, 360, 1},
		{"a repeated delete of a pod being deleted counts once", seq(lost, []sev{podDelete(456000, cm, "a", "node-1"),
			podDelete(460000, cm, "b", "node-1"), podDelete(475000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 358, 360, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewEvictionTiming(EvictionTimingOptions{})
			r := feedSpoke(c, sortedSteps(tc.evs)...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.Equal(t, map[string]float64{"eviction_delay_s": tc.mean, "eviction_delay_max_s": tc.max, "evictions": tc.evictions,
				"eviction_after_taint_s": -1}, c.Measures())
		})
	}
	taint := func(ms int64, added bool) sev {
		return oev(ms, &spoketrace.NodeTaint{Node: "node-1", Taint: "node.kubernetes.io/unreachable:NoExecute", Added: added})
	}
	for _, tc := range []struct {
		name  string
		evs   []sev
		ok    bool
		want  string
		after float64
	}{
		{"300 s after the taint", seq(lost, []sev{taint(158000, true), podDelete(458000, cm, "a", "node-1"), podDelete(458500, cm, "b", "node-1"), endAt(600)}),
			true, "2 eviction(s)", 300.25},
		{"a second and a half late", seq(lost, []sev{taint(156500, true), podDelete(458000, cm, "a", "node-1"), podDelete(458000, cm, "b", "node-1"), endAt(600)}),
			false, "evicted from node node-1 301.500 s after its NoExecute taint, not within 1s of the 5m0s toleration", 301.5},
		{"a late taint update: 299.8 s", seq(lost, []sev{taint(158200, true), podDelete(458000, cm, "a", "node-1"), podDelete(458000, cm, "b", "node-1"), endAt(600)}),
			false, "evicted from node node-1 299.800 s after its NoExecute taint, not within 1s of the 5m0s toleration", 299.8},
		{"a taint update a slow peer stream held back", seq(lost, []sev{oev(157900, buggified(sim.BuggifySlowPeer, 300)), taint(158200, true),
			podDelete(458000, cm, "a", "node-1"), podDelete(458000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 299.8},
		{"a delete sent again after a 429's Retry-After", seq(lost, []sev{taint(156500, true), oev(456900, buggified(sim.BuggifyEarly429, 1000)),
			podDelete(458000, cm, "a", "node-1"), podDelete(458000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 301.5},
		{"a removed taint no longer counts", seq(lost, []sev{taint(100000, true), taint(120000, false), taint(158000, true),
			podDelete(458000, cm, "a", "node-1"), podDelete(458000, cm, "b", "node-1"), endAt(600)}), true, "2 eviction(s)", 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewEvictionTiming(EvictionTimingOptions{})
			r := feedSpoke(c, sortedSteps(tc.evs)...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.InDelta(t, tc.after, c.Measures()["eviction_after_taint_s"], 1e-9)
		})
	}
	t.Run("an eviction without a traced taint, when taints are traced", func(t *testing.T) {
		evs := sortedSteps(seq(lost, []sev{podDelete(458000, cm, "a", "node-1"), podDelete(458500, cm, "b", "node-1"), endAt(600)}))
		r := feedSpoke(NewEvictionTiming(EvictionTimingOptions{TaintsTraced: true}), evs...)
		require.False(t, r.OK, r.String())
		require.Contains(t, r.String(), "pod default/a evicted from node node-1, which has no NoExecute taint traced")
		r = feedSpoke(NewEvictionTiming(EvictionTimingOptions{TaintsTraced: true}), sortedSteps(append(evs, taint(158000, true)))...)
		require.True(t, r.OK, r.String())
	})
	t.Run("a custom window", func(t *testing.T) {
		c := NewEvictionTiming(EvictionTimingOptions{Grace: secsDur(40), Toleration: secsDur(10)})
		r := feedSpoke(c, sortedSteps(seq(lost, []sev{podDelete(157000, cm, "a", "node-1"), podDelete(160000, cm, "b", "node-1"), endAt(600)}))...)
		require.True(t, r.OK, r.String())
		require.Equal(t, 2.0, c.Measures()["evictions"])
	})
}

// sortedSteps orders a trace built in pieces by time (stable).
func sortedSteps(evs []sev) []sev {
	out := append([]sev(nil), evs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ms < out[j-1].ms; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
