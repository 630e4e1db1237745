package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

const ns = "default"

// newContext builds what a controller manager gives its controllers.
func newContext(h *sim.Host, servers []sim.HostID) *controllers.Context {
	cl := client.New(h, client.Config{Name: "kcm", User: "system:kube-controller-manager", Servers: servers})
	return controllers.NewContext(h, cl, nil)
}

// runInformers starts the informers, as the manager does after Run.
func runInformers(ctx *controllers.Context) {
	for _, i := range []*cache.Informer{ctx.Pods, ctx.Nodes, ctx.ReplicaSets, ctx.Deployments, ctx.NodeLeases} {
		i.Run()
	}
}

// rsStandIn plays the ReplicaSet controller by hand: a ReplicaSet has as
// many pods as its spec says at once, and as many of them ready (and
// available) as the test made ready. It writes that status whenever it
// differs, and watches every ReplicaSet change for the rollout bounds.
type rsStandIn struct {
	cl    *client.Client
	inf   *cache.Informer
	ready map[string]int32 // by ReplicaSet name

	// With track on, the extremes over every state the stand-in saw.
	track        bool
	maxTotal     int32 // sum of spec.replicas
	minAvailable int32 // sum of min(spec, ready)
	// overlap is set if a ReplicaSet of the newest template had replicas
	// while another one still had pods (spec or status): what Recreate
	// must never allow.
	overlap     bool
	newTemplate string // image of the newest template, for overlap
}

func newRSStandIn(h *sim.Host, servers []sim.HostID) *rsStandIn {
	s := &rsStandIn{ready: map[string]int32{}, minAvailable: 1 << 30}
	s.cl = client.New(h, client.Config{Name: "rs-standin", User: apitest.AdminUser, Servers: servers})
	s.inf = cache.NewInformer(s.cl, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: model.ResourceReplicaSetsName}})
	s.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    s.handle,
		UpdateFunc: func(_, obj model.Object) { s.handle(obj) },
		DeleteFunc: func(any) { s.observe() },
	})
	s.inf.Run()
	return s
}

func (s *rsStandIn) replicaSets() []*model.ReplicaSet {
	var out []*model.ReplicaSet
	for _, obj := range s.inf.GetStore().List() {
		out = append(out, obj.(*model.ReplicaSet))
	}
	return out
}

func (s *rsStandIn) handle(obj model.Object) {
	rs := obj.(*model.ReplicaSet)
	s.ready[rs.Name] = min(s.ready[rs.Name], replicasOf(rs))
	s.observe()
	s.push(rs)
}

// push writes rs's status if it is not what the stand-in's pods say.
func (s *rsStandIn) push(rs *model.ReplicaSet) {
	r := s.ready[rs.Name]
	want := model.ReplicaSetStatus{Replicas: replicasOf(rs), FullyLabeledReplicas: replicasOf(rs), ReadyReplicas: r,
		AvailableReplicas: r, ObservedGeneration: rs.Generation}
	if rs.Status.Replicas == want.Replicas && rs.Status.ReadyReplicas == want.ReadyReplicas &&
		rs.Status.AvailableReplicas == want.AvailableReplicas && rs.Status.ObservedGeneration == want.ObservedGeneration {
		return
	}
	cp := rs.DeepCopy()
	cp.Status = want
	s.cl.ReplicaSets(rs.Namespace).UpdateStatus(cp, func(model.Object, error) {})
}

// observe records the bounds over the current state.
func (s *rsStandIn) observe() {
	var total, available int32
	var newPods, otherPods int32
	for _, rs := range s.replicaSets() {
		total += replicasOf(rs)
		available += min(replicasOf(rs), s.ready[rs.Name])
		if rs.Spec.Template.Spec.Containers[0].Image == s.newTemplate {
			newPods += replicasOf(rs)
		} else {
			otherPods += max(replicasOf(rs), rs.Status.Replicas)
		}
	}
	if !s.track {
		return
	}
	s.maxTotal = max(s.maxTotal, total)
	s.minAvailable = min(s.minAvailable, available)
	if newPods > 0 && otherPods > 0 {
		s.overlap = true
	}
}

// makeReady makes n more pods of the named ReplicaSet ready (at most its
// size) and writes its status.
func (s *rsStandIn) makeReady(name string, n int32) {
	obj, ok := s.inf.GetStore().GetByKey(ns + "/" + name)
	if !ok {
		return
	}
	rs := obj.(*model.ReplicaSet)
	s.ready[name] = min(s.ready[name]+n, replicasOf(rs))
	s.observe()
	s.push(rs)
}

// env is a small cluster with a controller manager running the deployment
// controller and the ReplicaSet stand-in.
type env struct {
	*apitest.Cluster
	t *testing.T
}

func newEnv(t *testing.T, seed uint64) *env {
	e := &env{Cluster: apitest.New(seed, 1, 1, nil), t: t}
	e.AddHost("kcm", func(h *sim.Host) {
		ctx := newContext(h, e.Servers)
		ctrl := New(ctx, Config{})
		ctrl.Run()
		runInformers(ctx)
		h.Expose("controller", ctrl)
	})
	e.AddHost("rs-standin", func(h *sim.Host) { h.Expose("standin", newRSStandIn(h, e.Servers)) })
	e.Settle()
	return e
}

func (e *env) standIn() *rsStandIn { return e.Host("rs-standin").Exposed("standin").(*rsStandIn) }

// do runs fn's API call as admin and the world until it answered.
func (e *env) do(fn func(cl *client.Client, done client.ObjectCallback)) (model.Object, error) {
	var obj model.Object
	var err error
	finished := false
	fn(e.Admin(), func(o model.Object, er error) { obj, err, finished = o, er, true })
	for i := 0; i < 300 && !finished; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.True(e.t, finished, "no answer")
	return obj, err
}

// deployment returns the stored Deployment (a quorum read).
func (e *env) deployment(name string) *model.Deployment {
	obj, err := e.Get(model.ResourceDeploymentsName, ns, name)
	require.NoError(e.t, err)
	return obj.(*model.Deployment)
}

// replicaSets returns the stored ReplicaSets (a quorum list), by name.
func (e *env) replicaSets() map[string]*model.ReplicaSet {
	objs, err := e.List(model.ResourceReplicaSetsName)
	require.NoError(e.t, err)
	out := map[string]*model.ReplicaSet{}
	for _, obj := range objs {
		out[obj.GetObjectMeta().Name] = obj.(*model.ReplicaSet)
	}
	return out
}

// rsOfImage returns the stored ReplicaSet whose template runs image.
func (e *env) rsOfImage(image string) *model.ReplicaSet {
	for _, rs := range e.replicaSets() {
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			return rs
		}
	}
	return nil
}

// newDeployment returns a Deployment of replicas pods running image.
func newDeployment(name string, replicas int32, image string) *model.Deployment {
	d := &model.Deployment{}
	d.Name, d.Namespace = name, ns
	d.Spec.Replicas = model.Ptr(replicas)
	d.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: image}}
	return d
}

func (e *env) create(d *model.Deployment) {
	_, err := e.Create(d)
	require.NoError(e.t, err)
}

// modify reads the Deployment, applies fn and updates it.
func (e *env) modify(name string, fn func(d *model.Deployment)) {
	d := e.deployment(name)
	fn(d)
	_, err := e.do(func(cl *client.Client, done client.ObjectCallback) { cl.Deployments(ns).Update(d, done) })
	require.NoError(e.t, err)
}

// setImage changes the Deployment's template: a new rollout.
func (e *env) setImage(name, image string) {
	e.standIn().newTemplate = image
	e.modify(name, func(d *model.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
}

// rollOut makes the pods of image's ReplicaSet ready one at a time, letting
// the world run between steps, until the Deployment is complete.
func (e *env) rollOut(name, image string) {
	for i := 0; i < 200; i++ {
		e.Run(2 * time.Second)
		if IsComplete(e.deployment(name)) {
			return
		}
		if rs := e.rsOfImage(image); rs != nil {
			e.standIn().makeReady(rs.Name, 1)
		}
	}
	e.t.Fatalf("deployment %s did not complete with image %s", name, image)
}
