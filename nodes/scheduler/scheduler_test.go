package scheduler

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// podNames returns p1..pn.
func podNames(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, "p"+strconv.Itoa(i))
	}
	return out
}

func TestPodsGetBound(t *testing.T) {
	tc := newTestCluster(t, 1, 3, nil)
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		tc.createNode(nodeSpec{name: n, cpu: "4", memory: "8Gi"})
	}
	tc.addScheduler("scheduler", nil)
	names := podNames(1, 6)
	for _, n := range names {
		tc.createPod(podSpec{name: n, cpu: "100m", memory: "128Mi"})
	}
	// A pod for another scheduler is left alone.
	tc.createPod(podSpec{name: "other", scheduler: "my-scheduler"})
	pods := tc.runUntilBound(30*time.Second, names...)
	for _, n := range names {
		c := podScheduled(pods[n])
		require.NotNil(t, c, n)
		require.Equal(t, model.ConditionTrue, c.Status, n)
	}
	tc.Run(10 * time.Second)
	require.Empty(t, tc.nodeOf("other"))
	require.Equal(t, []leadingAt{{Leading: spoketrace.Leading{Component: "kube-scheduler", Identity: "scheduler", Leading: true},
		at: tc.leading[0].at}}, tc.leading)
	s := tc.scheduler("scheduler")
	require.True(t, s.Leading())
	require.Empty(t, s.Pending())
	tc.requireBoundOnce()
}

func TestLeastAllocatedSpreads(t *testing.T) {
	tests := []struct {
		name  string
		nodes []nodeSpec
		pods  int
		want  map[string]int
	}{
		{
			name: "equal nodes share evenly",
			nodes: []nodeSpec{{name: "a", cpu: "4", memory: "8Gi"}, {name: "b", cpu: "4", memory: "8Gi"},
				{name: "c", cpu: "4", memory: "8Gi"}},
			pods: 6,
			want: map[string]int{"a": 2, "b": 2, "c": 2},
		},
		{
			// Pods of 1 cpu, 1Gi. Scores (cpu and memory averaged): the
			// first on a (75+87)/2=81 against b's (50+87)/2=68; the second
			// on b, 68 against a's (50+75)/2=62; the third on a, 62
			// against b's (0+75)/2=37; the fourth on a, (25+62)/2=43.
			name:  "the larger node takes more",
			nodes: []nodeSpec{{name: "a", cpu: "4", memory: "8Gi"}, {name: "b", cpu: "2", memory: "8Gi"}},
			pods:  4,
			want:  map[string]int{"a": 3, "b": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := newTestCluster(t, 2, 1, nil)
			for _, n := range tt.nodes {
				tc.createNode(n)
			}
			tc.addScheduler("scheduler", nil)
			tc.Run(20 * time.Second) // leading, informers synced
			// One at a time, so that each placement sees the previous ones.
			for _, n := range podNames(1, tt.pods) {
				tc.createPod(podSpec{name: n, cpu: "1", memory: "1Gi"})
				tc.runUntilBound(10*time.Second, n)
			}
			require.Equal(t, tt.want, countByNode(tc.pods()))
			tc.requireBoundOnce()
		})
	}
}

func TestResourcesFit(t *testing.T) {
	tc := newTestCluster(t, 3, 3, nil)
	tc.createNode(nodeSpec{name: "small-1", cpu: "1", memory: "2Gi"})
	tc.createNode(nodeSpec{name: "small-2", cpu: "1", memory: "2Gi", pods: "1"})
	tc.addScheduler("scheduler", nil)
	tc.createPod(podSpec{name: "big", cpu: "2", memory: "1Gi"})
	tc.Run(20 * time.Second)

	p := tc.pods()["big"]
	require.Empty(t, p.Spec.NodeName)
	c := podScheduled(p)
	require.NotNil(t, c)
	require.Equal(t, model.ConditionFalse, c.Status)
	require.Equal(t, model.PodReasonUnschedulable, c.Reason)
	require.Equal(t, "0/2 nodes are available: 2 Insufficient cpu.", c.Message)
	require.Equal(t, []string{"default/big"}, tc.scheduler("scheduler").Pending())

	// Two small pods: one fills small-2's pods count, the next must go to
	// small-1; a third finds small-1's cpu taken, and small-2 both full and
	// short of cpu (NodeResourcesFit reports every shortage).
	tc.createPod(podSpec{name: "s1", cpu: "600m"})
	tc.createPod(podSpec{name: "s2", cpu: "600m"})
	tc.runUntilBound(10*time.Second, "s1", "s2")
	tc.createPod(podSpec{name: "s3", cpu: "600m"})
	tc.Run(5 * time.Second)
	c = podScheduled(tc.pods()["s3"])
	require.NotNil(t, c)
	require.Equal(t, "0/2 nodes are available: 1 Too many pods, 2 Insufficient cpu.", c.Message)

	// A node that fits appears: the node event retries the parked pods
	// at once, without waiting the 5 minutes.
	tc.createNode(nodeSpec{name: "big-1", cpu: "8", memory: "16Gi"})
	pods := tc.runUntilBound(5*time.Second, "big", "s3")
	require.Equal(t, "big-1", pods["big"].Spec.NodeName)
	require.Equal(t, "big-1", pods["s3"].Spec.NodeName)
	require.Equal(t, model.ConditionTrue, podScheduled(pods["big"]).Status)
	tc.requireBoundOnce()
}

func TestFilters(t *testing.T) {
	gpu := model.Taint{Key: "dedicated", Value: "gpu", Effect: model.TaintEffectNoSchedule}
	evict := model.Taint{Key: "maintenance", Effect: model.TaintEffectNoExecute}
	soft := model.Taint{Key: "spot", Value: "true", Effect: model.TaintEffectPreferNoSchedule}
	tests := []struct {
		name     string
		nodes    []nodeSpec
		pod      podSpec
		wantNode string // "" expects the pod unschedulable with wantMsg
		wantMsg  string
	}{
		{
			name:    "untolerated NoSchedule and NoExecute taints",
			nodes:   []nodeSpec{{name: "a", taints: []model.Taint{gpu}}, {name: "b", taints: []model.Taint{evict}}},
			pod:     podSpec{name: "p"},
			wantMsg: "0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {maintenance: }.",
		},
		{
			name:     "a toleration admits its taint only",
			nodes:    []nodeSpec{{name: "a", taints: []model.Taint{gpu}}, {name: "b", taints: []model.Taint{evict}}},
			pod:      podSpec{name: "p", tolerations: []model.Toleration{{Key: "dedicated", Operator: model.TolerationOpEqual, Value: "gpu", Effect: model.TaintEffectNoSchedule}}},
			wantNode: "a",
		},
		{
			name:     "an Exists toleration admits any value",
			nodes:    []nodeSpec{{name: "a", taints: []model.Taint{gpu}}, {name: "b", taints: []model.Taint{evict}}},
			pod:      podSpec{name: "p", tolerations: []model.Toleration{{Key: "maintenance", Operator: model.TolerationOpExists}}},
			wantNode: "b",
		},
		{
			name:     "PreferNoSchedule does not filter",
			nodes:    []nodeSpec{{name: "a", taints: []model.Taint{gpu}}, {name: "b", taints: []model.Taint{soft}}},
			pod:      podSpec{name: "p"},
			wantNode: "b",
		},
		{
			name:     "a node not Ready is skipped",
			nodes:    []nodeSpec{{name: "a", notReady: true}, {name: "b"}},
			pod:      podSpec{name: "p"},
			wantNode: "b",
		},
		{
			name:    "no Ready node",
			nodes:   []nodeSpec{{name: "a", notReady: true}, {name: "b", unschedulable: true}},
			pod:     podSpec{name: "p"},
			wantMsg: "0/2 nodes are available: 1 node(s) were not ready, 1 node(s) were unschedulable.",
		},
		{
			name:     "a cordoned node is skipped",
			nodes:    []nodeSpec{{name: "a", unschedulable: true}, {name: "b", cpu: "1"}},
			pod:      podSpec{name: "p"},
			wantNode: "b",
		},
		{
			name:    "no nodes at all",
			pod:     podSpec{name: "p"},
			wantMsg: "no nodes available to schedule pods",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := newTestCluster(t, 4, 1, nil)
			for _, n := range tt.nodes {
				if n.cpu == "" {
					n.cpu = "8" // larger than b's, so least-allocated would prefer a
				}
				n.memory = "16Gi"
				tc.createNode(n)
			}
			tc.addScheduler("scheduler", nil)
			tc.createPod(tt.pod)
			if tt.wantNode != "" {
				pods := tc.runUntilBound(30*time.Second, tt.pod.name)
				require.Equal(t, tt.wantNode, pods[tt.pod.name].Spec.NodeName)
				tc.requireBoundOnce()
				return
			}
			tc.Run(30 * time.Second)
			p := tc.pods()[tt.pod.name]
			require.Empty(t, p.Spec.NodeName)
			c := podScheduled(p)
			require.NotNil(t, c)
			require.Equal(t, model.PodReasonUnschedulable, c.Reason)
			require.Equal(t, tt.wantMsg, c.Message)
			require.Empty(t, tc.bound)
		})
	}
}

func TestUnschedulableConditionWrittenOnceAndKept(t *testing.T) {
	tc := newTestCluster(t, 5, 1, nil)
	tc.createNode(nodeSpec{name: "a", cpu: "1", memory: "1Gi"})
	tc.addScheduler("scheduler", nil)
	tc.createPod(podSpec{name: "p", cpu: "2"})
	tc.Run(20 * time.Second)
	first := tc.pods()["p"]
	require.NotNil(t, podScheduled(first))
	// Node updates that change its scheduling properties retry the pod;
	// the same verdict does not write the pod again.
	for i := 0; i < 3; i++ {
		obj, err := tc.Get(model.ResourceNodesName, "", "a")
		require.NoError(t, err)
		node := obj.(*model.Node)
		node.Labels = map[string]string{"round": strconv.Itoa(i)}
		done := false
		tc.Admin().Nodes().Update(node, func(_ model.Object, e error) { require.NoError(t, e); done = true })
		tc.Run(5 * time.Second)
		require.True(t, done)
	}
	require.Equal(t, first.ResourceVersion, tc.pods()["p"].ResourceVersion)

	// A status write that lost the condition (as a write of ours that lost
	// a race to another would) is redone from the informer's event.
	cleared := first.DeepCopy()
	cleared.Status.Conditions = nil
	done := false
	tc.Admin().Pods("default").UpdateStatus(cleared, func(_ model.Object, e error) { require.NoError(t, e); done = true })
	tc.Run(5 * time.Second)
	require.True(t, done)
	c := podScheduled(tc.pods()["p"])
	require.NotNil(t, c)
	require.Equal(t, podScheduled(first).Message, c.Message)
}

func TestTwoUnelectedSchedulersBindTwiceOnlyWithAblation(t *testing.T) {
	// Two replicas without leader election race for every pod. The real
	// API server's conflict check lets one binding win (the other gets 409
	// and drops the pod); with the scheduler-no-conflict-check ablation
	// both succeed, and pods are bound twice.
	for _, ablate := range []bool{false, true} {
		tc := newTestCluster(t, 6, 1, func(c *apiserver.Config) { c.Ablations = ablation.When(ablate, ablation.BindNoConflictCheck) })
		for _, n := range []string{"a", "b", "c", "d"} {
			tc.createNode(nodeSpec{name: n, cpu: "4", memory: "8Gi"})
		}
		for _, name := range []string{"sched-1", "sched-2"} {
			tc.addScheduler(name, func(c *Config) { c.DisableLeaderElection = true })
		}
		tc.Run(5 * time.Second)
		names := podNames(1, 8)
		for _, n := range names {
			tc.createPod(podSpec{name: n, cpu: "100m"})
		}
		tc.runUntilBound(20*time.Second, names...)
		tc.Run(5 * time.Second)
		perPod := map[string]int{}
		for _, b := range tc.bound {
			perPod[b.Pod]++
		}
		twice := 0
		for _, n := range perPod {
			require.LessOrEqual(t, n, 2)
			if n == 2 {
				twice++
			}
		}
		require.Empty(t, tc.leading, "no leader election, no Leading events")
		if !ablate {
			require.Zero(t, twice)
			tc.requireBoundOnce()
			continue
		}
		require.Positive(t, twice, "ablation: some pod was bound by both schedulers")
	}
}
