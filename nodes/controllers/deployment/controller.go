package deployment

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/sim"
)

// DefaultWorkers is kube-controller-manager's --concurrent-deployment-syncs.
const DefaultWorkers = 5

// maxRetries is how often a failing key is retried before it is dropped,
// as the real controller's maxRetries.
const maxRetries = 15

// Config configures the controller; the zero value is the real default.
type Config struct {
	// Workers is the number of keys synced at once (default 5).
	Workers int
	// Ablations are the run's ablation switches; the rollout asks for
	// ablation.DeploymentIgnoresMaxSurge and
	// ablation.DeploymentIgnoresAvailability.
	Ablations ablation.Set
}

// Controller is the Deployment controller. Make it with New, start it with
// Run.
type Controller struct {
	ctx   *controllers.Context
	cfg   Config
	h     *sim.Host
	queue *workqueue.Queue
	// processKey is what the queue's workers run: syncDeployment, under
	// controllers.Worker (a key failing maxRetries times in a row is
	// dropped, as handleErr does).
	processKey func(key string, done func(error))

	running bool
	stopped bool
}

// New makes a Deployment controller on ctx's host, client and informers.
func New(ctx *controllers.Context, cfg Config) *Controller {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	c := &Controller{ctx: ctx, cfg: cfg, h: ctx.Host, queue: workqueue.New(ctx.Host, "deployment", nil)}
	c.processKey = controllers.Worker(c.queue, func() bool { return c.stopped }, maxRetries, c.syncDeployment)
	return c
}

// Run registers the handlers and starts the workers once the informers have
// synced.
func (c *Controller) Run() {
	if c.running || c.stopped {
		return
	}
	c.running = true
	c.ctx.Deployments.AddEventHandler(cache.OnObject(c.handleDeployment))
	c.ctx.ReplicaSets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handleReplicaSetAdd,
		UpdateFunc: c.handleReplicaSetUpdate,
		DeleteFunc: func(obj any) { c.handleReplicaSetDelete(cache.ObjectOf(obj)) },
	})
	c.ctx.Pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) { c.handlePodDelete(cache.ObjectOf(obj)) },
	})
	c.ctx.WaitForCacheSync("deployment", func() bool { return c.stopped }, func() { c.queue.Run(c.cfg.Workers, c.processKey) },
		c.ctx.Deployments, c.ctx.ReplicaSets, c.ctx.Pods)
}

// Stop ends the controller: the queue shuts down and every later callback
// does nothing.
func (c *Controller) Stop() {
	c.stopped = true
	c.queue.ShutDown()
}

// enqueue adds d's key.
func (c *Controller) enqueue(d *model.Deployment) {
	if !c.stopped {
		c.queue.Add(cache.MetaNamespaceKeyFunc(d))
	}
}

func (c *Controller) handleDeployment(obj model.Object) {
	if d, ok := obj.(*model.Deployment); ok {
		c.enqueue(d)
	}
}

// resolveControllerRef returns the Deployment a controller reference
// points at, if it is in the informer with that UID.
func (c *Controller) resolveControllerRef(namespace string, ref *model.OwnerReference) *model.Deployment {
	return controllers.ResolveControllerRef[*model.Deployment](c.ctx.Deployments, model.KindDeployment, namespace, ref)
}

// handleReplicaSetAdd syncs the owner of a new ReplicaSet (or of one
// already being deleted, as the real addReplicaSet).
func (c *Controller) handleReplicaSetAdd(obj model.Object) {
	if c.stopped {
		return
	}
	if d := c.resolveControllerRef(obj.GetObjectMeta().Namespace, model.GetControllerOf(obj)); d != nil {
		c.enqueue(d)
	}
}

// handleReplicaSetUpdate syncs the owners, old and new, of a changed
// ReplicaSet; resyncs (same resourceVersion) are ignored.
func (c *Controller) handleReplicaSetUpdate(oldObj, newObj model.Object) {
	if c.stopped || oldObj.GetObjectMeta().ResourceVersion == newObj.GetObjectMeta().ResourceVersion {
		return
	}
	oldRef, newRef := model.GetControllerOf(oldObj), model.GetControllerOf(newObj)
	if oldRef != nil && (newRef == nil || oldRef.UID != newRef.UID) {
		if d := c.resolveControllerRef(oldObj.GetObjectMeta().Namespace, oldRef); d != nil {
			c.enqueue(d)
		}
	}
	if d := c.resolveControllerRef(newObj.GetObjectMeta().Namespace, newRef); d != nil {
		c.enqueue(d)
	}
}

func (c *Controller) handleReplicaSetDelete(obj model.Object) {
	if c.stopped || obj == nil {
		return
	}
	if d := c.resolveControllerRef(obj.GetObjectMeta().Namespace, model.GetControllerOf(obj)); d != nil {
		c.enqueue(d)
	}
}

// handlePodDelete syncs a Recreate Deployment once the last pod of its
// ReplicaSets is gone, as the real deletePod.
func (c *Controller) handlePodDelete(obj model.Object) {
	if c.stopped || obj == nil {
		return
	}
	d := c.deploymentForPod(obj)
	if d == nil || d.Spec.Strategy.Type != model.RecreateDeploymentStrategyType {
		return
	}
	// determinism: only whether some ReplicaSet has a pod matters.
	for _, pods := range c.podMapFor(d, c.replicaSetsFor(d)) {
		if len(pods) > 0 {
			return
		}
	}
	c.enqueue(d)
}

// deploymentForPod follows a pod's controller reference to its ReplicaSet
// and that one's to its Deployment.
func (c *Controller) deploymentForPod(pod model.Object) *model.Deployment {
	ref := model.GetControllerOf(pod)
	if ref == nil || ref.Kind != model.KindReplicaSet {
		return nil
	}
	obj, ok := c.ctx.ReplicaSets.Lister().ByNamespace(pod.GetObjectMeta().Namespace).Get(ref.Name)
	if !ok || obj.GetObjectMeta().UID != ref.UID {
		return nil
	}
	return c.resolveControllerRef(obj.GetObjectMeta().Namespace, model.GetControllerOf(obj))
}

// replicaSetsFor returns the ReplicaSets d controls, from the informer
// (read-only), in key order.
func (c *Controller) replicaSetsFor(d *model.Deployment) []*model.ReplicaSet {
	var out []*model.ReplicaSet
	for _, obj := range c.ctx.ReplicaSets.Lister().ByNamespace(d.Namespace).List(model.Everything()) {
		if rs, ok := obj.(*model.ReplicaSet); ok && model.IsControlledBy(rs, d) {
			out = append(out, rs)
		}
	}
	return out
}

// podMapFor groups the pods of d's namespace that match its selector by
// the UID of the ReplicaSet (of rsList) controlling them, as
// getPodMapForDeployment; every ReplicaSet has an entry.
func (c *Controller) podMapFor(d *model.Deployment, rsList []*model.ReplicaSet) map[model.UID][]*model.Pod {
	out := make(map[model.UID][]*model.Pod, len(rsList))
	for _, rs := range rsList {
		out[rs.UID] = nil
	}
	sel, err := d.Spec.Selector.AsSelector()
	if err != nil {
		return out
	}
	for _, obj := range c.ctx.Pods.Lister().ByNamespace(d.Namespace).List(sel) {
		ref := model.GetControllerOf(obj)
		if ref == nil {
			continue
		}
		if pods, ok := out[ref.UID]; ok {
			out[ref.UID] = append(pods, obj.(*model.Pod))
		}
	}
	return out
}

// syncDeployment syncs one Deployment.
func (c *Controller) syncDeployment(key string, done func(error)) {
	obj, ok := c.ctx.Deployments.GetStore().GetByKey(key)
	if !ok {
		done(nil) // deleted: the garbage collector takes its ReplicaSets
		return
	}
	s := &syncer{c: c, key: key, d: obj.(*model.Deployment).DeepCopy(), done: done}
	s.run()
}

// now is the controller's wall clock, an API timestamp: what it stamps
// conditions with and compares their times (the progress deadline) with.
func (c *Controller) now() model.Time { return model.Time(c.h.WallClock()) }

// guard wraps an API callback so that it does nothing after Stop.
func (c *Controller) guard(fn func(model.Object, error)) func(model.Object, error) {
	return func(obj model.Object, err error) {
		if !c.stopped {
			fn(obj, err)
		}
	}
}
