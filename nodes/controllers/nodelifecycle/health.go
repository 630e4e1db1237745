package nodelifecycle

import (
	"errors"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// errNodeNotFound makes the pod queue retry a pod whose node the informer
// does not have yet.
var errNodeNotFound = errors.New("nodelifecycle: node not in the informer")

// Node condition reasons and messages the controller writes.
const (
	reasonNodeStatusUnknown      = "NodeStatusUnknown"
	messageNodeStatusUnknown     = "Kubelet stopped posting node status."
	reasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	messageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// unknownConditionTypes are the conditions a silent node gets Unknown
// (not NetworkUnavailable, which the control plane manages).
var unknownConditionTypes = []model.NodeConditionType{
	model.NodeReady, model.NodeMemoryPressure, model.NodeDiskPressure, model.NodePIDPressure,
}

// nodeHealth is what the controller knows of one node's health, as the
// real nodeHealthData. Its timestamps are the controller's own clock.
type nodeHealth struct {
	// status is the node status last observed (a copy).
	status *model.NodeStatus
	// probeTimestamp is when the controller last saw the node's Ready
	// heartbeat or Lease change.
	probeTimestamp model.Time
	// readyTransitionTimestamp is when it last saw the Ready status change.
	readyTransitionTimestamp model.Time
	// lease is the node Lease last observed.
	lease *model.Lease
}

func copyStatus(s *model.NodeStatus) *model.NodeStatus {
	n := model.Node{Status: *s}
	return &n.DeepCopy().Status
}

// lease returns the node's Lease from the informer, or nil.
func (c *Controller) lease(name string) *model.Lease {
	obj, ok := c.ctx.NodeLeases.GetStore().GetByKey(model.NamespacedName{Namespace: model.NodeLeaseNamespace, Name: name}.String())
	if !ok {
		return nil
	}
	l, _ := obj.(*model.Lease)
	return l
}

// renewedAfter reports whether b's renewTime is later than a's.
func renewedAfter(a, b *model.Lease) bool {
	return a.Spec.RenewTime != nil && b.Spec.RenewTime != nil && a.Spec.RenewTime.Before(*b.Spec.RenewTime)
}

// observeHealth is the first half of tryUpdateNodeHealth: it updates the
// node's health record from what the controller sees now (a new Ready
// heartbeat or a renewed Lease moves probeTimestamp to now) and returns the
// record, the Ready condition as observed (a fake Unknown one for a node
// that never posted one) and the grace period that applies.
func (c *Controller) observeHealth(node *model.Node) (*nodeHealth, model.NodeCondition, time.Duration) {
	now := c.now()
	hd := c.health[node.Name]
	var observed model.NodeCondition
	grace := c.cfg.NodeMonitorGracePeriod
	_, current := model.GetNodeCondition(&node.Status, model.NodeReady)
	if current == nil {
		observed = model.NodeCondition{Type: model.NodeReady, Status: model.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		grace = c.cfg.NodeStartupGracePeriod
		if hd != nil {
			hd = &nodeHealth{status: copyStatus(&node.Status), probeTimestamp: hd.probeTimestamp,
				readyTransitionTimestamp: hd.readyTransitionTimestamp, lease: hd.lease}
		} else {
			hd = &nodeHealth{status: copyStatus(&node.Status), probeTimestamp: node.CreationTimestamp,
				readyTransitionTimestamp: node.CreationTimestamp}
		}
	} else {
		observed = *current
	}
	var saved *model.NodeCondition
	var savedLease *model.Lease
	if hd != nil {
		_, saved = model.GetNodeCondition(hd.status, model.NodeReady)
		savedLease = hd.lease
	}
	switch {
	case hd == nil, saved == nil && current != nil, saved != nil && current == nil:
		// First sight of the node (or of its Ready condition): assume now.
		hd = &nodeHealth{status: copyStatus(&node.Status), probeTimestamp: now, readyTransitionTimestamp: now}
	case saved != nil && current != nil && saved.LastHeartbeatTime != current.LastHeartbeatTime:
		transition := hd.readyTransitionTimestamp
		if saved.LastTransitionTime != current.LastTransitionTime {
			transition = now
		}
		hd = &nodeHealth{status: copyStatus(&node.Status), probeTimestamp: now, readyTransitionTimestamp: transition}
	default:
		cp := *hd
		hd = &cp
	}
	// A renewed Lease always counts as a heartbeat.
	if l := c.lease(node.Name); l != nil && (savedLease == nil || renewedAfter(savedLease, l)) {
		hd.lease = l
		hd.probeTimestamp = now
	}
	return hd, observed, grace
}

// markUnknown sets the conditions of a silent node to Unknown, adding
// those it never posted.
func markUnknown(node *model.Node, now model.Time) {
	for _, t := range unknownConditionTypes {
		i, cur := model.GetNodeCondition(&node.Status, t)
		if cur == nil {
			node.Status.Conditions = append(node.Status.Conditions, model.NodeCondition{Type: t, Status: model.ConditionUnknown,
				Reason: reasonNodeStatusNeverUpdated, Message: messageNodeStatusNeverUpd,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: now})
			continue
		}
		if cur.Status != model.ConditionUnknown {
			node.Status.Conditions[i].Status = model.ConditionUnknown
			node.Status.Conditions[i].Reason = reasonNodeStatusUnknown
			node.Status.Conditions[i].Message = messageNodeStatusUnknown
			node.Status.Conditions[i].LastTransitionTime = now
		}
	}
}

// healthResult is the outcome of tryUpdateNodeHealth for one node.
type healthResult struct {
	node     *model.Node
	observed model.NodeCondition
	// current is the Ready condition after the update; nil only if the
	// node has none.
	current *model.NodeCondition
}

// tryUpdateNodeHealth records the node's health and, if its grace period
// has passed, writes its conditions as Unknown with UpdateStatus.
func (c *Controller) tryUpdateNodeHealth(node *model.Node, done func(healthResult, error)) {
	hd, observed, grace := c.observeHealth(node)
	c.health[node.Name] = hd
	_, current := model.GetNodeCondition(&node.Status, model.NodeReady)
	res := healthResult{node: node, observed: observed, current: current}
	now := c.now()
	// The real controller marks a node once now is after probeTimestamp
	// plus the grace period. Its passes drift by their own run time, so
	// the pass a whole grace period after the observation already sees
	// it as late; kubesim's passes take no virtual time and land exactly
	// on it, so the comparison is inclusive to give the same pass.
	if now.Before(hd.probeTimestamp.Add(grace)) {
		done(res, nil)
		return
	}
	markUnknown(node, c.stamp())
	_, res.current = model.GetNodeCondition(&node.Status, model.NodeReady)
	if *res.current == observed {
		done(res, nil)
		return
	}
	c.ctx.Client.Nodes().UpdateStatus(node, c.guard(func(_ model.Object, err error) {
		if err != nil {
			done(res, err)
			return
		}
		c.health[node.Name] = &nodeHealth{status: copyStatus(&node.Status), probeTimestamp: hd.probeTimestamp,
			readyTransitionTimestamp: c.now(), lease: c.lease(node.Name)}
		done(res, nil)
	}))
}

// updateNodeHealth runs tryUpdateNodeHealth, retrying a failed update on a
// freshly read node up to nodeHealthUpdateRetry times, retrySleepTime
// apart; ok is false if it never succeeded (the node is then skipped for
// this pass).
func (c *Controller) updateNodeHealth(node *model.Node, done func(res healthResult, ok bool)) {
	attempts := 0
	var try func(n *model.Node)
	try = func(n *model.Node) {
		c.tryUpdateNodeHealth(n, func(res healthResult, err error) {
			if err == nil {
				done(res, true)
				return
			}
			attempts++
			if attempts >= nodeHealthUpdateRetry {
				done(res, false)
				return
			}
			c.ctx.Client.Nodes().Get(n.Name, client.GetOptions{}, c.guard(func(obj model.Object, err error) {
				if err != nil {
					done(res, false)
					return
				}
				c.h.After(retrySleepTime, "node-health-retry", func() {
					if !c.stopped {
						try(obj.(*model.Node))
					}
				})
			}))
		})
	}
	try(node)
}

// markPodsNotReady sets the Ready condition of each pod bound to node that
// has one to False, one pod after another, as MarkPodsNotReady; pods
// already gone are skipped, and done gets the first other error.
func (c *Controller) markPodsNotReady(pods []*model.Pod, node string, done func(error)) {
	var firstErr error
	var step func(i int)
	step = func(i int) {
		if i == len(pods) {
			done(firstErr)
			return
		}
		if pods[i].Spec.NodeName != node {
			step(i + 1)
			return
		}
		pod := pods[i].DeepCopy()
		_, cond := model.GetPodCondition(&pod.Status, model.PodReady)
		if cond == nil {
			step(i + 1)
			return
		}
		next := *cond
		next.Status = model.ConditionFalse
		next.LastTransitionTime = c.stamp()
		if !model.SetPodCondition(&pod.Status, next) {
			step(i + 1)
			return
		}
		c.ctx.Client.Pods(pod.Namespace).UpdateStatus(pod, c.guard(func(_ model.Object, err error) {
			if err != nil && !client.IsNotFound(err) && firstErr == nil {
				firstErr = err
			}
			step(i + 1)
		}))
	}
	step(0)
}
