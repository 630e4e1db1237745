package nodelifecycle

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// monitorNodeHealth is one pass over every node, as the real
// monitorNodeHealth: update each node's health (marking silent ones
// Unknown), act on its Ready status (taints, pods not ready), then move the
// zones to their new states. The next pass starts a monitor period after
// this one ends.
func (c *Controller) monitorNodeHealth() {
	if c.stopped {
		return
	}
	var nodes []*model.Node
	seen := map[string]bool{}
	for _, obj := range c.ctx.Nodes.GetStore().List() {
		n := obj.(*model.Node)
		nodes = append(nodes, n)
		seen[n.Name] = true
		c.addZone(zoneOf(n))
		if !c.knownNodes[n.Name] {
			// A node seen for the first time (also every node when the
			// controller starts) loses its NoExecute taints until the
			// controller itself finds it unhealthy.
			c.knownNodes[n.Name] = true
			c.markNodeAsReachable(n, nil)
		}
	}
	for _, name := range sim.SortedKeys(c.knownNodes) {
		if !seen[name] {
			delete(c.knownNodes, name)
		}
	}

	zoneConds := map[string][]*model.NodeCondition{}
	pending := len(nodes)
	finish := func() {
		c.handleDisruption(zoneConds, nodes)
		c.monitorTimer.Reset(c.cfg.NodeMonitorPeriod)
	}
	if pending == 0 {
		finish()
		return
	}
	for _, n := range nodes {
		c.monitorNode(n.DeepCopy(), func(zone string, cond *model.NodeCondition, counted bool) {
			if counted {
				zoneConds[zone] = append(zoneConds[zone], cond)
			}
			pending--
			if pending == 0 {
				finish()
			}
		})
	}
}

// monitorNode updates one node's health and acts on it; done reports the
// node's zone and current Ready condition, unless the update failed or
// the node is excluded from disruption checks (counted false).
func (c *Controller) monitorNode(node *model.Node, done func(zone string, cond *model.NodeCondition, counted bool)) {
	c.updateNodeHealth(node, func(res healthResult, ok bool) {
		if !ok {
			done("", nil, false)
			return
		}
		node := res.node
		_, excluded := node.Labels[labelExcludeDisruption]
		report := func() { done(zoneOf(node), res.current, !excluded) }
		if res.current == nil {
			report()
			return
		}
		c.processTaintBaseEviction(node, &res.observed)
		becameNotReady := res.current.Status != model.ConditionTrue && res.observed.Status == model.ConditionTrue
		if becameNotReady || (c.nodesToRetry[node.Name] && res.observed.Status != model.ConditionTrue) {
			c.markPodsNotReady(c.podsOnNode(node.Name), node.Name, func(err error) {
				if err != nil {
					c.nodesToRetry[node.Name] = true
				} else {
					delete(c.nodesToRetry, node.Name)
				}
				report()
			})
			return
		}
		delete(c.nodesToRetry, node.Name)
		report()
	})
}

// processTaintBaseEviction acts on the Ready status observed at the start
// of the pass: a not-ready or unreachable node is queued for its NoExecute
// taint (or has the other one swapped at once); a ready one loses them.
func (c *Controller) processTaintBaseEviction(node *model.Node, observed *model.NodeCondition) {
	switch observed.Status {
	case model.ConditionFalse:
		if taintExists(node.Spec.Taints, &unreachableTaint) {
			c.swapTaints(node, []model.Taint{notReadyTaint}, []model.Taint{unreachableTaint}, func(bool) {})
		} else {
			c.markNodeForTainting(node, model.ConditionFalse)
		}
	case model.ConditionUnknown:
		if taintExists(node.Spec.Taints, &notReadyTaint) {
			c.swapTaints(node, []model.Taint{unreachableTaint}, []model.Taint{notReadyTaint}, func(bool) {})
		} else {
			c.markNodeForTainting(node, model.ConditionUnknown)
		}
	case model.ConditionTrue:
		c.markNodeAsReachable(node, nil)
	}
}
