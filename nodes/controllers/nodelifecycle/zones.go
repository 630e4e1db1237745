package nodelifecycle

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// zoneState is a zone's health, as the real ZoneState.
type zoneState string

// The zone states.
const (
	stateInitial           zoneState = "Initial"
	stateNormal            zoneState = "Normal"
	stateFullDisruption    zoneState = "FullDisruption"
	statePartialDisruption zoneState = "PartialDisruption"
)

// Topology labels that define a node's zone.
const (
	labelTopologyRegion = "topology.kubernetes.io/region"
	labelTopologyZone   = "topology.kubernetes.io/zone"
	// labelExcludeDisruption keeps a node out of the zone states.
	labelExcludeDisruption = "node.kubernetes.io/exclude-disruption"
)

// zoneOf returns the node's zone key, as nodetopology.GetZoneKey: "" for a
// node without topology labels.
func zoneOf(node *model.Node) string {
	region, zone := node.Labels[labelTopologyRegion], node.Labels[labelTopologyZone]
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// addZone sets up a zone seen for the first time: Initial state, and a
// tainting queue at the normal eviction rate.
func (c *Controller) addZone(zone string) {
	if _, ok := c.zoneStates[zone]; ok {
		return
	}
	c.zoneStates[zone] = stateInitial
	if c.tainters[zone] == nil {
		c.tainters[zone] = newRateLimitedQueue(c.cfg.NodeEvictionRate, c.now())
	}
}

// computeZoneState returns how many nodes of a zone are not ready and the
// zone's state, as ComputeZoneState (a nil condition counts as not ready).
func (c *Controller) computeZoneState(conds []*model.NodeCondition) (int, zoneState) {
	ready, notReady := 0, 0
	for _, cond := range conds {
		if cond != nil && cond.Status == model.ConditionTrue {
			ready++
		} else {
			notReady++
		}
	}
	switch {
	case ready == 0 && notReady > 0:
		return notReady, stateFullDisruption
	case notReady > 2 && float64(notReady)/float64(notReady+ready) >= c.cfg.UnhealthyZoneThreshold:
		return notReady, statePartialDisruption
	}
	return notReady, stateNormal
}

// handleDisruption moves the zones to their new states after a pass, as
// the real handleDisruption: when every zone is fully disrupted the
// controller stops tainting and removes the NoExecute taints (the control
// plane, not the nodes, is presumed broken); when that ends every node's
// grace period restarts; otherwise each zone's tainting rate follows its
// state.
func (c *Controller) handleDisruption(zoneConds map[string][]*model.NodeCondition, nodes []*model.Node) {
	newStates := map[string]zoneState{}
	allAreFully := true
	for _, zone := range sim.SortedKeys(zoneConds) {
		_, st := c.computeZoneState(zoneConds[zone])
		if st != stateFullDisruption {
			allAreFully = false
		}
		newStates[zone] = st
		if _, had := c.zoneStates[zone]; !had {
			c.zoneStates[zone] = stateInitial
		}
	}
	allWereFully := true
	for _, zone := range sim.SortedKeys(c.zoneStates) {
		if _, have := zoneConds[zone]; !have {
			delete(c.zoneStates, zone)
			continue
		}
		if c.zoneStates[zone] != stateFullDisruption {
			allWereFully = false
		}
	}
	if allAreFully && allWereFully {
		return
	}
	now := c.now()
	switch {
	case allAreFully:
		for _, n := range nodes {
			c.markNodeAsReachable(n, nil)
		}
		for _, zone := range sim.SortedKeys(c.zoneStates) {
			c.tainter(zone).swapLimiter(0, now)
			c.zoneStates[zone] = stateFullDisruption
		}
	case allWereFully:
		for _, n := range nodes {
			if hd := c.health[n.Name]; hd != nil {
				cp := *hd
				cp.probeTimestamp, cp.readyTransitionTimestamp = now, now
				c.health[n.Name] = &cp
			}
		}
		for _, zone := range sim.SortedKeys(c.zoneStates) {
			c.setLimiterInZone(zone, len(zoneConds[zone]), newStates[zone])
			c.zoneStates[zone] = newStates[zone]
		}
	default:
		for _, zone := range sim.SortedKeys(c.zoneStates) {
			if st := newStates[zone]; st != c.zoneStates[zone] {
				c.setLimiterInZone(zone, len(zoneConds[zone]), st)
				c.zoneStates[zone] = st
			}
		}
	}
}

// tainter returns the zone's tainting queue, making it if needed.
func (c *Controller) tainter(zone string) *rateLimitedQueue {
	q := c.tainters[zone]
	if q == nil {
		q = newRateLimitedQueue(c.cfg.NodeEvictionRate, c.now())
		c.tainters[zone] = q
	}
	return q
}

// setLimiterInZone sets the tainting rate of a zone for its state: the
// eviction rate when Normal (or alone FullDisruption), for a partial
// disruption the secondary rate in a large zone and none in a small one.
func (c *Controller) setLimiterInZone(zone string, size int, st zoneState) {
	q, now := c.tainter(zone), c.now()
	switch st {
	case stateNormal, stateFullDisruption:
		q.swapLimiter(c.cfg.NodeEvictionRate, now)
	case statePartialDisruption:
		if size > c.cfg.LargeClusterSizeThreshold {
			q.swapLimiter(c.cfg.SecondaryNodeEvictionRate, now)
		} else {
			q.swapLimiter(0, now)
		}
	}
}

// ZoneStates returns the state of every zone ("Normal",
// "PartialDisruption", "FullDisruption" or "Initial"), by zone key ("" for
// nodes without topology labels), for tests and scenarios.
func (c *Controller) ZoneStates() map[string]string {
	out := make(map[string]string, len(c.zoneStates))
	for _, zone := range sim.SortedKeys(c.zoneStates) {
		out[zone] = string(c.zoneStates[zone])
	}
	return out
}

// markNodeForTainting queues the node for the NoExecute taint of its Ready
// status; a node whose taint was removed since may be queued again.
func (c *Controller) markNodeForTainting(node *model.Node, status model.ConditionStatus) {
	q := c.tainter(zoneOf(node))
	if status == model.ConditionFalse && !taintExists(node.Spec.Taints, &notReadyTaint) {
		q.remove(node.Name)
	}
	if status == model.ConditionUnknown && !taintExists(node.Spec.Taints, &unreachableTaint) {
		q.remove(node.Name)
	}
	if q.add(node.Name, c.now()) {
		c.wakeTainting()
	}
}

// markNodeAsReachable removes the NoExecute taints of a reachable node and,
// once they are gone, takes it off its zone's queue. node is the
// controller's view of it: taints it does not show cost no API call.
func (c *Controller) markNodeAsReachable(node *model.Node, done func(error)) {
	finish := func(err error) {
		if err == nil {
			c.tainter(zoneOf(node)).remove(node.Name)
		}
		if done != nil {
			done(err)
		}
	}
	c.removeTaints(node.Name, node, []model.Taint{unreachableTaint}, func(err error) {
		if err != nil {
			finish(err)
			return
		}
		c.removeTaints(node.Name, node, []model.Taint{notReadyTaint}, finish)
	})
}

// wakeTainting schedules a tainting pass unless one is running or
// scheduled. Passes repeat every nodeEvictionPeriod while a queue has
// nodes (the real controller runs them forever; an idle one does nothing).
func (c *Controller) wakeTainting() {
	if c.tainting || c.stopped {
		return
	}
	c.tainting = true
	c.taintTimer.Reset(nodeEvictionPeriod)
}

// doNoExecuteTaintingPass drains the zones' queues as far as their rate
// limiters allow, tainting each node by its Ready status.
func (c *Controller) doNoExecuteTaintingPass() {
	if c.stopped {
		return
	}
	zones := sim.SortedKeys(c.tainters)
	var next func(i int)
	next = func(i int) {
		if c.stopped {
			return
		}
		if i < len(zones) {
			c.tainters[zones[i]].try(c.now, c.taintNode, func() { next(i + 1) })
			return
		}
		for _, z := range zones {
			if c.tainters[z].len() > 0 {
				c.taintTimer.Reset(nodeEvictionPeriod)
				return
			}
		}
		c.tainting = false
	}
	next(0)
}

// taintNode gives a queued node the NoExecute taint of its Ready status
// (and removes the other one): ok false retries it after wait.
func (c *Controller) taintNode(name string, done func(ok bool, wait time.Duration)) {
	obj, ok := c.ctx.Nodes.GetStore().GetByKey(name)
	if !ok {
		done(true, 0) // gone
		return
	}
	node := obj.(*model.Node)
	_, cond := model.GetNodeCondition(&node.Status, model.NodeReady)
	if cond == nil {
		done(false, 50*time.Millisecond)
		return
	}
	var add, remove model.Taint
	switch cond.Status {
	case model.ConditionFalse:
		add, remove = notReadyTaint, unreachableTaint
	case model.ConditionUnknown:
		add, remove = unreachableTaint, notReadyTaint
	default:
		done(true, 0) // ready again
		return
	}
	c.swapTaints(node, []model.Taint{add}, []model.Taint{remove}, func(ok bool) { done(ok, 0) })
}
