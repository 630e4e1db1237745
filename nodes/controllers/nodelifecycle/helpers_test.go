package nodelifecycle

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

const ns = "default"

// kcmRequestTimeout bounds the test controller manager's requests (see
// newContext).
const kcmRequestTimeout = 10 * time.Second

// newContext builds what a controller manager gives its controllers;
// onWrite (if not nil) sees every write request its client sends. The
// client times a request out after kcmRequestTimeout, which the real
// kube-controller-manager's does not (rest.Config.Timeout 0): the tests
// cut it off to make its writes fail, and test what the controller does
// with a failure, not how soon the connection's health check (45 s)
// would report it.
func newContext(h *sim.Host, servers []sim.HostID, onWrite func(*apiwire.Request)) *controllers.Context {
	cl := client.New(h, client.Config{Name: "kcm", User: "system:kube-controller-manager", Servers: servers, OnWrite: onWrite,
		Timeout: kcmRequestTimeout})
	return controllers.NewContext(h, cl, nil)
}

// kubeletStandIn does the part of a kubelet the controller watches: on
// boot it posts Ready=True, then renews its node Lease every 10 s.
type kubeletStandIn struct {
	h    *sim.Host
	cl   *client.Client
	name string
	// lastRenew is the renewTime of the last renewal the API server
	// acknowledged.
	lastRenew model.Time
}

func bootKubelet(h *sim.Host, servers []sim.HostID) {
	k := &kubeletStandIn{h: h, name: h.Name()}
	k.cl = client.New(h, client.Config{User: "system:node:" + k.name, Servers: servers})
	h.Expose("kubelet", k)
	k.postReady()
}

// now is the stand-in's wall clock: what it stamps its heartbeats with.
func (k *kubeletStandIn) now() model.Time { return model.Time(k.h.WallClock()) }

// postReady sets the node's Ready condition to True (with a fresh
// heartbeat), retrying until it succeeds, then starts renewing.
func (k *kubeletStandIn) postReady() {
	k.cl.Nodes().Get(k.name, client.GetOptions{}, func(obj model.Object, err error) {
		if err != nil {
			k.h.After(time.Second, "retry", k.postReady)
			return
		}
		n := obj.(*model.Node)
		for _, t := range unknownConditionTypes {
			st := model.ConditionFalse
			if t == model.NodeReady {
				st = model.ConditionTrue
			}
			model.SetNodeCondition(&n.Status, model.NodeCondition{Type: t, Status: st, LastHeartbeatTime: k.now(), LastTransitionTime: k.now()})
		}
		k.cl.Nodes().UpdateStatus(n, func(_ model.Object, err error) {
			if err != nil {
				k.h.After(time.Second, "retry", k.postReady)
				return
			}
			k.renew()
		})
	})
}

// renew renews (or creates) the node Lease, then again in 10 s.
func (k *kubeletStandIn) renew() {
	k.h.After(10*time.Second, "renew", k.renew)
	leases := k.cl.Leases(model.NodeLeaseNamespace)
	renewTime := k.now()
	leases.Get(k.name, client.GetOptions{}, func(obj model.Object, err error) {
		ack := func(_ model.Object, err error) {
			if err == nil {
				k.lastRenew = renewTime
			}
		}
		if client.IsNotFound(err) {
			l := &model.Lease{}
			l.Name, l.Namespace = k.name, model.NodeLeaseNamespace
			l.Spec = model.LeaseSpec{HolderIdentity: model.Ptr(k.name), LeaseDurationSeconds: model.Ptr(int32(40)), RenewTime: model.Ptr(renewTime)}
			leases.Create(l, ack)
			return
		}
		if err != nil {
			return
		}
		l := obj.(*model.Lease)
		l.Spec.RenewTime = model.Ptr(renewTime)
		leases.Update(l, ack)
	})
}

// observer records when the cluster, as an admin informer sees it, first
// showed each fact: "node-1 Ready=Unknown", "node-1 taint
// node.kubernetes.io/unreachable:NoExecute", "default/p deleting", ...
type observer struct {
	first map[string]model.Time
	last  map[string]model.Time
	h     *sim.Host
}

func newObserver(h *sim.Host, servers []sim.HostID) *observer {
	o := &observer{first: map[string]model.Time{}, last: map[string]model.Time{}, h: h}
	cl := client.New(h, client.Config{Name: "observer", User: apitest.AdminUser, Servers: servers})
	for _, res := range []string{model.ResourceNodesName, model.ResourcePodsName} {
		inf := cache.NewInformer(cl, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: res}})
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    o.see,
			UpdateFunc: func(_, obj model.Object) { o.see(obj) },
		})
		inf.Run()
	}
	return o
}

func (o *observer) note(fact string) {
	now := model.Time(o.h.World().Now())
	if _, ok := o.first[fact]; !ok {
		o.first[fact] = now
	}
	o.last[fact] = now
}

func (o *observer) see(obj model.Object) {
	switch x := obj.(type) {
	case *model.Node:
		if _, c := model.GetNodeCondition(&x.Status, model.NodeReady); c != nil {
			o.note(fmt.Sprintf("%s Ready=%s", x.Name, c.Status))
		}
		for _, t := range x.Spec.Taints {
			o.note(fmt.Sprintf("%s taint %s", x.Name, t.String()))
		}
		if len(x.Spec.Taints) == 0 {
			o.note(x.Name + " untainted")
		}
	case *model.Pod:
		key := x.Namespace + "/" + x.Name
		if x.DeletionTimestamp != nil {
			o.note(key + " deleting")
		}
		if _, c := model.GetPodCondition(&x.Status, model.PodReady); c != nil {
			o.note(fmt.Sprintf("%s Ready=%s", key, c.Status))
		}
	}
}

// at returns when fact was first seen, failing the test if never.
func (o *observer) at(t *testing.T, fact string) model.Time {
	t.Helper()
	v, ok := o.first[fact]
	require.True(t, ok, "never seen: %s", fact)
	return v
}

// seen reports whether fact was ever seen.
func (o *observer) seen(fact string) bool {
	_, ok := o.first[fact]
	return ok
}

// env is a cluster with nodes and their kubelet stand-ins, a controller
// manager running the node lifecycle controller, and an observer.
type env struct {
	*apitest.Cluster
	t *testing.T
	// kcmWrites are the write requests of the controller manager's
	// client, as "verb resource namespace/name", in the order sent.
	kcmWrites []string
	// onKcmWrite, when set, sees each of them as it is sent.
	onKcmWrite func(write string)
}

// newEnv makes n nodes (node-1...), starts their kubelets, then the
// controller manager.
func newEnv(t *testing.T, seed uint64, n int, cfg Config) *env {
	e := &env{Cluster: apitest.New(seed, 1, 1, nil), t: t}
	e.Settle()
	e.AddHost("observer", func(h *sim.Host) { h.Expose("observer", newObserver(h, e.Servers)) })
	for i := 1; i <= n; i++ {
		node := &model.Node{}
		node.Name = fmt.Sprintf("node-%d", i)
		node.Status.Capacity = model.ResourceList{model.ResourceCPU: 4000, model.ResourcePods: 110}
		_, err := e.Create(node)
		require.NoError(t, err)
	}
	for i := 1; i <= n; i++ {
		e.AddHost(fmt.Sprintf("node-%d", i), func(h *sim.Host) { bootKubelet(h, e.Servers) })
	}
	e.Run(2 * time.Second)
	e.AddHost("kcm", func(h *sim.Host) {
		ctx := newContext(h, e.Servers, func(r *apiwire.Request) {
			w := fmt.Sprintf("%s %s %s/%s", r.Verb, r.Resource, r.Namespace, r.Name)
			e.kcmWrites = append(e.kcmWrites, w)
			if e.onKcmWrite != nil {
				e.onKcmWrite(w)
			}
		})
		ctrl := New(ctx, cfg)
		ctrl.Run()
		for _, i := range []*cache.Informer{ctx.Pods, ctx.Nodes, ctx.ReplicaSets, ctx.Deployments, ctx.NodeLeases} {
			i.Run()
		}
		h.Expose("controller", ctrl)
	})
	e.Run(20 * time.Second)
	return e
}

func (e *env) observer() *observer { return e.Host("observer").Exposed("observer").(*observer) }

func (e *env) controller() *Controller { return e.Host("kcm").Exposed("controller").(*Controller) }

func (e *env) kubelet(node string) *kubeletStandIn {
	return e.Host(node).Exposed("kubelet").(*kubeletStandIn)
}

// addPod creates a running, ready pod bound to node with extra
// tolerations (the API server adds the 300 s defaults).
func (e *env) addPod(name, node string, tolerations ...model.Toleration) {
	p := &model.Pod{}
	p.Name, p.Namespace = name, ns
	p.Spec.NodeName = node
	p.Spec.Containers = []model.Container{{Name: "app", Image: "app:1"}}
	p.Spec.Tolerations = tolerations
	obj, err := e.Create(p)
	require.NoError(e.t, err)
	p = obj.(*model.Pod)
	p.Status.Phase = model.PodRunning
	now := model.Time(e.W.Now())
	p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: now}}
	done := false
	e.Admin().Pods(ns).UpdateStatus(p, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.True(e.t, done)
}

// stopAfterRenewal crashes the nodes' kubelets right after their next
// Lease renewal and returns the renewTime of the last one.
func (e *env) stopAfterRenewal(nodes ...string) model.Time {
	prev := e.kubelet(nodes[0]).lastRenew
	for i := 0; i < 1500 && e.kubelet(nodes[0]).lastRenew == prev; i++ {
		e.Run(10 * time.Millisecond)
	}
	var last model.Time
	for _, n := range nodes {
		last = max(last, e.kubelet(n).lastRenew)
		e.Host(n).Crash()
	}
	return last
}

// node returns the stored node (a quorum read).
func (e *env) node(name string) *model.Node {
	obj, err := e.Get(model.ResourceNodesName, "", name)
	require.NoError(e.t, err)
	return obj.(*model.Node)
}

// podNamed returns the stored pod (a quorum read).
func (e *env) podNamed(name string) *model.Pod {
	obj, err := e.Get(model.ResourcePodsName, ns, name)
	require.NoError(e.t, err)
	return obj.(*model.Pod)
}

func slicesSort(ts []model.Time) { slices.Sort(ts) }

// kcmDeletes counts the delete requests the controller manager sent for
// the pod.
func (e *env) kcmDeletes(pod string) int {
	n := 0
	for _, w := range e.kcmWrites {
		if w == fmt.Sprintf("%s %s %s/%s", apiwire.VerbDelete, model.ResourcePodsName, ns, pod) {
			n++
		}
	}
	return n
}

// createPod creates a pod bound to node ("" for none) with tolerations
// (the API server adds the 300 s defaults), without a status.
func (e *env) createPod(name, node string, tolerations ...model.Toleration) {
	p := &model.Pod{}
	p.Name, p.Namespace = name, ns
	p.Spec.NodeName = node
	p.Spec.Containers = []model.Container{{Name: "app", Image: "app:1"}}
	p.Spec.Tolerations = tolerations
	_, err := e.Create(p)
	require.NoError(e.t, err)
}

// bind binds the pod to node (the pods/binding subresource, as the
// scheduler does).
func (e *env) bind(pod, node string) {
	done := false
	e.Admin().Pods(ns).Bind(pod, node, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(10 * time.Millisecond)
	}
	require.True(e.t, done)
}

// forceDelete deletes the pod with a grace period of 0.
func (e *env) forceDelete(pod string) {
	done := false
	zero := int64(0)
	e.Admin().Pods(ns).Delete(pod, client.DeleteOptions{GracePeriodSeconds: &zero}, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(10 * time.Millisecond)
	}
	require.True(e.t, done)
}

// updateNode applies change to the stored node and writes it back.
func (e *env) updateNode(name string, change func(*model.Node)) {
	n := e.node(name)
	change(n)
	done := false
	e.Admin().Nodes().Update(n, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(10 * time.Millisecond)
	}
	require.True(e.t, done)
}
