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
// of 0. Each check also collects, as the real gc does in this order:
// terminated pods (Succeeded or Failed) beyond --terminated-pod-gc-threshold
// (12,500), evicted ones first, then oldest first (gcTerminated); pods being
// deleted on a node that is not Ready and carries the
// node.kubernetes.io/out-of-service taint (gcTerminating); and pods being
// deleted that were never scheduled (gcUnscheduledTerminating). Each
// deletion the API server acknowledges is traced (spoketrace.ControllerDelete,
// with the pass as its reason), and the controller-deletes check judges it
// against the state committed when it was sent; the ablations
// pod-gc-no-quarantine and pod-gc-ignores-out-of-service remove the
// quarantine and the out-of-service taint's test.
package podgc

import (
	"cmp"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The real controller's timings and threshold.
const (
	DefaultCheckPeriod    = 20 * time.Second
	DefaultQuarantineTime = 40 * time.Second
	// DefaultTerminatedPodThreshold is kube-controller-manager's
	// --terminated-pod-gc-threshold.
	DefaultTerminatedPodThreshold = 12500
	// TaintNodeOutOfService is corev1.TaintNodeOutOfService: an operator
	// marks a node shut down for good with it, so that its terminating pods
	// may be force-deleted.
	TaintNodeOutOfService = "node.kubernetes.io/out-of-service"
)

// Config configures the collector; zero values mean the real defaults.
type Config struct {
	CheckPeriod, QuarantineTime time.Duration
	// TerminatedPodThreshold is --terminated-pod-gc-threshold: how many
	// terminated pods may exist before the oldest are deleted. 0 means the
	// default, 12,500; a negative value disables the collection, as the
	// real flag's 0 does.
	TerminatedPodThreshold int
	// Ablations are the run's ablation switches; gcOrphaned asks for
	// ablation.PodGCNoQuarantine, gcTerminating for
	// ablation.PodGCIgnoresOutOfService.
	Ablations ablation.Set
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
	defaults.Positive(&cfg.CheckPeriod, DefaultCheckPeriod)
	defaults.Positive(&cfg.QuarantineTime, DefaultQuarantineTime)
	cfg.TerminatedPodThreshold = cmp.Or(cfg.TerminatedPodThreshold, DefaultTerminatedPodThreshold)
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

// check is one run of the real gc (pkg/controller/podgc/gc_controller.go,
// PodGCController.gc): gcTerminated when the threshold is positive, then
// gcTerminating, gcOrphaned and gcUnscheduledTerminating, on one listing of
// the informers' pods.
func (c *Controller) check() {
	if c.stopped {
		return
	}
	defer c.timer.Reset(c.cfg.CheckPeriod)
	if !c.ctx.Pods.HasSynced() || !c.ctx.Nodes.HasSynced() {
		return
	}
	pods := c.listPods()
	if c.cfg.TerminatedPodThreshold > 0 {
		c.gcTerminated(pods)
	}
	c.gcTerminating(pods)
	c.gcOrphaned()
	c.gcUnscheduledTerminating(pods)
}

// gcOrphaned looks for pods on missing nodes, and confirms nodes missing
// for longer than the quarantine (with the pod-gc-no-quarantine ablation,
// at once).
func (c *Controller) gcOrphaned() {
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
		if !ok && !c.cfg.Ablations.Has(ablation.PodGCNoQuarantine) {
			c.missing[node] = now
			continue
		}
		if !ok || now.Sub(first) >= c.cfg.QuarantineTime {
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
				c.deletePod(pod, &model.PodCondition{Type: "DisruptionTarget", Status: model.ConditionTrue,
					Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}, spoketrace.PodGCOrphaned)
			}
		}
	})
}

// deletePod is markFailedAndDeletePodWithCondition: a pod not yet
// Succeeded or Failed is marked Failed (with cond, if any, so that its last
// state says why: an orphan stays Running forever otherwise), then it is
// deleted with a grace period of 0 (metav1.NewDeleteOptions(0): no
// preconditions).
//
// A deletion the API server answered 200 is traced as a
// spoketrace.ControllerDelete with the pass's reason.
func (c *Controller) deletePod(stored *model.Pod, cond *model.PodCondition, reason string) {
	pods := c.ctx.Client.Pods(stored.Namespace)
	del := func() {
		if c.stopped {
			return
		}
		zero := int64(0)
		pods.Delete(stored.Name, client.DeleteOptions{GracePeriodSeconds: &zero}, func(_ model.Object, err error) {
			if err == nil && !c.stopped {
				c.ctx.Host.Emit(&spoketrace.ControllerDelete{Controller: spoketrace.ControllerPodGC, Resource: model.ResourcePodsName,
					Key: stored.Namespace + "/" + stored.Name, UID: string(stored.UID), Reason: reason})
			}
		})
	}
	if p := stored.Status.Phase; p == model.PodSucceeded || p == model.PodFailed {
		del()
		return
	}
	pod := stored.DeepCopy()
	pod.Status.Phase = model.PodFailed
	if cond != nil {
		cond.LastTransitionTime = model.Time(c.ctx.Host.WallClock())
		model.SetPodCondition(&pod.Status, *cond)
	}
	pods.UpdateStatus(pod, func(_ model.Object, err error) {
		if err == nil {
			del() // a failed status write skips the delete, as the real one returns its error
		}
	})
}
