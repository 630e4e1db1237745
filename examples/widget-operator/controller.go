package widgetoperator

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/sim"
)

// syncPoll is how often the controller checks that its informers have
// synced before it starts its worker (client-go's WaitForCacheSync polls
// every 100 ms).
const syncPoll = 100 * time.Millisecond

// Config configures the controller.
type Config struct {
	// User is the controller's identity, its service account's user name
	// (rbac.ServiceAccountUser); the policy must grant it widgets and
	// deployments.
	User string
	// Servers are the API server replicas it talks to.
	Servers []sim.HostID
	// Timeout bounds every request, as rest.Config.Timeout does; an
	// unanswered request fails with client.ErrNoAnswer (its outcome
	// unknown) and the sync is retried.
	Timeout time.Duration
	// Broken turns on the bug the example's test must catch: a sync that
	// fails (a 409 Conflict from a stale cache, a timeout, a 503) is
	// forgotten instead of requeued, so the Widget's change is lost until
	// something else touches it.
	Broken bool
}

// Controller reconciles every Widget into a Deployment of the same name
// with spec.replicas copied from the Widget and a controller reference to
// it. It is built as a client-go controller is: two informers, a rate-
// limited workqueue keyed by namespace/name, one worker, and a sync that
// reads only the informers' caches and writes through the client.
type Controller struct {
	cfg         Config
	c           *client.Client
	widgets     *cache.Informer
	deployments *cache.Informer
	queue       *workqueue.Queue
}

// Boot returns the Boot function of the controller's host: on every boot
// (the first and after each crash) it starts afresh, as a restarted pod
// would.
func Boot(cfg Config) func(h *sim.Host) {
	return func(h *sim.Host) { New(h, cfg).Run() }
}

// New makes the controller on host h; Run starts it.
func New(h *sim.Host, cfg Config) *Controller {
	c := client.New(h, client.Config{User: cfg.User, Servers: cfg.Servers, Timeout: cfg.Timeout})
	ctl := &Controller{cfg: cfg, c: c, queue: workqueue.New(h, "widgets", nil)}
	ctl.widgets = cache.NewInformer(c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{
		Resource: Widgets.Plural, Namespace: Namespace}})
	ctl.deployments = cache.NewInformer(c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{
		Resource: model.ResourceDeploymentsName, Namespace: Namespace}})
	return ctl
}

// Run registers the event handlers, starts the informers, and starts the
// worker once both have synced.
func (ctl *Controller) Run() {
	ctl.widgets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ctl.enqueue,
		UpdateFunc: func(_, obj model.Object) { ctl.enqueue(obj) },
		DeleteFunc: func(obj any) { ctl.enqueue(cache.ObjectOf(obj)) },
	})
	ctl.deployments.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ctl.enqueueOwner,
		UpdateFunc: func(_, obj model.Object) { ctl.enqueueOwner(obj) },
		DeleteFunc: func(obj any) { ctl.enqueueOwner(cache.ObjectOf(obj)) },
	})
	ctl.widgets.Run()
	ctl.deployments.Run()
	ctl.waitForSync()
}

func (ctl *Controller) waitForSync() {
	if ctl.widgets.HasSynced() && ctl.deployments.HasSynced() {
		ctl.queue.Run(1, ctl.sync)
		return
	}
	ctl.c.Host().After(syncPoll, "widgets-cache-sync", ctl.waitForSync)
}

func (ctl *Controller) enqueue(obj model.Object) {
	if obj != nil {
		ctl.queue.Add(cache.MetaNamespaceKeyFunc(obj))
	}
}

// enqueueOwner queues the Widget that controls a Deployment, so that a
// Deployment changed or deleted by someone else is put back.
func (ctl *Controller) enqueueOwner(obj model.Object) {
	if obj == nil {
		return
	}
	if ref := model.GetControllerOf(obj); ref != nil && ref.Kind == Widgets.Kind {
		ctl.queue.Add(obj.GetObjectMeta().Namespace + "/" + ref.Name)
	}
}

// sync makes the Deployment of the Widget at key match it. done(nil)
// forgets the key; done(err) requeues it with backoff.
func (ctl *Controller) sync(key string, done func(error)) {
	finish := func(err error) {
		if ctl.cfg.Broken {
			err = nil // the bug: a failed sync is dropped
		}
		done(err)
	}
	obj, ok := ctl.widgets.Lister().Get(key)
	if !ok {
		finish(nil) // deleted: the garbage collector removes what it owned
		return
	}
	w := obj.(*model.CustomObject)
	spec, err := model.SpecAs[WidgetSpec](w)
	if err != nil {
		finish(nil) // the API server validated it; nothing to retry
		return
	}
	cur, ok := ctl.deployments.Lister().ByNamespace(w.Namespace).Get(w.Name)
	if !ok {
		ctl.c.Deployments(w.Namespace).Create(newDeployment(w, spec.Replicas), func(_ model.Object, err error) { finish(err) })
		return
	}
	dep := cur.(*model.Deployment)
	if !model.IsControlledBy(dep, w) {
		finish(nil) // someone else's Deployment: leave it alone
		return
	}
	if dep.Spec.Replicas != nil && *dep.Spec.Replicas == spec.Replicas {
		finish(nil)
		return
	}
	dep = dep.DeepCopy() // never write to the cache's copy
	dep.Spec.Replicas = model.Ptr(spec.Replicas)
	ctl.c.Deployments(w.Namespace).Update(dep, func(_ model.Object, err error) { finish(err) })
}

// newDeployment is w's Deployment: replicas pods labelled widget=<name>,
// controlled by w.
func newDeployment(w *model.CustomObject, replicas int32) *model.Deployment {
	labels := map[string]string{"widget": w.Name}
	return &model.Deployment{
		ObjectMeta: model.ObjectMeta{Name: w.Name, Namespace: w.Namespace,
			OwnerReferences: []model.OwnerReference{*model.NewControllerRef(w, Widgets.Kind)}},
		Spec: model.DeploymentSpec{Replicas: model.Ptr(replicas),
			Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "widget", Image: "registry.example/widget:1"}}}}},
	}
}
