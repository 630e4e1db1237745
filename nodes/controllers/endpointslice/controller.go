package endpointslice

import (
	"errors"
	"fmt"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Defaults, as kube-controller-manager's.
const (
	// Workers is --concurrent-service-endpoint-syncs.
	Workers = 5
	// DefaultEndpointUpdatesBatchPeriod is --endpoint-updates-batch-period:
	// how long a pod change waits before its Services sync, to batch
	// several changes into one write. 0: at once.
	DefaultEndpointUpdatesBatchPeriod = time.Duration(0)
	// MaxRetries is how often a failing Service is retried before it is
	// dropped from the queue until its next event (maxRetries).
	MaxRetries = 15
	// SyncBackOff and MaxSyncBackOff bound the per-Service backoff of the
	// queue's rate limiter (defaultSyncBackOff, maxSyncBackOff).
	SyncBackOff    = time.Second
	MaxSyncBackOff = 1000 * time.Second
	// EndpointSliceChangeMinSyncDelay is how long a slice event the
	// controller did not cause waits before its Service syncs
	// (endpointSliceChangeMinSyncDelay).
	EndpointSliceChangeMinSyncDelay = time.Second
)

// Config configures the controller (the zero value is the real defaults).
type Config struct {
	// Ablations are the run's ablation switches; the reconciler asks for
	// ablation.EndpointSliceIgnoresReadiness and
	// ablation.EndpointSliceDropsTerminating, the pod handler for
	// ablation.EndpointSliceIgnoresPodUpdates, the slice handlers for
	// ablation.EndpointSliceIgnoresSliceDeletes and
	// ablation.EndpointSliceIgnoresSliceEdits, New for
	// ablation.EndpointSliceIgnoresMaxPerSlice.
	Ablations ablation.Set
	// MaxEndpointsPerSlice is --max-endpoints-per-slice: how many
	// endpoints the reconciler puts in one slice; 0 means the default,
	// model.MaxEndpointsPerSlice (100). ValidateMaxEndpointsPerSlice
	// says which values kube-controller-manager accepts.
	MaxEndpointsPerSlice int
	// BatchPeriod is --endpoint-updates-batch-period; default 0.
	BatchPeriod time.Duration
}

// The bounds of --max-endpoints-per-slice (minMaxEndpointsPerSlice,
// maxMaxEndpointsPerSlice in cmd/kube-controller-manager/app/options/
// endpointslicecontroller.go; 1000 is also the most endpoints the API
// accepts in a slice).
const (
	MinMaxEndpointsPerSlice = 1
	MaxMaxEndpointsPerSlice = 1000
)

// ValidateMaxEndpointsPerSlice refuses a --max-endpoints-per-slice that
// kube-controller-manager refuses (EndpointSliceControllerOptions.Validate):
// below 1 or above 1000. 0 is kubesim's "the default".
func ValidateMaxEndpointsPerSlice(n int) error {
	switch {
	case n == 0:
		return nil
	case n < MinMaxEndpointsPerSlice:
		return fmt.Errorf("max-endpoints-per-slice must not be less than %d, but got %d", MinMaxEndpointsPerSlice, n)
	case n > MaxMaxEndpointsPerSlice:
		return fmt.Errorf("max-endpoints-per-slice must not be more than %d, but got %d", MaxMaxEndpointsPerSlice, n)
	}
	return nil
}

// Controller is the EndpointSlice controller. Make it with New.
type Controller struct {
	ctx     *controllers.Context
	cfg     Config
	queue   *workqueue.Queue
	tracker *tracker
	rec     *reconciler
	stopped bool
	running bool
}

var _ controllers.Controller = (*Controller)(nil)

// New makes the controller on ctx; Run starts it.
func New(ctx *controllers.Context, cfg Config) *Controller {
	if cfg.MaxEndpointsPerSlice <= 0 || cfg.Ablations.Has(ablation.EndpointSliceIgnoresMaxPerSlice) {
		cfg.MaxEndpointsPerSlice = model.MaxEndpointsPerSlice
	}
	rl := workqueue.NewMaxOfRateLimiter(
		workqueue.NewItemExponentialFailureRateLimiter(SyncBackOff, MaxSyncBackOff),
		workqueue.NewBucketRateLimiter(ctx.Host, workqueue.DefaultQPS, workqueue.DefaultBurst))
	c := &Controller{ctx: ctx, cfg: cfg, queue: workqueue.New(ctx.Host, "endpointslice", rl), tracker: newTracker()}
	c.queue.OnRetry = func(key string, err error, after time.Duration) {
		ctx.Host.Emit(&spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: key, Reason: err.Error(), AfterNs: int64(after)})
	}
	c.rec = &reconciler{maxEndpointsPerSlice: cfg.MaxEndpointsPerSlice, ablations: cfg.Ablations, nodeExists: func(name string) bool {
		_, ok := ctx.Nodes.Lister().Get(name)
		return ok
	}}
	return c
}

// Run registers the handlers and starts the workers once the Service,
// pod, EndpointSlice and node informers have synced.
func (c *Controller) Run() {
	if c.running || c.stopped {
		return
	}
	c.running = true
	c.ctx.Services.AddEventHandler(cache.OnObject(c.enqueueService))
	c.ctx.Pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handlePodAdd,
		UpdateFunc: c.handlePodUpdate,
		DeleteFunc: func(obj any) { c.handlePodAdd(cache.ObjectOf(obj)) },
	})
	c.ctx.EndpointSlices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handleSliceAdd,
		UpdateFunc: c.handleSliceUpdate,
		DeleteFunc: c.handleSliceDelete,
	})
	stopped := func() bool { return c.stopped }
	c.ctx.WaitForCacheSync("endpointslice", stopped, func() { c.queue.Run(Workers, controllers.Worker(c.queue, stopped, MaxRetries, c.syncService)) },
		c.ctx.Services, c.ctx.Pods, c.ctx.EndpointSlices, c.ctx.Nodes)
}

// Stop ends the controller: later callbacks do nothing.
func (c *Controller) Stop() {
	c.stopped = true
	c.queue.ShutDown()
}

func (c *Controller) enqueueService(obj model.Object) {
	if svc, ok := obj.(*model.Service); ok && !c.stopped {
		c.queue.Add(cache.MetaNamespaceKeyFunc(svc))
	}
}

// podServices is GetPodServiceMemberships: the keys of the Services of
// the pod's namespace whose selector matches its labels.
func (c *Controller) podServices(pod *model.Pod) []string {
	var out []string
	for _, obj := range c.ctx.Services.Lister().ByNamespace(pod.Namespace).List(model.Everything()) {
		svc := obj.(*model.Service)
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		if model.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
			out = append(out, cache.MetaNamespaceKeyFunc(svc))
		}
	}
	return out
}

// queueServices queues the Services after the batch period.
func (c *Controller) queueServices(keys []string) {
	for _, k := range keys {
		c.queue.AddAfter(k, c.cfg.BatchPeriod)
	}
}

// handlePodAdd is addPod (and deletePod, with the pod's last state).
func (c *Controller) handlePodAdd(obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok || c.stopped {
		return
	}
	c.queueServices(c.podServices(pod))
}

// handlePodUpdate is updatePod: GetServicesToUpdateOnPodChange. A pod
// whose endpoint may have changed (readiness, IP, deletion) syncs every
// Service it belongs to, before or after; a pod whose labels alone changed
// syncs the Services it joined or left.
func (c *Controller) handlePodUpdate(oldObj, newObj model.Object) {
	old, ok1 := oldObj.(*model.Pod)
	cur, ok2 := newObj.(*model.Pod)
	if !ok1 || !ok2 || c.stopped || cur.ResourceVersion == old.ResourceVersion {
		return
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	if !podChanged && !labelsChanged || c.cfg.Ablations.Has(ablation.EndpointSliceIgnoresPodUpdates) {
		return
	}
	keys := c.podServices(cur)
	if labelsChanged && !c.cfg.Ablations.Has(ablation.EndpointSliceIgnoresLabelMoves) {
		keys = neededServiceUpdates(c.podServices(old), keys, podChanged)
	}
	c.queueServices(keys)
}

// podEndpointsChanged is endpointsliceutil's: labels (membership) and the
// endpoint's state. The real comparison of deletionTimestamps is of
// pointers, which differ between any two informer objects, so a pod being
// deleted counts as changed at every update.
func podEndpointsChanged(old, cur *model.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !equalLabels(old.Labels, cur.Labels)
	if old.DeletionTimestamp != nil || cur.DeletionTimestamp != nil {
		return true, labelsChanged
	}
	if model.IsPodReady(old) != model.IsPodReady(cur) || old.Status.PodIP != cur.Status.PodIP {
		return true, labelsChanged
	}
	return false, labelsChanged
}

func equalLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	// determinism: a yes/no answer, whatever the order
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// neededServiceUpdates is determineNeededServiceUpdates: every Service of
// either side when the pod changed, else those it joined or left.
func neededServiceUpdates(old, cur []string, podChanged bool) []string {
	in := func(list []string, k string) bool {
		for _, x := range list {
			if x == k {
				return true
			}
		}
		return false
	}
	var out []string
	for _, k := range cur {
		if podChanged || !in(old, k) {
			out = append(out, k)
		}
	}
	for _, k := range old {
		if !in(cur, k) {
			out = append(out, k)
		}
	}
	return out
}

// managed reports a slice of the controller (its managed-by label).
func managed(s *model.EndpointSlice) bool {
	return s.Labels[model.LabelManagedBy] == model.ManagedByEndpointSliceController
}

// queueServiceForSlice queues a slice's Service after
// max(EndpointSliceChangeMinSyncDelay, the batch period).
func (c *Controller) queueServiceForSlice(s *model.EndpointSlice) {
	if k, ok := serviceKey(s); ok {
		c.queue.AddAfter(k, max(EndpointSliceChangeMinSyncDelay, c.cfg.BatchPeriod))
	}
}

// handleSliceAdd is onEndpointSliceAdd: a managed slice the controller
// did not write brings its Service back.
func (c *Controller) handleSliceAdd(obj model.Object) {
	s, ok := obj.(*model.EndpointSlice)
	if !ok || c.stopped {
		return
	}
	if managed(s) && c.tracker.shouldSync(s) {
		c.queueServiceForSlice(s)
	}
}

// handleSliceUpdate is onEndpointSliceUpdate: also a slice whose
// managed-by or service-name label changed.
func (c *Controller) handleSliceUpdate(oldObj, newObj model.Object) {
	old, ok1 := oldObj.(*model.EndpointSlice)
	cur, ok2 := newObj.(*model.EndpointSlice)
	if !ok1 || !ok2 || c.stopped {
		return
	}
	if managed(old) != managed(cur) || old.Labels[model.LabelServiceName] != cur.Labels[model.LabelServiceName] {
		c.queueServiceForSlice(old)
		c.queueServiceForSlice(cur)
		return
	}
	if managed(cur) && c.tracker.shouldSync(cur) && !c.cfg.Ablations.Has(ablation.EndpointSliceIgnoresSliceEdits) {
		c.queueServiceForSlice(cur)
	}
}

// handleSliceDelete is onEndpointSliceDelete: a deletion of a tracked
// slice the controller did not do brings its Service back.
func (c *Controller) handleSliceDelete(obj any) {
	s, ok := cache.ObjectOf(obj).(*model.EndpointSlice)
	if !ok || c.stopped {
		return
	}
	if managed(s) && c.tracker.has(s) && !c.tracker.handleDeletion(s) && !c.cfg.Ablations.Has(ablation.EndpointSliceIgnoresSliceDeletes) {
		c.queueServiceForSlice(s)
	}
}

// errStaleCache is NewStaleInformerCache's error.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")

// syncService is the controller's syncService for one key: a Service
// with a selector gets the slices its pods call for; a deleted one is
// forgotten (the garbage collector deletes its slices).
func (c *Controller) syncService(key string, done func(error)) {
	obj, ok := c.ctx.Services.Lister().Get(key)
	if !ok {
		c.tracker.deleteService(key)
		done(nil)
		return
	}
	svc := obj.(*model.Service)
	if len(svc.Spec.Selector) == 0 {
		done(nil) // no managed endpoints (the mirroring controller's business)
		return
	}
	var pods []*model.Pod
	for _, o := range c.ctx.Pods.Lister().ByNamespace(svc.Namespace).List(model.SelectorFromSet(svc.Spec.Selector)) {
		pods = append(pods, o.(*model.Pod))
	}
	sliceSel := model.SelectorFromSet(map[string]string{model.LabelServiceName: svc.Name, model.LabelManagedBy: model.ManagedByEndpointSliceController})
	var slices []*model.EndpointSlice
	for _, o := range c.ctx.EndpointSlices.Lister().ByNamespace(svc.Namespace).List(sliceSel) {
		if s := o.(*model.EndpointSlice); s.DeletionTimestamp == nil {
			slices = append(slices, s)
		}
	}
	if c.tracker.staleSlices(key, slices) {
		done(errStaleCache)
		return
	}
	p := c.rec.reconcile(svc, pods, slices)
	c.write(svc, &p, func(err error) {
		if err == nil && len(p.errs) > 0 {
			err = errors.Join(p.errs...)
		}
		done(err)
	})
}

// write carries out a plan as finalize does: the creates (none for a
// Service being deleted), then the updates, then the deletes, one at a
// time, stopping at the first error; each write is recorded in the
// tracker.
func (c *Controller) write(svc *model.Service, p *plan, done func(error)) {
	cl := c.ctx.Client.EndpointSlices(svc.Namespace)
	var step func(i int)
	n := len(p.create) + len(p.update) + len(p.delete)
	step = func(i int) {
		if c.stopped {
			return
		}
		if i == n {
			done(nil)
			return
		}
		record := func(what string, s *model.EndpointSlice) client.ObjectCallback {
			return func(obj model.Object, err error) {
				if c.stopped {
					return
				}
				if err != nil {
					done(fmt.Errorf("failed to %s EndpointSlice %s for Service %s/%s: %w", what, s.Name, svc.Namespace, svc.Name, err))
					return
				}
				if what == "delete" {
					c.tracker.expectDeletion(s)
				} else if out, ok := obj.(*model.EndpointSlice); ok {
					c.tracker.update(out)
				}
				step(i + 1)
			}
		}
		switch {
		case i < len(p.create):
			s := p.create[i]
			cl.Create(s, record("create", s))
		case i < len(p.create)+len(p.update):
			s := p.update[i-len(p.create)]
			cl.Update(s, record("update", s))
		default:
			s := p.delete[i-len(p.create)-len(p.update)]
			cl.Delete(s.Name, client.DeleteOptions{}, record("delete", s))
		}
	}
	step(0)
}
