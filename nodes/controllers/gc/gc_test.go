package gc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

const ns = "default"

// env is a cluster with a host "kcm" running the collector.
type env struct {
	*apitest.Cluster
	t   *testing.T
	ctx *controllers.Context
	gc  *Controller
	// gets counts the collector's GETs by resource.
	gets map[string]int
}

// newEnv starts the collector; with handRS its ReplicaSet informer is never
// run (it stays empty: an informer that lags forever).
func newEnv(t *testing.T, seed uint64, handRS bool, setup func(e *env)) *env {
	return newEnvServing(t, seed, handRS, nil, setup)
}

// newEnvServing is newEnv with API servers that serve kinds, and the
// collector's context with an informer on each custom kind of kinds (as
// the manager's, given the same registry).
func newEnvServing(t *testing.T, seed uint64, handRS bool, kinds *model.Registry, setup func(e *env)) *env {
	serve := func(cfg *apiserver.Config) { cfg.Resources = kinds }
	e := &env{Cluster: apitest.New(seed, 1, 1, serve), t: t, gets: map[string]int{}}
	e.Settle()
	if setup != nil {
		setup(e)
	}
	e.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{Name: "kcm", User: "system:kube-controller-manager", Servers: e.Servers})
		e.ctx = controllers.NewContext(h, cl, nil)
		e.ctx.AddCustomInformers(kinds)
		e.gc = New(e.ctx, Config{})
		e.gc.Run()
		for _, i := range e.ctx.Informers() {
			if i != e.ctx.ReplicaSets {
				i.Run()
			}
		}
		if handRS {
			e.ctx.ReplicaSets.Replace(nil, "0")
		} else {
			e.ctx.ReplicaSets.Run()
		}
	})
	e.Run(3 * time.Second)
	return e
}

func (e *env) mustCreate(obj model.Object) model.Object {
	e.t.Helper()
	out, err := e.Create(obj)
	require.NoError(e.t, err)
	return out
}

func newRS(name string) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.ReplicaSetSpec{Replicas: model.Ptr(int32(1)), Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}}}
}

// newPod is a pod owned by owners (the first as controller).
func newPod(name string, owners ...model.Object) *model.Pod {
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}
	for i, o := range owners {
		ref := model.NewControllerRef(o, o.Kind())
		if i > 0 {
			ref.Controller = nil
		}
		p.OwnerReferences = append(p.OwnerReferences, *ref)
	}
	return p
}

func (e *env) del(resource, name string) {
	e.t.Helper()
	done := false
	e.Admin().Resource(resource, ns).Delete(name, client.DeleteOptions{}, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.True(e.t, done)
}

// exists reports whether a pod is stored (quorum), and returns it.
func (e *env) pod(name string) (*model.Pod, bool) {
	obj, err := e.Get(model.ResourcePodsName, ns, name)
	if client.IsNotFound(err) {
		return nil, false
	}
	require.NoError(e.t, err)
	return obj.(*model.Pod), true
}

func TestDeletesDependentsOfDeletedOwner(t *testing.T) {
	e := newEnv(t, 1, false, nil)
	a := e.mustCreate(newRS("a"))
	b := e.mustCreate(newRS("b"))
	e.mustCreate(newPod("a-1", a))
	e.mustCreate(newPod("a-2", a))
	e.mustCreate(newPod("b-1", b))
	e.mustCreate(newPod("both", a, b))
	e.mustCreate(newPod("orphan"))
	e.Run(5 * time.Second)
	for _, n := range []string{"a-1", "a-2", "b-1", "both", "orphan"} {
		_, ok := e.pod(n)
		require.True(t, ok, "%s: every owner exists", n)
	}

	// Each deletion the collector makes is traced, with the owner it
	// followed (the ownership check reads these).
	var traced []spoketrace.ControllerDelete
	e.W.Subscribe(func(ev *sim.Event) {
		if d, ok := ev.Data.(*spoketrace.ControllerDelete); ok && d.Controller == spoketrace.ControllerGarbageCollector {
			traced = append(traced, *d)
		}
	})
	e.del(model.ResourceReplicaSetsName, "a")
	e.Run(5 * time.Second)
	var keys []string
	for _, d := range traced {
		require.Equal(t, string(a.GetObjectMeta().UID), d.Owner, d.Key)
		keys = append(keys, d.Key)
	}
	require.ElementsMatch(t, []string{ns + "/a-1", ns + "/a-2"}, keys)
	cases := []struct {
		pod    string
		exists bool
		owners int
	}{
		{"a-1", false, 0},
		{"a-2", false, 0},
		{"b-1", true, 1},
		{"both", true, 1}, // b remains: only the reference to a is dropped
		{"orphan", true, 0},
	}
	for _, tc := range cases {
		p, ok := e.pod(tc.pod)
		require.Equal(t, tc.exists, ok, tc.pod)
		if ok {
			require.Len(t, p.OwnerReferences, tc.owners, tc.pod)
			if tc.owners > 0 {
				require.Equal(t, b.GetObjectMeta().UID, p.OwnerReferences[0].UID, tc.pod)
			}
		}
	}
}

func TestCascadesThroughReplicaSets(t *testing.T) {
	e := newEnv(t, 2, false, nil)
	d := e.mustCreate(&model.Deployment{ObjectMeta: model.ObjectMeta{Name: "d", Namespace: ns},
		Spec: model.DeploymentSpec{Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}}})
	rs := newRS("d-1")
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(d, model.KindDeployment)}
	created := e.mustCreate(rs)
	e.mustCreate(newPod("d-1-x", created))
	e.Run(3 * time.Second)
	e.del(model.ResourceDeploymentsName, "d")
	e.Run(5 * time.Second)
	_, err := e.Get(model.ResourceReplicaSetsName, ns, "d-1")
	require.True(t, client.IsNotFound(err), "the ReplicaSet of the deleted Deployment")
	_, ok := e.pod("d-1-x")
	require.False(t, ok, "and its pod")
}

func TestOwnerGoneBeforeStart(t *testing.T) {
	var ghost model.Object
	e := newEnv(t, 3, false, func(e *env) {
		ghost = e.mustCreate(newRS("ghost"))
		e.mustCreate(newPod("haunted", ghost))
		e.del(model.ResourceReplicaSetsName, "ghost")
		// A successor of the same name is not the owner (another UID).
		e.mustCreate(newRS("ghost"))
	})
	e.Run(2 * time.Second)
	_, ok := e.pod("haunted")
	require.False(t, ok, "found by the first scan once the informers synced")
	require.True(t, e.gc.absent[ghost.GetObjectMeta().UID])
}

func TestLaggingInformerIsNotTrusted(t *testing.T) {
	// The ReplicaSet informer never sees anything: every owner looks
	// missing, but the quorum GET finds it.
	e := newEnv(t, 4, true, nil)
	a := e.mustCreate(newRS("a"))
	e.mustCreate(newPod("a-1", a))
	e.Run(2 * RescanPeriod)
	_, ok := e.pod("a-1")
	require.True(t, ok, "the owner exists: never deleted")

	e.del(model.ResourceReplicaSetsName, "a")
	e.Run(RescanPeriod + 5*time.Second)
	_, ok = e.pod("a-1")
	require.False(t, ok, "found by a rescan, confirmed gone")
}

func TestRetriesWhenOwnerCannotBeRead(t *testing.T) {
	var etcd *sim.Host
	e := newEnv(t, 5, false, func(e *env) {
		gone := e.mustCreate(newRS("a"))
		e.mustCreate(newPod("a-1", gone))
		e.del(model.ResourceReplicaSetsName, "a")
		e.Run(time.Second)
		// etcd goes away: the collector's informers start from the API
		// server's cache, but no quorum read can confirm the owner gone.
		etcd = e.Host("etcd-1")
		etcd.Crash()
	})
	e.Run(20 * time.Second)
	require.Greater(t, e.gc.queue.NumRequeues("pods|default/a-1"), 0, "the failed attempts are retried with backoff")
	etcd.Restart()
	e.Run(30 * time.Second)
	_, ok := e.pod("a-1")
	require.False(t, ok, "deleted once the owner is confirmed gone")
}
