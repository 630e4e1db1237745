package replicaset

import (
	"maps"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers"
)

// Defaults, as kube-controller-manager's.
const (
	// DefaultBurstReplicas caps the creations or deletions of one sync
	// (replicaset.BurstReplicas).
	DefaultBurstReplicas = 500
	// Workers is --concurrent-replicaset-syncs.
	Workers = 5
)

// Config configures the controller.
type Config struct {
	// Ablations are the run's ablation switches; the controller asks for
	// ablation.NoExpectations and ablation.CountTerminating.
	Ablations ablation.Set
	// BurstReplicas caps the pods created or deleted per sync; default
	// DefaultBurstReplicas.
	BurstReplicas int
}

// Controller is the ReplicaSet controller. Make it with New.
type Controller struct {
	ctx     *controllers.Context
	cfg     Config
	queue   *workqueue.Queue
	exp     *expectations
	stopped bool
	running bool
	syncs   int // syncReplicaSet calls, for tests
}

var _ controllers.Controller = (*Controller)(nil)

// New makes the controller on ctx; Run starts it.
func New(ctx *controllers.Context, cfg Config) *Controller {
	if cfg.BurstReplicas <= 0 {
		cfg.BurstReplicas = DefaultBurstReplicas
	}
	return &Controller{ctx: ctx, cfg: cfg, queue: workqueue.New(ctx.Host, "replicaset", nil), exp: newExpectations(ctx.Host)}
}

// Run registers the handlers and starts the workers once the pod and
// ReplicaSet informers have synced.
func (c *Controller) Run() {
	if c.running || c.stopped {
		return
	}
	c.running = true
	c.ctx.ReplicaSets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.handleRSAdd, UpdateFunc: c.handleRSUpdate, DeleteFunc: c.handleRSDelete})
	c.ctx.Pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.handlePodAdd, UpdateFunc: c.handlePodUpdate, DeleteFunc: c.handlePodDelete})
	stopped := func() bool { return c.stopped }
	c.ctx.WaitForCacheSync("replicaset", stopped, func() { c.queue.Run(Workers, controllers.Worker(c.queue, stopped, 0, c.syncReplicaSet)) },
		c.ctx.Pods, c.ctx.ReplicaSets)
}

// Stop ends the controller: later callbacks do nothing.
func (c *Controller) Stop() {
	c.stopped = true
	c.queue.ShutDown()
}

// enqueue queues rs's key.
func (c *Controller) enqueue(rs *model.ReplicaSet) { c.queue.Add(cache.MetaNamespaceKeyFunc(rs)) }

func (c *Controller) handleRSAdd(obj model.Object) {
	if rs, ok := obj.(*model.ReplicaSet); ok && !c.stopped {
		c.enqueue(rs)
	}
}

func (c *Controller) handleRSUpdate(oldObj, newObj model.Object) {
	old, ok1 := oldObj.(*model.ReplicaSet)
	cur, ok2 := newObj.(*model.ReplicaSet)
	if !ok1 || !ok2 || c.stopped {
		return
	}
	if old.UID != cur.UID {
		// Deleted and recreated under the same name between two events.
		c.handleRSDelete(cache.DeletedFinalStateUnknown{Key: cache.MetaNamespaceKeyFunc(old), Obj: old})
	}
	c.enqueue(cur)
}

func (c *Controller) handleRSDelete(obj any) {
	rs, ok := cache.ObjectOf(obj).(*model.ReplicaSet)
	if !ok || c.stopped {
		return
	}
	key := cache.MetaNamespaceKeyFunc(rs)
	c.exp.DeleteExpectations(key)
	c.queue.Add(key)
}

// resolveControllerRef returns the ReplicaSet ref points at in namespace,
// if the informer has it with that UID.
func (c *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) *model.ReplicaSet {
	return controllers.ResolveControllerRef[*model.ReplicaSet](c.ctx.ReplicaSets, model.KindReplicaSet, namespace, ref)
}

// podReplicaSets returns the ReplicaSets whose selector matches an orphan
// pod (none for a pod without labels; an empty selector matches nothing).
func (c *Controller) podReplicaSets(pod *model.Pod) []*model.ReplicaSet {
	if len(pod.Labels) == 0 {
		return nil
	}
	var out []*model.ReplicaSet
	for _, obj := range c.ctx.ReplicaSets.Lister().ByNamespace(pod.Namespace).List(model.Everything()) {
		rs := obj.(*model.ReplicaSet)
		sel, err := rs.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() || !sel.Matches(pod.Labels) {
			continue
		}
		out = append(out, rs)
	}
	return out
}

func (c *Controller) handlePodAdd(obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok || c.stopped {
		return
	}
	if pod.DeletionTimestamp != nil {
		// A pod already being deleted (seen first after a restart) is not a
		// creation to observe.
		c.handlePodDelete(pod)
		return
	}
	if ref := model.GetControllerOf(pod); ref != nil {
		rs := c.resolveControllerRef(pod.Namespace, ref)
		if rs == nil {
			return
		}
		key := cache.MetaNamespaceKeyFunc(rs)
		c.exp.CreationObserved(key)
		c.queue.Add(key)
		return
	}
	// An orphan: whoever matches may adopt it. No creation is observed.
	for _, rs := range c.podReplicaSets(pod) {
		c.enqueue(rs)
	}
}

func (c *Controller) handlePodUpdate(oldObj, newObj model.Object) {
	old, ok1 := oldObj.(*model.Pod)
	cur, ok2 := newObj.(*model.Pod)
	if !ok1 || !ok2 || c.stopped || cur.ResourceVersion == old.ResourceVersion {
		return // a resync or relist of the same version
	}
	labelChanged := !maps.Equal(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		// Graceful deletion: observe it now, not when the kubelet is done.
		c.handlePodDelete(cur)
		if labelChanged {
			c.handlePodDelete(old)
		}
		return
	}
	curRef, oldRef := model.GetControllerOf(cur), model.GetControllerOf(old)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := c.resolveControllerRef(old.Namespace, oldRef); rs != nil {
			c.enqueue(rs)
		}
	}
	if curRef != nil {
		rs := c.resolveControllerRef(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		c.enqueue(rs)
		if !model.IsPodReady(old) && model.IsPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			// Count it available once minReadySeconds have passed.
			c.queue.AddAfter(cache.MetaNamespaceKeyFunc(rs), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelChanged || refChanged {
		for _, rs := range c.podReplicaSets(cur) {
			c.enqueue(rs)
		}
	}
}

func (c *Controller) handlePodDelete(obj any) {
	pod, ok := cache.ObjectOf(obj).(*model.Pod)
	if !ok || c.stopped {
		return
	}
	rs := c.resolveControllerRef(pod.Namespace, model.GetControllerOf(pod))
	if rs == nil {
		return
	}
	key := cache.MetaNamespaceKeyFunc(rs)
	c.exp.DeletionObserved(key, cache.MetaNamespaceKeyFunc(pod))
	c.queue.Add(key)
}

func sameRef(a, b *model.OwnerReference) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.UID == b.UID && a.Kind == b.Kind && a.Name == b.Name && a.APIVersion == b.APIVersion &&
		model.Deref(a.Controller, false) == model.Deref(b.Controller, false) &&
		model.Deref(a.BlockOwnerDeletion, false) == model.Deref(b.BlockOwnerDeletion, false)
}
