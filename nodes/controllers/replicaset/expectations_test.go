package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

func TestExpectations(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "kcm"})
	w.RunFor(0)
	e := newExpectations(h)
	const key = "default/web"

	require.True(t, e.SatisfiedExpectations(key), "none set: act")
	e.ExpectCreations(key, 2)
	require.False(t, e.SatisfiedExpectations(key))
	e.CreationObserved(key)
	require.False(t, e.SatisfiedExpectations(key))
	e.CreationObserved(key)
	require.True(t, e.SatisfiedExpectations(key), "both creations observed")

	e.ExpectDeletions(key, []string{"default/a", "default/b"})
	require.False(t, e.SatisfiedExpectations(key))
	e.DeletionObserved(key, "default/a")
	e.DeletionObserved(key, "default/a") // deletionTimestamp, then gone: once
	e.DeletionObserved(key, "default/x") // not one we deleted
	require.False(t, e.SatisfiedExpectations(key))
	e.DeletionObserved(key, "default/b")
	require.True(t, e.SatisfiedExpectations(key))

	e.ExpectCreations(key, 1)
	w.RunFor(ExpectationsTimeout)
	require.False(t, e.SatisfiedExpectations(key), "not yet expired at exactly 5 min")
	w.RunFor(time.Millisecond)
	require.True(t, e.SatisfiedExpectations(key), "expired")

	e.ExpectCreations(key, 1)
	e.DeleteExpectations(key)
	require.True(t, e.SatisfiedExpectations(key), "forgotten with the ReplicaSet")
}

// TestExpectationsPreventOverCreation is the replicaset-no-expectations
// ablation's proof at unit level. The pod informer is driven by hand and
// lags: it has seen none of the pods the controller created. The
// controller's own status write makes the ReplicaSet informer deliver an
// update, and so a second sync on the stale pod view. With expectations
// the controller waits for its three creations to be observed; without,
// it creates them again.
func TestExpectationsPreventOverCreation(t *testing.T) {
	cases := []struct {
		name string
		abl  ablation.Set
		want int
	}{
		{"expectations", ablation.Set{}, 3},
		{"no-expectations ablation", ablation.Of(ablation.NoExpectations), 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 11, envOpts{cfg: Config{Ablations: tc.abl}, handPods: true})
			e.mustCreate(newRS("web", 3, 0))
			e.Run(10 * time.Second)
			require.Len(t, e.pods("web"), tc.want)
			require.Equal(t, int64(1), e.rs("web").Status.ObservedGeneration, "the status write that led to a second sync")
			// Every creation succeeded and none was observed: all three are
			// still expected (manageReplicas lowers only the skipped ones,
			// diff - successfulCreations).
			add, _, _ := e.ctl.exp.pending("default/web")
			require.Equal(t, int64(3), add)

			// The informer catches up: both settle at 3, the ablated one by
			// deleting the pods it should never have made.
			e.ctx.Pods.Run() // its reflector lists, then watches
			e.Run(5 * time.Second)
			require.Len(t, e.pods("web"), 3)
			require.Equal(t, tc.want, e.count("create", model.ResourcePodsName))
			require.Equal(t, tc.want-3, e.count("delete", model.ResourcePodsName))
		})
	}
}

func TestSlowStartBatch(t *testing.T) {
	cases := []struct {
		name        string
		count, init int
		failAt      int // the call (from 1) that fails; 0: none
		batches     []int
		successes   int
	}{
		{"all succeed", 10, 1, 0, []int{1, 2, 4, 3}, 10},
		{"one", 1, 1, 0, []int{1}, 1},
		{"none", 0, 1, 0, nil, 0},
		{"first fails: stop", 10, 1, 1, []int{1}, 0},
		{"fails in the third batch", 10, 1, 5, []int{1, 2, 4}, 6},
		{"initial batch of 2", 7, 2, 0, []int{2, 4, 1}, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.NewWorld(1)
			h := w.MustAddHost(sim.HostSpec{Name: "kcm"})
			w.RunFor(0)
			c := &Controller{}
			var batches []int
			var last sim.Time = -1
			calls := 0
			finished := false
			var gotSuccesses int
			var gotErr error
			c.slowStartBatch(tc.count, tc.init, func(done func(error)) {
				calls++
				if h.Now() != last {
					batches = append(batches, 0)
					last = h.Now()
				}
				batches[len(batches)-1]++
				var err error
				if calls == tc.failAt {
					err = errNoLabels
				}
				h.After(time.Millisecond, "answer", func() { done(err) })
			}, func(n int, err error) { finished, gotSuccesses, gotErr = true, n, err })
			w.RunFor(time.Second)
			require.True(t, finished)
			require.Equal(t, tc.batches, batches)
			require.Equal(t, tc.successes, gotSuccesses)
			if tc.failAt > 0 {
				require.ErrorIs(t, gotErr, errNoLabels)
			} else {
				require.NoError(t, gotErr)
			}
		})
	}
}

// rankPod builds a pod for the ranking tests.
type rankPod struct {
	name     string
	node     string
	phase    model.PodPhase
	readyAt  model.Time // 0: not ready
	cost     string
	restarts int32
	created  model.Time
}

func (r rankPod) pod() *model.Pod {
	p := &model.Pod{}
	p.Name, p.UID, p.Namespace = r.name, model.UID(r.name), ns
	p.Spec.NodeName = r.node
	p.Status.Phase = r.phase
	if p.Status.Phase == "" {
		p.Status.Phase = model.PodRunning
	}
	if r.readyAt != 0 {
		p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: r.readyAt}}
	}
	if r.cost != "" {
		p.Annotations = map[string]string{PodDeletionCostAnnotation: r.cost}
	}
	p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "c", RestartCount: r.restarts}}
	p.CreationTimestamp = r.created
	return p
}

// TestGetPodsToDeleteRanking checks ActivePodsWithRanks.Less with
// LogarithmicScaleDown (kubernetes/kubernetes pkg/controller/controller_utils.go:
// ready time and creation time compare by logarithmicRankDiff, ties by UID,
// and a zero time goes first through afterOrZero).
func TestGetPodsToDeleteRanking(t *testing.T) {
	const sec = model.Time(time.Second)
	now := 10000 * sec
	cases := []struct {
		name    string
		pods    []rankPod
		related []rankPod
		diff    int
		want    []string
	}{
		{"unassigned first", []rankPod{{name: "a", node: "n1", created: 5 * sec}, {name: "b", created: 1 * sec}}, nil, 1, []string{"b"}},
		{"pending < unknown < running", []rankPod{
			{name: "run", node: "n", phase: model.PodRunning, created: sec},
			{name: "unk", node: "n", phase: model.PodUnknown, created: sec},
			{name: "pend", node: "n", phase: model.PodPending, created: sec}}, nil, 2, []string{"pend", "unk"}},
		{"not ready first", []rankPod{{name: "ready", node: "n", readyAt: sec, created: 9000 * sec}, {name: "notready", node: "n", created: sec}}, nil, 1, []string{"notready"}},
		{"lower deletion cost first", []rankPod{{name: "a", node: "n", cost: "10", created: 9000 * sec}, {name: "b", node: "n", cost: "-5", created: sec}}, nil, 1, []string{"b"}},
		{"doubled up first", []rankPod{{name: "alone", node: "n1", created: 9000 * sec}, {name: "crowded", node: "n2", created: sec}},
			[]rankPod{{name: "x", node: "n2"}, {name: "y", node: "n2"}, {name: "z", node: "n1"}}, 1, []string{"crowded"}},
		{"ready for less time first", []rankPod{{name: "old", node: "n", readyAt: 100 * sec, created: sec}, {name: "young", node: "n", readyAt: 9990 * sec, created: sec}}, nil, 1, []string{"young"}},
		{"more restarts first", []rankPod{{name: "calm", node: "n", created: sec}, {name: "crashy", node: "n", restarts: 4, created: sec}}, nil, 1, []string{"crashy"}},
		{"newer first", []rankPod{{name: "old", node: "n", created: 10 * sec}, {name: "new", node: "n", created: 9000 * sec}}, nil, 1, []string{"new"}},
		{"same log2 bucket: by UID", []rankPod{{name: "b", node: "n", created: 9000 * sec}, {name: "a", node: "n", created: 9001 * sec}}, nil, 1, []string{"a"}},
		// Within a log2 bucket of age the UID decides, not the age: the
		// older pod "a" (1000 s old) goes before "b" (999 s old).
		{"same log2 bucket: by UID though older", []rankPod{{name: "b", node: "n", created: 9001 * sec}, {name: "a", node: "n", created: 9000 * sec}}, nil, 1, []string{"a"}},
		{"ready in the same log2 bucket: by UID though ready longer", []rankPod{{name: "b", node: "n", readyAt: 9001 * sec, created: sec}, {name: "a", node: "n", readyAt: 9000 * sec, created: sec}}, nil, 1, []string{"a"}},
		{"no creation time first", []rankPod{{name: "a", node: "n", created: 9000 * sec}, {name: "b", node: "n"}}, nil, 1, []string{"b"}},
		{"created this instant: newest", []rankPod{{name: "a", node: "n", created: 9000 * sec}, {name: "b", node: "n", created: now}}, nil, 1, []string{"b"}},
		{"no creation time first, listed first", []rankPod{{name: "b", node: "n"}, {name: "a", node: "n", created: 9000 * sec}}, nil, 1, []string{"b"}},
		{"all of them: no sorting", []rankPod{{name: "a", node: "n"}, {name: "b"}}, nil, 2, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pods, related []*model.Pod
			for _, r := range tc.pods {
				pods = append(pods, r.pod())
			}
			for _, r := range tc.related {
				related = append(related, r.pod())
			}
			var got []string
			for _, p := range getPodsToDelete(pods, related, tc.diff, now) {
				got = append(got, p.Name)
			}
			require.Equal(t, tc.want, got)
		})
	}
}
