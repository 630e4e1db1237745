// Package podgc is the pod garbage collector of kube-controller-manager,
// the part that matters when a node dies for good: pods bound to a Node
// that no longer exists (a cloud provider deleted the Node of a
// terminated machine) are force-deleted, so that their ReplicaSets can
// replace them. Without it they would stay "Running" in the API forever:
// nothing else evicts pods of a Node object that is gone.
//
// As the real controller (pkg/controller/podgc): every 20 s (gcCheckPeriod)
// it looks for pods whose node is missing from the node informer; a node
// missing for 40 s (quarantineTime, so that a node informer lagging behind
// a new node's creation cannot cost pods) is confirmed gone with a quorum
// GET, and then its pods are marked Failed and deleted with a grace period
// of 0 and a UID precondition. Terminated-pod collection (threshold 12,500
// pods) is left out: no run comes near it.
package podgc

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiwire"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/sim"
)

// The real controller's timings.
const (
	DefaultCheckPeriod    = 20 * time.Second
	DefaultQuarantineTime = 40 * time.Second
)

// Config configures the collector; zero values mean the real defaults.
type Config struct {
	CheckPeriod, QuarantineTime time.Duration
}

// Controller is the pod garbage collector.
type Controller struct {
	ctx     *controllers.Context
	cfg     Config
	stopped bool
	// missing maps a node name to when the collector first saw pods bound
	// to it while the node informer did not have it.
	missing map[string]sim.Time
	timer   *sim.Timer
}

// New makes the collector on ctx.
func New(ctx *controllers.Context, cfg Config) *Controller {
	if cfg.CheckPeriod <= 0 {
		cfg.CheckPeriod = DefaultCheckPeriod
	}
	if cfg.QuarantineTime <= 0 {
		cfg.QuarantineTime = DefaultQuarantineTime
	}
	return &Controller{ctx: ctx, cfg: cfg, missing: map[string]sim.Time{}}
}

// Run starts the periodic check.
func (c *Controller) Run() {
	c.timer = c.ctx.Host.NewTimer("podgc-check", c.check)
	c.timer.Reset(c.cfg.CheckPeriod)
}

// Stop ends the collector.
func (c *Controller) Stop() {
	c.stopped = true
	if c.timer != nil {
		c.timer.Stop()
	}
}

// check looks for pods on missing nodes, and confirms nodes missing for
// longer than the quarantine.
func (c *Controller) check() {
	if c.stopped {
		return
	}
	defer c.timer.Reset(c.cfg.CheckPeriod)
	if !c.ctx.Pods.HasSynced() || !c.ctx.Nodes.HasSynced() {
		return
	}
	now := c.ctx.Host.Now()
	seen := map[string]bool{}
	for _, obj := range c.ctx.Pods.GetStore().List() {
		node := obj.(*model.Pod).Spec.NodeName
		if node == "" || seen[node] {
			continue
		}
		seen[node] = true
		if _, ok := c.ctx.Nodes.GetStore().GetByKey(node); ok {
			continue
		}
		first, ok := c.missing[node]
		if !ok {
			c.missing[node] = now
			continue
		}
		if now.Sub(first) >= c.cfg.QuarantineTime {
			c.confirmGone(node)
		}
	}
	for _, node := range sim.SortedKeys(c.missing) {
		if !seen[node] {
			delete(c.missing, node)
		}
	}
}

// confirmGone asks the API server whether node really is gone, and if so
// deletes its pods.
func (c *Controller) confirmGone(node string) {
	c.ctx.Client.Nodes().Get(node, client.GetOptions{}, func(_ model.Object, err error) {
		if c.stopped || !client.IsNotFound(err) {
			return // the node exists, or we cannot tell: try again next period
		}
		for _, obj := range c.ctx.Pods.GetStore().List() {
			if pod := obj.(*model.Pod); pod.Spec.NodeName == node {
				c.deletePod(pod)
			}
		}
	})
}

// deletePod marks the pod Failed (as markFailedAndDeletePod does, so that
// its last state says why) and force-deletes it.
func (c *Controller) deletePod(stored *model.Pod) {
	pod := stored.DeepCopy()
	now := model.Time(c.ctx.Host.WallClock())
	pod.Status.Phase = model.PodFailed
	model.SetPodCondition(&pod.Status, model.PodCondition{Type: "DisruptionTarget", Status: model.ConditionTrue,
		Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists", LastTransitionTime: now})
	pods := c.ctx.Client.Pods(pod.Namespace)
	pods.UpdateStatus(pod, func(model.Object, error) {
		if c.stopped {
			return
		}
		zero := int64(0)
		pods.Delete(pod.Name, client.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &apiwire.Preconditions{UID: pod.UID}}, func(model.Object, error) {})
	})
}
