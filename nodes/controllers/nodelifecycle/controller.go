package nodelifecycle

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// The defaults of Config, as kube-controller-manager's flags.
const (
	// DefaultNodeMonitorPeriod is --node-monitor-period.
	DefaultNodeMonitorPeriod = 5 * time.Second
	// DefaultNodeMonitorGracePeriod is --node-monitor-grace-period (50 s
	// since Kubernetes 1.32; 40 s before).
	DefaultNodeMonitorGracePeriod = 50 * time.Second
	// DefaultNodeStartupGracePeriod is --node-startup-grace-period.
	DefaultNodeStartupGracePeriod = 60 * time.Second
	// DefaultNodeEvictionRate is --node-eviction-rate, nodes per second.
	DefaultNodeEvictionRate = 0.1
	// DefaultSecondaryNodeEvictionRate is --secondary-node-eviction-rate.
	DefaultSecondaryNodeEvictionRate = 0.01
	// DefaultLargeClusterSizeThreshold is --large-cluster-size-threshold.
	DefaultLargeClusterSizeThreshold = 50
	// DefaultUnhealthyZoneThreshold is --unhealthy-zone-threshold.
	DefaultUnhealthyZoneThreshold = 0.55
)

// Fixed intervals of the real controller.
const (
	// nodeEvictionPeriod is how often the tainting queues are drained
	// (scheduler.NodeEvictionPeriod).
	nodeEvictionPeriod = 100 * time.Millisecond
	// retrySleepTime and nodeHealthUpdateRetry bound the retries of a
	// node status update (retrySleepTime, scheduler.NodeHealthUpdateRetry).
	retrySleepTime        = 20 * time.Millisecond
	nodeHealthUpdateRetry = 5
	// nodeUpdateWorkers and podUpdateWorkers are the workers of the
	// NoSchedule pass and of the pod queue (nodeUpdateWorkerSize,
	// podUpdateWorkerSize).
	nodeUpdateWorkers = 8
	podUpdateWorkers  = 4
)

// Config configures the controller; zero fields take the real defaults.
type Config struct {
	// NodeMonitorPeriod is how often node health is checked
	// (--node-monitor-period, 5 s).
	NodeMonitorPeriod time.Duration
	// NodeMonitorGracePeriod is how long a node may go unheard before it
	// is marked Unknown (--node-monitor-grace-period, 50 s).
	NodeMonitorGracePeriod time.Duration
	// NodeStartupGracePeriod replaces it for a node that never posted a
	// Ready condition (--node-startup-grace-period, 60 s).
	NodeStartupGracePeriod time.Duration
	// NodeEvictionRate is how many nodes a second a healthy zone taints
	// NoExecute (--node-eviction-rate, 0.1).
	NodeEvictionRate float64
	// SecondaryNodeEvictionRate is that rate in a large, partially
	// disrupted zone (--secondary-node-eviction-rate, 0.01).
	SecondaryNodeEvictionRate float64
	// LargeClusterSizeThreshold is the zone size above which a partial
	// disruption slows tainting instead of stopping it
	// (--large-cluster-size-threshold, 50).
	LargeClusterSizeThreshold int
	// UnhealthyZoneThreshold is the share of not-ready nodes (with more
	// than 2 of them) that makes a partial disruption
	// (--unhealthy-zone-threshold, 0.55).
	UnhealthyZoneThreshold float64
	// Ablations are the run's ablation switches; the taint manager asks
	// for ablation.EvictIgnoresToleration.
	Ablations ablation.Set
}

func (cfg Config) withDefaults() Config {
	defaults.Positive(&cfg.NodeMonitorPeriod, DefaultNodeMonitorPeriod)
	defaults.Positive(&cfg.NodeMonitorGracePeriod, DefaultNodeMonitorGracePeriod)
	defaults.Positive(&cfg.NodeStartupGracePeriod, DefaultNodeStartupGracePeriod)
	defaults.Positive(&cfg.NodeEvictionRate, DefaultNodeEvictionRate)
	defaults.Positive(&cfg.SecondaryNodeEvictionRate, DefaultSecondaryNodeEvictionRate)
	defaults.Positive(&cfg.LargeClusterSizeThreshold, DefaultLargeClusterSizeThreshold)
	defaults.Positive(&cfg.UnhealthyZoneThreshold, DefaultUnhealthyZoneThreshold)
	return cfg
}

// Controller is the node lifecycle controller with its taint eviction
// controller. Make it with New, start it with Run.
type Controller struct {
	ctx *controllers.Context
	cfg Config
	h   *sim.Host

	running, stopped bool

	health       map[string]*nodeHealth // by node name
	knownNodes   map[string]bool
	zoneStates   map[string]zoneState
	tainters     map[string]*rateLimitedQueue // zoneNoExecuteTainter
	nodesToRetry map[string]bool

	monitorTimer *sim.Timer
	taintTimer   *sim.Timer
	tainting     bool // a tainting pass is running or scheduled
	nodeQueue    *workqueue.Queue
	podQueue     *workqueue.Queue

	eviction *taintEviction
}

// New makes the controller on ctx's host, client and informers.
func New(ctx *controllers.Context, cfg Config) *Controller {
	c := &Controller{ctx: ctx, cfg: cfg.withDefaults(), h: ctx.Host,
		health: map[string]*nodeHealth{}, knownNodes: map[string]bool{}, zoneStates: map[string]zoneState{},
		tainters: map[string]*rateLimitedQueue{}, nodesToRetry: map[string]bool{},
		nodeQueue: workqueue.New(ctx.Host, "nodelifecycle-nodes", nil),
		podQueue:  workqueue.New(ctx.Host, "nodelifecycle-pods", nil),
	}
	c.monitorTimer = c.h.NewTimer("node-monitor", c.monitorNodeHealth)
	c.taintTimer = c.h.NewTimer("node-tainting-pass", c.doNoExecuteTaintingPass)
	c.eviction = newTaintEviction(c)
	return c
}

// Run registers the handlers and starts the loops once the informers have
// synced.
func (c *Controller) Run() {
	if c.running || c.stopped {
		return
	}
	c.running = true
	c.ctx.Nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj model.Object) { c.handleNode(obj) },
		UpdateFunc: func(_, obj model.Object) { c.handleNode(obj) },
		DeleteFunc: func(obj any) {
			if o := cache.ObjectOf(obj); o != nil && !c.stopped {
				delete(c.nodesToRetry, o.GetObjectMeta().Name)
			}
		},
	})
	c.ctx.Pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj model.Object) { c.handlePod(nil, obj) },
		UpdateFunc: c.handlePod,
	})
	c.eviction.register()
	c.ctx.WaitForCacheSync("nodelifecycle", func() bool { return c.stopped }, c.start, c.ctx.NodeLeases, c.ctx.Nodes, c.ctx.Pods)
}

// Stop ends the controller: timers and queues stop and every later
// callback does nothing.
func (c *Controller) Stop() {
	c.stopped = true
	c.monitorTimer.Stop()
	c.taintTimer.Stop()
	c.nodeQueue.ShutDown()
	c.podQueue.ShutDown()
	c.eviction.stop()
}

// start starts the workers and loops, once the informers have synced.
func (c *Controller) start() {
	c.nodeQueue.Run(nodeUpdateWorkers, c.processNodeKey)
	c.podQueue.Run(podUpdateWorkers, c.processPodKey)
	c.monitorTimer.Reset(0)
}

// handleNode queues a node for its NoSchedule taints.
func (c *Controller) handleNode(obj model.Object) {
	if !c.stopped {
		c.nodeQueue.Add(obj.GetObjectMeta().Name)
	}
}

// handlePod queues a pod that was just bound, to mark it not ready if its
// node is not ready.
func (c *Controller) handlePod(oldObj, newObj model.Object) {
	if c.stopped {
		return
	}
	pod, ok := newObj.(*model.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	if old, _ := oldObj.(*model.Pod); old != nil && old.Spec.NodeName == pod.Spec.NodeName {
		return
	}
	c.podQueue.Add(cache.MetaNamespaceKeyFunc(pod))
}

// processPodKey marks a pod bound to a not-ready node not ready, as
// processPod.
func (c *Controller) processPodKey(key string, done func(error)) {
	obj, ok := c.ctx.Pods.GetStore().GetByKey(key)
	if !ok {
		done(nil)
		return
	}
	pod := obj.(*model.Pod)
	hd := c.health[pod.Spec.NodeName]
	if hd == nil {
		done(nil)
		return
	}
	if _, ok := c.ctx.Nodes.GetStore().GetByKey(pod.Spec.NodeName); !ok {
		done(errNodeNotFound)
		return
	}
	_, ready := model.GetNodeCondition(hd.status, model.NodeReady)
	if ready == nil || ready.Status == model.ConditionTrue {
		done(nil)
		return
	}
	c.markPodsNotReady([]*model.Pod{pod}, pod.Spec.NodeName, c.guardErr(done))
}

// guardErr wraps a continuation so that it does nothing after Stop.
func (c *Controller) guardErr(fn func(error)) func(error) {
	return func(err error) {
		if !c.stopped {
			fn(err)
		}
	}
}

// guard wraps an API callback so that it does nothing after Stop.
func (c *Controller) guard(fn func(model.Object, error)) func(model.Object, error) {
	return func(obj model.Object, err error) {
		if !c.stopped {
			fn(obj, err)
		}
	}
}

// now is the controller's monotonic clock, what it measures grace periods
// and eviction delays with (in-process times, as Go's time.Now() compares
// them).
func (c *Controller) now() model.Time { return model.Time(c.h.Now()) }

// stamp is the controller's wall clock, what it stamps into objects
// (condition transitions, a taint's TimeAdded).
func (c *Controller) stamp() model.Time { return model.Time(c.h.WallClock()) }

// podsOnNode returns the pods of the informer bound to node, in key order.
func (c *Controller) podsOnNode(node string) []*model.Pod {
	var out []*model.Pod
	for _, obj := range c.ctx.Pods.GetStore().List() {
		if p := obj.(*model.Pod); p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}
