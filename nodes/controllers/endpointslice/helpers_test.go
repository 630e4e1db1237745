package endpointslice

import (
	"slices"
	"strings"
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

// env is a cluster with nodes n1 and n2 and a controller host "kcm"
// running the controller on all its informers.
type env struct {
	*apitest.Cluster
	t     *testing.T
	ctx   *controllers.Context
	ctl   *Controller
	calls []apitrace.Call // the controller's traced calls
}

func newEnv(t *testing.T, seed uint64, cfg Config) *env {
	e := &env{Cluster: apitest.New(seed, 1, 1, nil), t: t}
	e.Settle()
	for _, n := range []string{"n1", "n2"} {
		e.mustCreate(&model.Node{ObjectMeta: model.ObjectMeta{Name: n}})
	}
	e.W.Subscribe(func(ev *sim.Event) {
		if c, ok := ev.Data.(*apitrace.Call); ok && c.Client == "kcm" {
			e.calls = append(e.calls, *c)
		}
	})
	e.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{Name: "kcm", User: user, Servers: e.Servers, Tracing: true})
		e.ctx = controllers.NewContext(h, cl, nil)
		e.ctl = New(e.ctx, cfg)
		e.ctl.Run()
		for _, i := range []interface{ Run() }{e.ctx.Services, e.ctx.Pods, e.ctx.EndpointSlices, e.ctx.Nodes} {
			i.Run()
		}
	})
	e.Run(2 * time.Second)
	return e
}

func (e *env) mustCreate(obj model.Object) model.Object {
	e.t.Helper()
	out, err := e.Create(obj)
	require.NoError(e.t, err)
	return out
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

// service creates a Service selecting app=app on port 80 (target 8080).
func (e *env) service(name, app string) *model.Service {
	e.t.Helper()
	return e.mustCreate(&model.Service{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"team": "a"}},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": app},
			Ports: []model.ServicePort{{Name: "http", Port: 80, TargetPort: model.FromInt(8080)}}}}).(*model.Service)
}

// podState is what a test sets on a pod.
type podState struct {
	node, ip string
	ready    bool
	phase    model.PodPhase
}

// pod creates a pod labelled app=app in state st.
func (e *env) pod(name, app string, st podState) *model.Pod {
	e.t.Helper()
	p := e.mustCreate(&model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Spec: model.PodSpec{NodeName: st.node, Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}).(*model.Pod)
	return e.setStatus(p, st)
}

// setStatus writes a pod's phase, IP and readiness, as its kubelet would.
func (e *env) setStatus(p *model.Pod, st podState) *model.Pod {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		obj, err := e.Get(model.ResourcePodsName, ns, p.Name)
		require.NoError(e.t, err)
		cur := obj.(*model.Pod)
		cur.Status.Phase = st.phase
		if cur.Status.Phase == "" {
			cur.Status.Phase = model.PodRunning
		}
		cur.Status.PodIP = st.ip
		ready := model.ConditionFalse
		if st.ready {
			ready = model.ConditionTrue
		}
		model.SetPodCondition(&cur.Status, model.PodCondition{Type: model.PodReady, Status: ready, LastTransitionTime: model.Time(e.W.Now())})
		out, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).UpdateStatus(cur, done) })
		if err == nil {
			return out.(*model.Pod)
		}
	}
	e.t.Fatalf("could not set the status of %s", p.Name)
	return nil
}

// deletePod deletes a pod as admin (a bound pod is marked, with its grace
// period: no kubelet finishes it here).
func (e *env) deletePod(name string) {
	e.t.Helper()
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Delete(name, client.DeleteOptions{}, done) })
	require.NoError(e.t, err)
}

// slices lists the Service's slices (quorum), by name.
func (e *env) slices(svc string) []*model.EndpointSlice {
	e.t.Helper()
	all, err := e.List(model.ResourceEndpointSlicesName)
	require.NoError(e.t, err)
	var out []*model.EndpointSlice
	for _, o := range all {
		if s := o.(*model.EndpointSlice); s.Labels[model.LabelServiceName] == svc {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *model.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// endpoint is an endpoint as a test compares it: pod, address, node and
// conditions.
type endpoint struct {
	pod, ip, node               string
	ready, serving, terminating bool
}

// endpoints are the endpoints of the Service's slices, in pod order.
func (e *env) endpoints(svc string) []endpoint {
	var out []endpoint
	for _, s := range e.slices(svc) {
		for _, ep := range s.Endpoints {
			out = append(out, endpoint{pod: ep.TargetRef.Name, ip: ep.Addresses[0], node: ep.NodeName,
				ready: *ep.Conditions.Ready, serving: *ep.Conditions.Serving, terminating: *ep.Conditions.Terminating})
		}
	}
	slices.SortFunc(out, func(a, b endpoint) int { return strings.Compare(a.pod, b.pod) })
	return out
}

// count returns how many calls of verb on endpointslices the controller made.
func (e *env) count(verb string) int {
	n := 0
	for _, c := range e.calls {
		if c.Verb == verb && c.Resource == model.ResourceEndpointSlicesName {
			n++
		}
	}
	return n
}

// relabel sets a pod's app label, as an operator moving it between
// Services does.
func (e *env) relabel(name, app string) {
	e.t.Helper()
	for i := 0; i < 10; i++ {
		obj, err := e.Get(model.ResourcePodsName, ns, name)
		require.NoError(e.t, err)
		cur := obj.(*model.Pod)
		cur.Labels = map[string]string{"app": app}
		if _, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Update(cur, done) }); err == nil {
			return
		}
	}
	e.t.Fatalf("could not relabel %s", name)
}
