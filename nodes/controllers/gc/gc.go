package gc

import (
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/sim"
)

// Defaults.
const (
	// RescanPeriod is how often every dependent is checked for owners the
	// informers do not have.
	RescanPeriod = 30 * time.Second
	// Workers is --concurrent-gc-syncs.
	Workers = 20
	// absentOwnerCacheSize is the real absentOwnerCache's size.
	absentOwnerCacheSize = 500
)

// Config configures the collector (the defaults are the real ones).
type Config struct {
	// Ablations are the run's ablation switches; the collector asks for
	// ablation.GCOwnerByName.
	Ablations ablation.Set
}

// Controller is the garbage collector. Make it with New.
type Controller struct {
	ctx     *controllers.Context
	cfg     Config
	queue   *workqueue.Queue
	stopped bool
	running bool
	synced  bool
	rescan  *sim.Timer
	// dependents maps an owner UID to the keys of the dependents that
	// reference it; looked up, never ranged (keys are sorted when read).
	dependents map[model.UID]map[string]bool
	// absent remembers owners confirmed gone, oldest first.
	absent      map[model.UID]bool
	absentOrder []model.UID
}

var _ controllers.Controller = (*Controller)(nil)

// New makes the collector on ctx; Run starts it.
func New(ctx *controllers.Context, cfg Config) *Controller {
	return &Controller{ctx: ctx, cfg: cfg, queue: workqueue.New(ctx.Host, "garbagecollector", nil),
		dependents: map[model.UID]map[string]bool{}, absent: map[model.UID]bool{}}
}

// source is one informer the collector watches, with its resource name.
type source struct {
	resource string
	inf      *cache.Informer
}

// sources returns the Context's informers that are set, in a fixed order.
func (c *Controller) sources() []source {
	var out []source
	for _, s := range []source{
		{model.ResourcePodsName, c.ctx.Pods},
		{model.ResourceReplicaSetsName, c.ctx.ReplicaSets},
		{model.ResourceDeploymentsName, c.ctx.Deployments},
		{model.ResourceNodesName, c.ctx.Nodes},
		{model.ResourceLeasesName, c.ctx.NodeLeases},
		{model.ResourceServicesName, c.ctx.Services},
		{model.ResourceEndpointSlicesName, c.ctx.EndpointSlices},
	} {
		if s.inf != nil {
			out = append(out, s)
		}
	}
	for _, ci := range c.ctx.Custom {
		out = append(out, source{ci.Resource.Name, ci.Informer})
	}
	return out
}

// Run registers the handlers; once every informer has synced, the
// collector scans every dependent and starts its workers and rescans.
func (c *Controller) Run() {
	if c.running || c.stopped {
		return
	}
	c.running = true
	var infs []*cache.Informer
	for _, s := range c.sources() {
		res := s.resource
		infs = append(infs, s.inf)
		s.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj model.Object) { c.handleChange(res, nil, obj) },
			UpdateFunc: func(old, obj model.Object) { c.handleChange(res, old, obj) },
			DeleteFunc: func(obj any) { c.handleDelete(res, cache.ObjectOf(obj)) },
		})
	}
	c.ctx.WaitForCacheSync("gc", func() bool { return c.stopped }, c.start, infs...)
}

// start starts the workers and the rescans, once the informers have synced.
func (c *Controller) start() {
	c.synced = true
	c.queue.Run(Workers, c.processKey)
	c.rescan = c.ctx.Host.NewTimer("gc-rescan", c.handleRescan)
	c.handleRescan()
}

// Stop ends the collector: later callbacks do nothing.
func (c *Controller) Stop() {
	c.stopped = true
	c.queue.ShutDown()
	if c.rescan != nil {
		c.rescan.Stop()
	}
}

// depKey is a dependent's queue key: "<resource>|<namespace>/<name>".
func depKey(resource string, obj model.Object) string {
	return resource + "|" + cache.MetaNamespaceKeyFunc(obj)
}

func splitKey(key string) (resource, objKey string) {
	resource, objKey, _ = strings.Cut(key, "|")
	return resource, objKey
}

// handleChange indexes a dependent's owners and queues it when one of them
// is missing from the informers.
func (c *Controller) handleChange(resource string, old, obj model.Object) {
	if c.stopped {
		return
	}
	key := depKey(resource, obj)
	if old != nil {
		c.unindex(key, old)
	}
	c.index(key, obj)
	if c.synced && c.ownerMissing(obj) {
		c.queue.Add(key)
	}
}

// handleDelete unindexes a dependent and queues the dependents of the
// deleted object.
func (c *Controller) handleDelete(resource string, obj model.Object) {
	if c.stopped || obj == nil {
		return
	}
	c.unindex(depKey(resource, obj), obj)
	deps := c.dependents[obj.GetObjectMeta().UID]
	for _, k := range sim.SortedKeys(deps) {
		c.queue.Add(k)
	}
}

func (c *Controller) index(key string, obj model.Object) {
	for _, r := range obj.GetObjectMeta().OwnerReferences {
		set := c.dependents[r.UID]
		if set == nil {
			set = map[string]bool{}
			c.dependents[r.UID] = set
		}
		set[key] = true
	}
}

func (c *Controller) unindex(key string, obj model.Object) {
	for _, r := range obj.GetObjectMeta().OwnerReferences {
		if set := c.dependents[r.UID]; set != nil {
			delete(set, key)
			if len(set) == 0 {
				delete(c.dependents, r.UID)
			}
		}
	}
}

// handleRescan queues every dependent with an owner the informers miss.
func (c *Controller) handleRescan() {
	if c.stopped {
		return
	}
	for _, s := range c.sources() {
		for _, obj := range s.inf.GetStore().List() {
			if c.ownerMissing(obj) {
				c.queue.Add(depKey(s.resource, obj))
			}
		}
	}
	c.rescan.Reset(RescanPeriod)
}

// ownerMissing reports whether one of obj's owners is not in the informers
// (by UID). Owners of unknown kinds, or of namespaces no informer covers,
// are taken as present.
func (c *Controller) ownerMissing(obj model.Object) bool {
	m := obj.GetObjectMeta()
	if m.DeletionTimestamp != nil {
		return false
	}
	for _, r := range m.OwnerReferences {
		inf, key, ok := c.ownerInformer(r, m.Namespace)
		if !ok {
			continue
		}
		owner, found := inf.GetStore().GetByKey(key)
		if !found || owner.GetObjectMeta().UID != r.UID {
			return true
		}
	}
	return false
}

// ownerInformer returns the informer and store key of an owner reference
// made from namespace: the source of the owner's resource, built-in or
// custom.
func (c *Controller) ownerInformer(r model.OwnerReference, namespace string) (*cache.Informer, string, bool) {
	res, ok := c.ownerResource(r)
	if !ok {
		return nil, "", false
	}
	key := model.NamespacedName{Name: r.Name}
	if res.Namespaced {
		key.Namespace = namespace
	}
	src, ok := c.source(res.Name)
	if !ok || res.Name == model.ResourceLeasesName && namespace != model.NodeLeaseNamespace {
		return nil, "", false // the Lease informer holds kube-node-lease's alone
	}
	return src.inf, key.String(), true
}

// ownerResource resolves an owner reference's kind, as the real collector
// maps an owner's apiVersion and kind through discovery: a built-in kind,
// or a custom kind of the Context (of that apiVersion). Other owners are
// of kinds kubesim does not serve.
func (c *Controller) ownerResource(r model.OwnerReference) (model.Resource, bool) {
	if res, ok := model.ResourceForKind(r.Kind); ok {
		return res, true
	}
	ci, ok := c.ctx.CustomForKind(r.APIVersion, r.Kind)
	return ci.Resource, ok
}

// markAbsent remembers an owner UID confirmed gone.
func (c *Controller) markAbsent(uid model.UID) {
	if c.absent[uid] {
		return
	}
	c.absent[uid] = true
	c.absentOrder = append(c.absentOrder, uid)
	if len(c.absentOrder) > absentOwnerCacheSize {
		delete(c.absent, c.absentOrder[0])
		c.absentOrder = c.absentOrder[1:]
	}
}
