package manager

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/controllers/podgc"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

const ns = "default"

// leadingAt is a Leading event and when it happened.
type leadingAt struct {
	spoketrace.Leading
	at sim.Time
}

// env is a cluster with n controller manager replicas "kcm-1".."kcm-n".
type env struct {
	*apitest.Cluster
	t       *testing.T
	leading []leadingAt
	relists []apitrace.Relist
	creates int // pod creates admitted for the controller manager
}

func newEnv(t *testing.T, seed uint64, n int, abl ablation.Set) *env {
	return newEnvConfig(t, seed, n, Config{Ablations: abl})
}

// newEnvConfig is newEnv with every replica configured as cfg (its
// Servers set here).
func newEnvConfig(t *testing.T, seed uint64, n int, cfg Config) *env {
	e := &env{Cluster: apitest.New(seed, 1, 1, nil), t: t}
	e.W.Subscribe(func(ev *sim.Event) {
		switch d := ev.Data.(type) {
		case *spoketrace.Leading:
			e.leading = append(e.leading, leadingAt{Leading: *d, at: ev.At})
		case *apitrace.Relist:
			e.relists = append(e.relists, *d)
		case *apitrace.Admit:
			if d.User == User && d.Verb == string(apiwire.VerbCreate) && d.Resource == model.ResourcePodsName {
				e.creates++
			}
		}
	})
	e.Settle()
	for i := 1; i <= n; i++ {
		c := cfg
		c.Servers = e.Servers
		e.AddHost(name(i), Boot(c))
	}
	return e
}

func name(i int) string { return "kcm-" + string(rune('0'+i)) }

func (e *env) manager(i int) *Manager {
	m, _ := e.Host(name(i)).Exposed(ExposeName).(*Manager)
	return m
}

// leaders returns the identities whose last Leading event says leading.
func (e *env) leaders() []string {
	last := map[string]bool{}
	var order []string
	for _, l := range e.leading {
		if _, ok := last[l.Identity]; !ok {
			order = append(order, l.Identity)
		}
		last[l.Identity] = l.Leading.Leading
	}
	var out []string
	for _, id := range order {
		if last[id] {
			out = append(out, id)
		}
	}
	return out
}

func newRS(name string, replicas int32) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.ReplicaSetSpec{Replicas: model.Ptr(replicas), Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}}}
}

// pods counts the stored pods of app.
func (e *env) pods(app string) int {
	e.t.Helper()
	all, err := e.List(model.ResourcePodsName)
	require.NoError(e.t, err)
	n := 0
	for _, o := range all {
		if o.GetObjectMeta().Labels["app"] == app {
			n++
		}
	}
	return n
}

func (e *env) mustCreate(obj model.Object) {
	e.t.Helper()
	_, err := e.Create(obj)
	require.NoError(e.t, err)
}

func TestOneLeaderRunsTheControllers(t *testing.T) {
	e := newEnv(t, 1, 2, ablation.Set{})
	e.Run(10 * time.Second)
	require.Len(t, e.leading, 1, "one replica leads, the other stands by")
	leader := e.leading[0].Identity
	require.Equal(t, Component, e.leading[0].Component)
	require.Equal(t, []string{leader}, e.leaders())
	lease, err := e.Get(model.ResourceLeasesName, "kube-system", LeaseName)
	require.NoError(t, err)
	require.Equal(t, leader, model.Deref(lease.(*model.Lease).Spec.HolderIdentity, ""))
	var standby *Manager
	for i := 1; i <= 2; i++ {
		m := e.manager(i)
		require.Equal(t, m.Identity() == leader, m.Leading())
		if !m.Leading() {
			standby = m
		}
	}
	require.Nil(t, standby.Context(), "a standby has no informers")

	e.mustCreate(newRS("web", 3))
	e.Run(5 * time.Second)
	require.Equal(t, 3, e.pods("web"))
	require.Equal(t, 3, e.creates, "one ReplicaSet controller at work")
}

func TestFailoverAfterLeaderCrash(t *testing.T) {
	e := newEnv(t, 2, 2, ablation.Set{})
	e.Run(10 * time.Second)
	require.Len(t, e.leaders(), 1)
	first := e.leaders()[0]
	e.mustCreate(newRS("web", 2))
	e.Run(3 * time.Second)

	crashed := e.Host(first)
	crashed.Crash()
	at := e.W.Now()
	e.Run(30 * time.Second)
	require.Len(t, e.leading, 2, "a crash emits nothing; the standby takes over")
	next := e.leading[1]
	require.NotEqual(t, first, next.Identity)
	require.True(t, next.Leading.Leading)
	took := next.at.Sub(at)
	require.Greater(t, took, 10*time.Second, "not before the lease could have expired")
	require.LessOrEqual(t, took, 15*time.Second+2*time.Duration(2.2*float64(2*time.Second)), "lease duration plus at most two jittered retries")

	// The new leader's controllers work.
	e.scale("web", 4)
	e.Run(5 * time.Second)
	require.Equal(t, 4, e.pods("web"))
	require.Equal(t, 4, e.creates)
}

func TestLostLeadershipStopsEverythingAndRestarts(t *testing.T) {
	e := newEnv(t, 3, 2, ablation.Set{})
	e.Run(10 * time.Second)
	first := e.leaders()[0]
	var m *Manager
	for i := 1; i <= 2; i++ {
		if e.manager(i).Identity() == first {
			m = e.manager(i)
		}
	}
	oldCtx := m.Context()
	// Cut the leader off the API server: its renewals fail.
	h := e.Host(first)
	cuts := e.W.Network().Isolate(h.ID())
	e.Run(30 * time.Second)
	e.W.Network().Restore(cuts)
	require.Equal(t, 1, m.Restarts(), "the process exited and was restarted")
	require.False(t, m.Leading())
	require.NotEqual(t, []string{first}, e.leaders())
	require.Len(t, e.leaders(), 1, "the other replica took over")
	var stopped []leadingAt
	for _, l := range e.leading {
		if l.Identity == first && !l.Leading.Leading {
			stopped = append(stopped, l)
		}
	}
	require.Len(t, stopped, 1, "the old leader said it stopped")

	e.Run(5 * time.Second)
	e.mustCreate(newRS("web", 3))
	e.Run(5 * time.Second)
	require.Equal(t, 3, e.pods("web"), "only the new leader's controllers act")
	require.Equal(t, 3, e.creates)
	for _, inf := range []*cache.Informer{oldCtx.Pods, oldCtx.ReplicaSets} {
		_, ok := inf.GetStore().GetByKey(ns + "/web")
		require.False(t, ok, "the old process's informers stopped: %s", inf.Name())
	}
}

func TestPollNotWatch(t *testing.T) {
	e := newEnv(t, 4, 1, ablation.Of(ablation.PollNotWatch))
	e.Run(10 * time.Second)
	require.True(t, e.manager(1).Leading())
	e.mustCreate(newRS("web", 3))
	e.Run(10 * time.Second)
	require.Equal(t, 3, e.pods("web"), "reconciled from polls")
	polls := map[string]int{}
	for _, r := range e.relists {
		if r.Reason == cache.RelistPoll {
			polls[r.Resource]++
		}
	}
	for _, res := range []string{"pods", "nodes", "replicasets", "deployments", "leases"} {
		require.GreaterOrEqual(t, polls[res], 4, "%s polled every 2 s", res)
	}
}

// scale sets a ReplicaSet's replicas as admin, retrying on conflicts.
func (e *env) scale(name string, replicas int32) {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		obj, err := e.Get(model.ResourceReplicaSetsName, ns, name)
		require.NoError(e.t, err)
		rs := obj.(*model.ReplicaSet)
		rs.Spec.Replicas = model.Ptr(replicas)
		done, failed := false, false
		e.Admin().ReplicaSets(ns).Update(rs, func(_ model.Object, err error) { done, failed = true, err != nil })
		for j := 0; j < 100 && !done; j++ {
			e.Run(100 * time.Millisecond)
		}
		if done && !failed {
			return
		}
	}
	e.t.Fatalf("could not scale %s", name)
}

// churn runs two replicas through a ReplicaSet, a scale-down, a leader
// crash and a failover, and returns the trace hash.
func churn(t *testing.T, seed uint64) uint64 {
	e := newEnv(t, seed, 2, ablation.Set{})
	e.Run(10 * time.Second)
	e.mustCreate(newRS("web", 4))
	e.Run(3 * time.Second)
	e.scale("web", 2)
	e.Host(e.leaders()[0]).Crash()
	e.Run(30 * time.Second)
	return e.W.Trace().Hash()
}

func TestDeterministicTrace(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		require.Equal(t, churn(t, seed), churn(t, seed), "seed %d", seed)
	}
}

// TestLeaderElectionSettings: kube-controller-manager's elector client
// times out requests at max(1 s, RenewDeadline/2) = 5 s (client-go
// resourcelock.NewFromKubeconfig, which leaderElectAndRun in
// cmd/kube-controller-manager/app/controllermanager.go calls with the
// renew deadline), and leaderElectAndRun leaves ReleaseOnCancel false: a
// leader cut off for 10 s, whose renew round then fails after the cut has
// healed, exits without writing the Lease (it still names it, with its
// 15 s duration), so the other replica waits out the lease duration.
func TestLeaderElectionSettings(t *testing.T) {
	require.Equal(t, 5*time.Second, leaderelection.ClientTimeout(10*time.Second))
	require.Equal(t, time.Second, leaderelection.ClientTimeout(time.Second))
	e := newEnv(t, 5, 2, ablation.Set{})
	e.Run(10 * time.Second)
	require.Len(t, e.leaders(), 1)
	first := e.leaders()[0]
	for i := 1; i <= 2; i++ {
		require.Equal(t, 5*time.Second, e.manager(i).le.Config().Timeout)
	}
	var atStop *model.Lease
	e.W.Subscribe(func(ev *sim.Event) {
		if d, ok := ev.Data.(*spoketrace.Leading); ok && !d.Leading && atStop == nil {
			obj, err := e.Get(model.ResourceLeasesName, "kube-system", LeaseName)
			require.NoError(t, err)
			atStop = obj.(*model.Lease)
		}
	})
	cuts := e.W.Network().Isolate(e.Host(first).ID())
	e.Run(10 * time.Second)
	e.W.Network().Restore(cuts)
	e.Run(3 * time.Second)
	require.NotNil(t, atStop, "the cut-off leader stepped down at its renew deadline")
	require.Equal(t, first, model.Deref(atStop.Spec.HolderIdentity, ""), "no release")
	require.Equal(t, int32(15), model.Deref(atStop.Spec.LeaseDurationSeconds, 0))
}

// TestTerminatedPodThresholdReachesPodGC: Config.TerminatedPodThreshold
// is kube-controller-manager's --terminated-pod-gc-threshold
// (cmd/kube-controller-manager/app/core.go startPodGCController hands
// TerminatedPodGCThreshold to podgc.NewPodGC): with 2, the leader's pod
// garbage collector deletes the oldest of 4 terminated pods at its next
// check (pkg/controller/podgc/gc_controller.go gcTerminated); with the
// default (12,500) it deletes none.
func TestTerminatedPodThresholdReachesPodGC(t *testing.T) {
	for _, tc := range []struct {
		threshold int
		left      []string
	}{{2, []string{"t2", "t3"}}, {0, []string{"t0", "t1", "t2", "t3"}}} {
		e := newEnvConfig(t, 6, 1, Config{TerminatedPodThreshold: tc.threshold})
		e.mustCreate(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n"}})
		for i := 0; i < 4; i++ {
			obj, err := e.Create(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "t" + string(rune('0'+i)), Namespace: ns},
				Spec: model.PodSpec{NodeName: "n", Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}})
			require.NoError(t, err)
			p := obj.(*model.Pod).DeepCopy()
			p.Status.Phase = model.PodSucceeded
			done := false
			e.Admin().Pods(ns).UpdateStatus(p, func(_ model.Object, err error) { require.NoError(t, err); done = true })
			for !done {
				e.Run(100 * time.Millisecond)
			}
			e.Run(time.Second) // distinct creation timestamps
		}
		e.Run(podgc.DefaultCheckPeriod + 20*time.Second)
		var left []string
		for i := 0; i < 4; i++ {
			n := "t" + string(rune('0'+i))
			if _, err := e.Get(model.ResourcePodsName, ns, n); err == nil {
				left = append(left, n)
			}
		}
		require.Equal(t, tc.left, left, "threshold %d", tc.threshold)
	}
}

// TestMaxEndpointsPerSliceReachesEndpointSlice: Config.MaxEndpointsPerSlice
// is kube-controller-manager's --max-endpoints-per-slice
// (cmd/kube-controller-manager/app/discovery.go hands
// EndpointSliceController.MaxEndpointsPerSlice to endpointslice's
// NewController): with 2, the leader's EndpointSlice controller lists a
// Service's 5 pods in slices of 2, 2 and 1; with the default (100), in one.
func TestMaxEndpointsPerSliceReachesEndpointSlice(t *testing.T) {
	for _, tc := range []struct {
		max   int
		sizes []int
	}{{2, []int{1, 2, 2}}, {0, []int{5}}} {
		e := newEnvConfig(t, 7, 1, Config{MaxEndpointsPerSlice: tc.max})
		e.mustCreate(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n"}})
		e.mustCreate(&model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: ns},
			Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []model.ServicePort{{Name: "http", Port: 80}}}})
		for i := 0; i < 5; i++ {
			obj, err := e.Create(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "p" + string(rune('0'+i)), Namespace: ns, Labels: map[string]string{"app": "web"}},
				Spec: model.PodSpec{NodeName: "n", Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}})
			require.NoError(t, err)
			p := obj.(*model.Pod).DeepCopy()
			p.Status.Phase, p.Status.PodIP = model.PodRunning, "10.244.0."+string(rune('1'+i))
			model.SetPodCondition(&p.Status, model.PodCondition{Type: model.PodReady, Status: model.ConditionTrue})
			done := false
			e.Admin().Pods(ns).UpdateStatus(p, func(_ model.Object, err error) { require.NoError(t, err); done = true })
			for !done {
				e.Run(100 * time.Millisecond)
			}
		}
		e.Run(30 * time.Second)
		slices, err := e.List(model.ResourceEndpointSlicesName)
		require.NoError(t, err)
		var sizes []int
		for _, o := range slices {
			sizes = append(sizes, len(o.(*model.EndpointSlice).Endpoints))
		}
		sort.Ints(sizes)
		require.Equal(t, tc.sizes, sizes, "--max-endpoints-per-slice %d", tc.max)
	}
}
