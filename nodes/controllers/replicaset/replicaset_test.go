package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

func TestCreatesReplicasWithOwnerRefs(t *testing.T) {
	e := newEnv(t, 1, envOpts{})
	rs := e.mustCreate(newRS("web", 3, 0)).(*model.ReplicaSet)
	e.Run(3 * time.Second)
	pods := e.pods("web")
	require.Len(t, pods, 3)
	for _, p := range pods {
		require.Equal(t, "web-", p.GenerateName)
		require.Len(t, p.Name, len("web-")+5)
		require.Equal(t, ns, p.Namespace)
		require.Equal(t, map[string]string{"app": "web", "tier": "web"}, p.Labels)
		require.Len(t, p.OwnerReferences, 1)
		ref := p.OwnerReferences[0]
		require.Equal(t, model.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: rs.UID,
			Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}, ref)
	}
	got := e.rs("web")
	require.Equal(t, int32(3), got.Status.Replicas)
	require.Equal(t, int32(3), got.Status.FullyLabeledReplicas)
	require.Equal(t, int32(0), got.Status.ReadyReplicas)
	require.Equal(t, got.Generation, got.Status.ObservedGeneration)
	require.Equal(t, []int{1, 2}, e.createBatches(), "slow start: 1, then 2")

	writes := e.count("update-status", model.ResourceReplicaSetsName)
	syncs := e.ctl.syncs
	p := pods[0]
	p.Annotations = map[string]string{"touched": "yes"} // a pod event: the ReplicaSet syncs again
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Update(p, done) })
	require.NoError(t, err)
	e.Run(5 * time.Second)
	require.Greater(t, e.ctl.syncs, syncs, "synced again")
	require.Equal(t, writes, e.count("update-status", model.ResourceReplicaSetsName), "an unchanged status is not written")
}

func TestScaleUpAndDown(t *testing.T) {
	cases := []struct {
		name  string
		steps []int32
	}{
		{"up", []int32{2, 7}},
		{"down", []int32{5, 2}},
		{"to zero and back", []int32{3, 0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 2, envOpts{})
			e.mustCreate(newRS("web", tc.steps[0], 0))
			for i, n := range tc.steps {
				if i > 0 {
					e.scale("web", n)
				}
				e.Run(5 * time.Second)
				require.Len(t, active(e.pods("web")), int(n), "after scaling to %d", n)
				require.Equal(t, n, e.rs("web").Status.Replicas)
			}
		})
	}
}

func TestScaleUpInSlowStartBatches(t *testing.T) {
	e := newEnv(t, 3, envOpts{})
	e.mustCreate(newRS("web", 10, 0))
	e.Run(5 * time.Second)
	require.Len(t, e.pods("web"), 10)
	require.Equal(t, []int{1, 2, 4, 3}, e.createBatches())
}

func TestBurstReplicasCapsOneSync(t *testing.T) {
	e := newEnv(t, 4, envOpts{cfg: Config{BurstReplicas: 3}})
	e.mustCreate(newRS("web", 5, 0))
	e.Run(5 * time.Second)
	require.Len(t, e.pods("web"), 5)
	require.Equal(t, []int{1, 2, 1, 1}, e.createBatches(), "3 in the first sync, the other 2 in the next")
}

func TestDeletedPodIsReplaced(t *testing.T) {
	e := newEnv(t, 5, envOpts{})
	e.mustCreate(newRS("web", 3, 0))
	e.Run(3 * time.Second)
	before := e.pods("web")
	require.Len(t, before, 3)
	_, err := e.call(func(done client.ObjectCallback) {
		e.Admin().Pods(ns).Delete(before[1].Name, client.DeleteOptions{}, done)
	})
	require.NoError(t, err)
	e.Run(3 * time.Second)
	after := e.pods("web")
	require.Len(t, after, 3)
	names := map[string]bool{}
	for _, p := range after {
		names[p.Name] = true
	}
	require.False(t, names[before[1].Name], "the deleted pod is gone")
	require.True(t, names[before[0].Name] && names[before[2].Name], "the others stay")
}

func TestStatusReadyAndAvailable(t *testing.T) {
	e := newEnv(t, 6, envOpts{})
	e.mustCreate(newRS("web", 3, 10))
	e.Run(3 * time.Second)
	pods := e.pods("web")
	require.Len(t, pods, 3)
	e.markReady(pods[0])
	e.markReady(pods[1])
	e.Run(2 * time.Second)
	st := e.rs("web").Status
	require.Equal(t, int32(3), st.Replicas)
	require.Equal(t, int32(2), st.ReadyReplicas)
	require.Equal(t, int32(0), st.AvailableReplicas, "not ready for minReadySeconds yet")
	e.Run(10 * time.Second)
	st = e.rs("web").Status
	require.Equal(t, int32(2), st.AvailableReplicas, "ready for more than 10 s: available")
}

func TestScaleDownPicksNotReadyFirst(t *testing.T) {
	e := newEnv(t, 7, envOpts{})
	e.mustCreate(newRS("web", 3, 0))
	e.Run(3 * time.Second)
	pods := e.pods("web")
	e.markReady(pods[0])
	e.markReady(pods[2])
	e.Run(time.Second)
	e.scale("web", 2)
	e.Run(3 * time.Second)
	left := e.pods("web")
	require.Len(t, left, 2)
	require.Equal(t, pods[0].Name, left[0].Name)
	require.Equal(t, pods[2].Name, left[1].Name)
}

func TestGracefulDeletionIsObservedOnce(t *testing.T) {
	e := newEnv(t, 8, envOpts{})
	e.mustCreate(&model.Node{ObjectMeta: model.ObjectMeta{Name: "node-1"}})
	e.mustCreate(newRS("web", 3, 0))
	e.Run(3 * time.Second)
	for _, p := range e.pods("web") {
		_, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Bind(p.Name, "node-1", done) })
		require.NoError(t, err)
	}
	e.scale("web", 1)
	e.Run(10 * time.Second) // no kubelet: the deleted pods stay, terminating
	pods := e.pods("web")
	require.Len(t, pods, 3)
	require.Len(t, active(pods), 1)
	require.Equal(t, 2, e.count("delete", model.ResourcePodsName), "each pod deleted once")
	require.Equal(t, 3, e.count("create", model.ResourcePodsName), "terminating pods are not replaced")
	require.Equal(t, int32(1), e.rs("web").Status.Replicas, "terminating pods are not counted")
	_, del, _ := e.ctl.exp.pending("default/web")
	require.Zero(t, del, "deletionTimestamp observed as deletion")
}

func TestAdoptsOrphansAndReleasesMismatches(t *testing.T) {
	e := newEnv(t, 9, envOpts{})
	orphan := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "stray", Namespace: ns, Labels: map[string]string{"app": "web"}},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}
	e.mustCreate(orphan)
	other := orphan.DeepCopy()
	other.Name, other.Labels = "unrelated", map[string]string{"app": "db"}
	e.mustCreate(other)
	rs := e.mustCreate(newRS("web", 3, 0)).(*model.ReplicaSet)
	e.Run(3 * time.Second)
	pods := e.pods("web")
	require.Len(t, pods, 3, "the orphan counts: 2 created")
	stray, err := e.Get(model.ResourcePodsName, ns, "stray")
	require.NoError(t, err)
	require.True(t, model.IsControlledBy(stray, rs), "adopted")
	unrelated, err := e.Get(model.ResourcePodsName, ns, "unrelated")
	require.NoError(t, err)
	require.Nil(t, model.GetControllerOf(unrelated), "not matching: left alone")

	// Relabel a controlled pod out of the selector: released and replaced.
	p := stray.(*model.Pod)
	p.Labels = map[string]string{"app": "other"}
	_, err = e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Update(p, done) })
	require.NoError(t, err)
	e.Run(3 * time.Second)
	released, err := e.Get(model.ResourcePodsName, ns, "stray")
	require.NoError(t, err)
	require.Nil(t, model.GetControllerOf(released), "released")
	require.Len(t, e.pods("web"), 3, "replaced")
}

func TestFailedCreatesLowerExpectations(t *testing.T) {
	// The scheduler's identity may not create pods: every create is refused.
	e := newEnv(t, 10, envOpts{user: "system:kube-scheduler"})
	e.mustCreate(newRS("web", 5, 0))
	e.Run(time.Second)
	add, _, ok := e.ctl.exp.pending("default/web")
	require.True(t, ok)
	require.LessOrEqual(t, add, int64(0), "the refused and skipped creations are not waited for")
	require.True(t, e.ctl.exp.SatisfiedExpectations("default/web"))
	creates := e.count("create", model.ResourcePodsName)
	require.GreaterOrEqual(t, creates, 1)
	require.Equal(t, creates, len(e.createBatches()), "slow start: one refused create per sync, not five")
}
