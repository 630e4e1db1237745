package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestTerminationTiming: pod "a" (container "app") has a preStop sleep of
// 5 s and a grace period of 10 s; its deletion is committed at 1 s and
// its kubelet kills it at 2 s, so its container must stop between 7 s
// (the hook) and 12 s (5 s of hook, then the 5 s of grace left).
func TestTerminationTiming(t *testing.T) {
	pod := func(rev int64, deletionGrace *int64) sev {
		p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "a", Namespace: "default", UID: "a-uid", DeletionGracePeriodSeconds: deletionGrace},
			Spec: model.PodSpec{TerminationGracePeriodSeconds: model.Ptr(int64(10)), Containers: []model.Container{{Name: "app", Image: "app:1",
				Lifecycle: &model.Lifecycle{PreStop: &model.LifecycleHandler{Sleep: &model.SleepAction{Seconds: 5}}}}}}}
		if deletionGrace != nil {
			p.DeletionTimestamp = model.Ptr(model.Time(1))
		}
		data, err := model.Encode(p)
		require.NoError(t, err)
		return sev{rev * 100, 9, sim.KindNode, "", &etcdtrace.Apply{Member: "etcd-1", Rev: rev,
			Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/a", Value: string(data), ModRev: rev}}}}
	}
	kill := func(ms int64) sev {
		return kev(ms, "node-1", &spoketrace.ContainerKill{Node: "node-1", Pod: "default/a", UID: "a-uid", Container: "app", Reason: spoketrace.StopDeleted, Grace: 10, PreStop: 5})
	}
	stopAt := func(ms int64, reason string) sev { return stop(ms, "node-1", "a", reason, true) }
	running := []sev{pod(1, nil), start(500, "node-1", "a", "rs"), pod(10, model.Ptr(int64(10)))}
	cases := []struct {
		name string
		evs  []sev
		fail string
	}{
		{"after the hook, within the grace period", seq(running, []sev{kill(2000), stopAt(8000, spoketrace.StopDeleted)}), ""},
		{"killed at the deadline", seq(running, []sev{kill(2000), stopAt(12000, spoketrace.StopDeleted)}), ""},
		{"SIGTERM before the hook ran out", seq(running, []sev{kill(2000), stopAt(3000, spoketrace.StopDeleted)}),
			"stopped 1s after its kill (Deleted, grace 10s), before its preStop sleep of 5s ran out"},
		{"never killed at the deadline", seq(running, []sev{kill(2000), stopAt(20000, spoketrace.StopDeleted)}),
			"stopped 18s after its kill (Deleted, grace 10s, preStop 5s), past its SIGKILL deadline of 10s"},
		{"a fault on its node between kill and stop", seq(running, []sev{kill(2000), fev(2500, "node-1", "pause"), stopAt(20000, spoketrace.StopDeleted)}), ""},
		{"exited by itself first", seq(running, []sev{kill(2000), stopAt(3000, spoketrace.StopExited)}), ""},
		{"force-deleted during the hook", seq(running, []sev{kill(2000), pod(20, model.Ptr(int64(0))), stopAt(2500, spoketrace.StopDeleted)}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewTerminationTiming(), tc.evs...)
			if tc.fail == "" {
				require.True(t, r.OK, r.String())
				return
			}
			require.False(t, r.OK)
			require.Contains(t, r.String(), tc.fail)
		})
	}
}
