package nodelifecycle

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The NoExecute taints of taint-based eviction (the templates; TimeAdded is
// set when one is added).
var (
	unreachableTaint = model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute}
	notReadyTaint    = model.Taint{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoExecute}
)

// Condition taint keys the model does not name.
const (
	taintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	taintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
)

// updateTaintBackoff is the retry of taint updates
// (controller.UpdateTaintBackoff): 5 tries, 100 ms apart, full jitter.
var updateTaintBackoff = client.Backoff{Steps: 5, Duration: 100 * time.Millisecond, Jitter: 1.0}

// conditionTaint returns the NoSchedule taint key a node condition calls
// for (TaintNodesByCondition's nodeConditionToTaintKeyStatusMap).
func conditionTaint(c model.NodeCondition) (string, bool) {
	switch {
	case c.Type == model.NodeReady && c.Status == model.ConditionFalse:
		return model.TaintNodeNotReady, true
	case c.Type == model.NodeReady && c.Status == model.ConditionUnknown:
		return model.TaintNodeUnreachable, true
	case c.Type == model.NodeMemoryPressure && c.Status == model.ConditionTrue:
		return model.TaintNodeMemoryPressure, true
	case c.Type == model.NodeDiskPressure && c.Status == model.ConditionTrue:
		return model.TaintNodeDiskPressure, true
	case c.Type == model.NodeNetworkUnavailable && c.Status == model.ConditionTrue:
		return taintNodeNetworkUnavailable, true
	case c.Type == model.NodePIDPressure && c.Status == model.ConditionTrue:
		return taintNodePIDPressure, true
	}
	return "", false
}

// isConditionTaintKey reports whether key is one conditionTaint returns.
func isConditionTaintKey(key string) bool {
	switch key {
	case model.TaintNodeNotReady, model.TaintNodeUnreachable, model.TaintNodeMemoryPressure,
		model.TaintNodeDiskPressure, taintNodeNetworkUnavailable, taintNodePIDPressure:
		return true
	}
	return false
}

// taintExists reports whether taints has one matching t (key and effect).
func taintExists(taints []model.Taint, t *model.Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(t) {
			return true
		}
	}
	return false
}

func sameTaint(a, b *model.Taint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TimeAdded == nil || b.TimeAdded == nil {
		return a.TimeAdded == b.TimeAdded
	}
	return *a.TimeAdded == *b.TimeAdded
}

// addOrUpdateTaint puts t on node, replacing a matching taint that differs
// (TimeAdded included), as taints.AddOrUpdateTaint; it reports a change.
func addOrUpdateTaint(node *model.Node, t model.Taint) bool {
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].MatchTaint(&t) {
			if sameTaint(&node.Spec.Taints[i], &t) {
				return false
			}
			node.Spec.Taints[i] = t
			return true
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, t)
	return true
}

// removeTaint drops the taints matching t, reporting a change.
func removeTaint(node *model.Node, t *model.Taint) bool {
	var out []model.Taint
	for _, cur := range node.Spec.Taints {
		if !cur.MatchTaint(t) {
			out = append(out, cur)
		}
	}
	changed := len(out) != len(node.Spec.Taints)
	node.Spec.Taints = out
	return changed
}

// updateNodeTaints reads the node (from the API server's cache the first
// time, then from etcd), applies mutate and, if it changed anything,
// updates the node with its resourceVersion; conflicts are retried with
// updateTaintBackoff.
func (c *Controller) updateNodeTaints(name string, mutate func(*model.Node) bool, done func(error)) {
	first := true
	c.ctx.Client.RetryOnConflict(updateTaintBackoff, func(attempt func(error)) {
		if c.stopped {
			return
		}
		opts := client.GetOptions{}
		if first {
			opts.ResourceVersion = "0"
			first = false
		}
		c.ctx.Client.Nodes().Get(name, opts, c.guard(func(obj model.Object, err error) {
			if err != nil {
				attempt(err)
				return
			}
			node := obj.(*model.Node)
			before := noExecuteTaints(node)
			if !mutate(node) {
				attempt(nil)
				return
			}
			c.ctx.Client.Nodes().Update(node, c.guard(func(_ model.Object, err error) {
				if err == nil {
					c.traceNoExecute(name, before, noExecuteTaints(node))
				}
				attempt(err)
			}))
		}))
	}, c.guardErr(done))
}

// addTaints adds or refreshes taints on the named node, as
// AddOrUpdateTaintOnNode.
func (c *Controller) addTaints(name string, taints []model.Taint, done func(error)) {
	if len(taints) == 0 {
		done(nil)
		return
	}
	c.updateNodeTaints(name, func(n *model.Node) bool {
		changed := false
		for _, t := range taints {
			changed = addOrUpdateTaint(n, t) || changed
		}
		return changed
	}, done)
}

// removeTaints removes taints from the named node, as RemoveTaintOffNode:
// when the controller's view (view, if not nil) shows none of them, no API
// call is made.
func (c *Controller) removeTaints(name string, view *model.Node, taints []model.Taint, done func(error)) {
	if len(taints) == 0 {
		done(nil)
		return
	}
	if view != nil {
		found := false
		for i := range taints {
			found = found || taintExists(view.Spec.Taints, &taints[i])
		}
		if !found {
			done(nil)
			return
		}
	}
	c.updateNodeTaints(name, func(n *model.Node) bool {
		changed := false
		for i := range taints {
			changed = removeTaint(n, &taints[i]) || changed
		}
		return changed
	}, done)
}

// swapTaints adds taints (with TimeAdded now) and then removes others, as
// SwapNodeControllerTaint; ok reports that both succeeded.
func (c *Controller) swapTaints(node *model.Node, add, remove []model.Taint, done func(ok bool)) {
	now := c.stamp()
	stamped := make([]model.Taint, len(add))
	for i, t := range add {
		t.TimeAdded = model.Ptr(now)
		stamped[i] = t
	}
	c.addTaints(node.Name, stamped, func(err error) {
		if err != nil {
			done(false)
			return
		}
		c.removeTaints(node.Name, node, remove, func(err error) { done(err == nil) })
	})
}

// processNodeKey makes a node's NoSchedule condition taints (and the
// unschedulable taint) match its conditions, as doNoScheduleTaintingPass.
// Like the real controller it does not retry a failure: the next change
// of the node brings it back.
func (c *Controller) processNodeKey(name string, done func(error)) {
	obj, ok := c.ctx.Nodes.GetStore().GetByKey(name)
	if !ok {
		done(nil)
		return
	}
	node := obj.(*model.Node)
	var want []model.Taint
	for _, cond := range node.Status.Conditions {
		if key, ok := conditionTaint(cond); ok {
			want = append(want, model.Taint{Key: key, Effect: model.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule})
	}
	var have []model.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == model.TaintEffectNoSchedule && (t.Key == model.TaintNodeUnschedulable || isConditionTaintKey(t.Key)) {
			have = append(have, t)
		}
	}
	add, remove := taintSetDiff(want, have)
	if len(add) == 0 && len(remove) == 0 {
		done(nil)
		return
	}
	c.swapTaints(node, add, remove, func(bool) { done(nil) })
}

// taintSetDiff returns the taints of want missing from have, and those of
// have missing from want (by key and effect).
func taintSetDiff(want, have []model.Taint) (add, remove []model.Taint) {
	for i := range want {
		if !taintExists(have, &want[i]) {
			add = append(add, want[i])
		}
	}
	for i := range have {
		if !taintExists(want, &have[i]) {
			remove = append(remove, have[i])
		}
	}
	return add, remove
}

// traceNoExecute emits spoketrace.NodeTaint for each NoExecute taint an
// acknowledged update added or removed: the taints whose age the taint
// manager's evictions count from.
func (c *Controller) traceNoExecute(node string, before, after []model.Taint) {
	has := func(ts []model.Taint, t model.Taint) bool {
		return slices.ContainsFunc(ts, func(u model.Taint) bool { return u.MatchTaint(&t) })
	}
	for _, t := range after {
		if !has(before, t) {
			c.ctx.Host.Emit(&spoketrace.NodeTaint{Node: node, Taint: t.Key + ":" + string(t.Effect), Added: true})
		}
	}
	for _, t := range before {
		if !has(after, t) {
			c.ctx.Host.Emit(&spoketrace.NodeTaint{Node: node, Taint: t.Key + ":" + string(t.Effect)})
		}
	}
}
