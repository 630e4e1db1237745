package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

const (
	ns   = "default"
	user = "system:kube-controller-manager"
)

// env is a cluster with a controller host "kcm" running the controller.
type env struct {
	*apitest.Cluster
	t     *testing.T
	ctx   *controllers.Context
	ctl   *Controller
	calls []timedCall // the controller's traced calls
}

// timedCall is a traced call and when it was sent.
type timedCall struct {
	at sim.Time
	apitrace.Call
}

// envOpts configure newEnv.
type envOpts struct {
	cfg Config
	// handPods leaves the pod informer unrun: the test drives it.
	handPods bool
	// user overrides the controller's identity.
	user string
}

func newEnv(t *testing.T, seed uint64, o envOpts) *env {
	e := &env{Cluster: apitest.New(seed, 1, 1, nil), t: t}
	e.Settle()
	if o.user == "" {
		o.user = user
	}
	e.W.Subscribe(func(ev *sim.Event) {
		if c, ok := ev.Data.(*apitrace.Call); ok && c.Client == "kcm" {
			e.calls = append(e.calls, timedCall{at: ev.At, Call: *c})
		}
	})
	e.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{Name: "kcm", User: o.user, Servers: e.Servers, Tracing: true})
		e.ctx = controllers.NewContext(h, cl, nil)
		e.ctl = New(e.ctx, o.cfg)
		e.ctl.Run()
		e.ctx.ReplicaSets.Run()
		if o.handPods {
			e.ctx.Pods.Replace(nil, "0") // synced, and empty for good
		} else {
			e.ctx.Pods.Run()
		}
	})
	e.Run(2 * time.Second)
	return e
}

// newRS is a ReplicaSet selecting app=name.
func newRS(name string, replicas, minReady int32) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.ReplicaSetSpec{
			Replicas:        model.Ptr(replicas),
			MinReadySeconds: minReady,
			Selector:        &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": name, "tier": "web"}},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}},
			},
		},
	}
}

func (e *env) mustCreate(obj model.Object) model.Object {
	e.t.Helper()
	out, err := e.Create(obj)
	require.NoError(e.t, err)
	return out
}

// rs reads a ReplicaSet (quorum).
func (e *env) rs(name string) *model.ReplicaSet {
	e.t.Helper()
	obj, err := e.Get(model.ResourceReplicaSetsName, ns, name)
	require.NoError(e.t, err)
	return obj.(*model.ReplicaSet)
}

// pods lists the pods (quorum) selected by app=name, in key order.
func (e *env) pods(app string) []*model.Pod {
	e.t.Helper()
	all, err := e.List(model.ResourcePodsName)
	require.NoError(e.t, err)
	var out []*model.Pod
	for _, o := range all {
		if p := o.(*model.Pod); p.Labels["app"] == app {
			out = append(out, p)
		}
	}
	return out
}

// active are the pods of pods without a deletionTimestamp.
func active(pods []*model.Pod) []*model.Pod { return model.FilterActivePods(pods) }

// scale sets a ReplicaSet's replicas as admin, retrying on conflicts.
func (e *env) scale(name string, replicas int32) {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		rs := e.rs(name)
		rs.Spec.Replicas = model.Ptr(replicas)
		if _, err := e.call(func(done client.ObjectCallback) { e.Admin().ReplicaSets(ns).Update(rs, done) }); err == nil {
			return
		}
	}
	e.t.Fatalf("could not scale %s", name)
}

// call runs one admin call to its answer.
func (e *env) call(fn func(done client.ObjectCallback)) (model.Object, error) {
	var obj model.Object
	var err error
	finished := false
	fn(func(o model.Object, er error) { obj, err, finished = o, er, true })
	for i := 0; i < 300 && !finished; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.True(e.t, finished)
	return obj, err
}

// markReady makes a pod Running and Ready now, as its kubelet would.
func (e *env) markReady(p *model.Pod) {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		obj, err := e.Get(model.ResourcePodsName, ns, p.Name)
		require.NoError(e.t, err)
		cur := obj.(*model.Pod)
		cur.Status.Phase = model.PodRunning
		now := model.Time(e.W.Now())
		model.SetPodCondition(&cur.Status, model.PodCondition{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: now})
		if _, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).UpdateStatus(cur, done) }); err == nil {
			return
		}
	}
	e.t.Fatalf("could not mark %s ready", p.Name)
}

// createBatches returns the sizes of the controller's batches of pod
// creates: the creates sent at one instant.
func (e *env) createBatches() []int {
	var out []int
	var last sim.Time = -1
	for _, c := range e.calls {
		if c.Verb != "create" || c.Resource != model.ResourcePodsName {
			continue
		}
		if c.at != last {
			out = append(out, 0)
			last = c.at
		}
		out[len(out)-1]++
	}
	return out
}

// count returns how many calls of verb on resource the controller made.
func (e *env) count(verb, resource string) int {
	n := 0
	for _, c := range e.calls {
		if c.Verb == verb && c.Resource == resource {
			n++
		}
	}
	return n
}
