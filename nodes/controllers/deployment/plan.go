package deployment

import (
	"slices"

	"github.com/kubesim/kubesim/model"
)

// scaleOp is one ReplicaSet resize the controller decided on.
type scaleOp struct {
	// rs is the ReplicaSet as the controller saw it.
	rs       *model.ReplicaSet
	replicas int32
	// always sends the update when only the replicas annotations are out
	// of date (the real scaleReplicaSet); otherwise an unchanged size is
	// skipped (scaleReplicaSetAndRecordEvent).
	always bool
}

// planNewReplicaSet is reconcileNewReplicaSet's decision: the size newRS
// should have now, and whether that is a change; grow is the size it may
// grow to (NewRSNewReplicas).
func planNewReplicaSet(d *model.Deployment, newRS *model.ReplicaSet, grow func() int32) (int32, bool) {
	desired, cur := desiredOf(d), replicasOf(newRS)
	switch {
	case cur == desired:
		return cur, false
	case cur > desired:
		return desired, true
	}
	n := grow()
	return n, n != cur
}

// planOldReplicaSets is reconcileOldReplicaSets' decision for a rolling
// update: how far the active old ReplicaSets (oldRSs) may shrink while
// replicas-maxUnavailable pods stay available. Unhealthy replicas go first
// (cleanupUnhealthyReplicas), then old ReplicaSets are scaled down oldest
// first as long as the available pods, by the ReplicaSets' status, exceed
// the minimum (scaleDownOldReplicaSetsForRollingUpdate). ok is false where
// the real controller gives up with an error (an old ReplicaSet reporting
// more available replicas than its size, a stale status): the resizes
// decided before that point still happen, but the pass counts as no
// scale-down. countSpec is the deployment-ignores-availability ablation:
// the scale-down counts the ReplicaSets' spec.replicas as available.
func planOldReplicaSets(d *model.Deployment, allRSs, oldRSs []*model.ReplicaSet, newRS *model.ReplicaSet, countSpec bool) ([]scaleOp, bool) {
	if sumSpec(oldRSs) == 0 {
		return nil, true
	}
	minAvailable := desiredOf(d) - maxUnavailable(d)
	newUnavailable := replicasOf(newRS) - newRS.Status.AvailableReplicas
	maxScaledDown := sumSpec(allRSs) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return nil, true
	}
	old := sortedByCreation(oldRSs)
	size := make([]int32, len(old))
	for i, rs := range old {
		size[i] = replicasOf(rs)
	}
	collect := func() []scaleOp {
		var out []scaleOp
		for i, rs := range old {
			if size[i] != replicasOf(rs) {
				out = append(out, scaleOp{rs: rs, replicas: size[i]})
			}
		}
		return out
	}

	// Unhealthy replicas first, or they would block the rollout
	// (kubernetes/kubernetes#16737).
	var cleaned int32
	for i, rs := range old {
		if cleaned >= maxScaledDown {
			break
		}
		if size[i] == 0 || size[i] == rs.Status.AvailableReplicas {
			continue
		}
		down := min(maxScaledDown-cleaned, size[i]-rs.Status.AvailableReplicas)
		if down < 0 {
			return collect(), false
		}
		size[i] -= down
		cleaned += down
	}

	// Then scale down while more than minAvailable pods are available.
	available := sumStatus(allRSs, statusAvailable)
	if countSpec {
		available = sumSpec(allRSs)
	}
	if available > minAvailable {
		total := available - minAvailable
		var scaled int32
		for i := range old {
			if scaled >= total {
				break
			}
			if size[i] == 0 {
				continue
			}
			down := min(size[i], total-scaled)
			size[i] -= down
			scaled += down
		}
	}
	return collect(), true
}

// findActiveOrLatest returns the only active ReplicaSet, or the newest one
// when none is active, or nil when several are, as FindActiveOrLatest.
func findActiveOrLatest(newRS *model.ReplicaSet, oldRSs []*model.ReplicaSet) *model.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	old := sortedByCreation(oldRSs)
	slices.Reverse(old)
	active := filterActive(append(slices.Clone(old), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return old[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated reports whether rs has all of d's replicas, by its spec, its
// desired-replicas annotation and its available pods.
func isSaturated(d *model.Deployment, rs *model.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := intAnnotation(rs, DesiredReplicasAnnotation)
	return ok && replicasOf(rs) == desiredOf(d) && desired == desiredOf(d) && rs.Status.AvailableReplicas == desiredOf(d)
}

// planScale is the real scale(): resize the ReplicaSets of a Deployment
// whose replicas changed (or that is paused) without rolling it. A single
// active ReplicaSet (or the newest, if none is) takes all replicas; a
// saturated new one makes the old ones go to 0; otherwise, for
// RollingUpdate, the difference to replicas+maxSurge is shared among the
// active ReplicaSets in proportion to their size, biggest first (newer
// first when scaling up, older first when scaling down), the rounding
// leftover going to the biggest.
func planScale(d *model.Deployment, newRS *model.ReplicaSet, oldRSs []*model.ReplicaSet) []scaleOp {
	desired := desiredOf(d)
	if rs := findActiveOrLatest(newRS, oldRSs); rs != nil {
		if replicasOf(rs) == desired {
			return nil
		}
		return []scaleOp{{rs: rs, replicas: desired}}
	}
	if isSaturated(d, newRS) {
		var ops []scaleOp
		for _, old := range filterActive(oldRSs) {
			ops = append(ops, scaleOp{rs: old, replicas: 0})
		}
		return ops
	}
	if !isRollingUpdate(d) {
		return nil
	}
	all := filterActive(append(slices.Clone(oldRSs), newRS))
	allowed := int32(0)
	if desired > 0 {
		allowed = desired + maxSurge(d)
	}
	toAdd := allowed - sumSpec(all)
	switch {
	case toAdd > 0:
		slices.SortStableFunc(all, func(a, b *model.ReplicaSet) int { return bySize(a, b, true) })
	case toAdd < 0:
		slices.SortStableFunc(all, func(a, b *model.ReplicaSet) int { return bySize(a, b, false) })
	}
	sizes := make([]int32, len(all))
	var added int32
	for i, rs := range all {
		sizes[i] = replicasOf(rs)
		if toAdd != 0 {
			p := replicaSetProportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	ops := make([]scaleOp, 0, len(all))
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[i] = max(sizes[i]+toAdd-added, 0)
		}
		ops = append(ops, scaleOp{rs: rs, replicas: sizes[i], always: true})
	}
	return ops
}

// bySize orders ReplicaSets biggest first; among equals, newer first when
// newerFirst (ReplicaSetsBySizeNewer) or older first (BySizeOlder).
func bySize(a, b *model.ReplicaSet, newerFirst bool) int {
	ra, rb := replicasOf(a), replicasOf(b)
	if ra != rb {
		if ra > rb {
			return -1
		}
		return 1
	}
	if newerFirst {
		return lessByCreation(b, a)
	}
	return lessByCreation(a, b)
}

// replicaSetProportion is how many replicas rs gains (or loses) of toAdd,
// added having been handed out already, as GetReplicaSetProportion.
func replicaSetProportion(rs *model.ReplicaSet, d *model.Deployment, toAdd, added int32) int32 {
	if rs == nil || replicasOf(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// replicaSetFraction is rs's size scaled by the Deployment's new maximum
// over the maximum it was last scaled for (its max-replicas annotation,
// else the Deployment's status replicas), minus its size, as
// getReplicaSetFraction.
func replicaSetFraction(rs *model.ReplicaSet, d *model.Deployment) int32 {
	if desiredOf(d) == 0 {
		return -replicasOf(rs)
	}
	maxNow := desiredOf(d) + maxSurge(d)
	maxBefore, ok := intAnnotation(rs, MaxReplicasAnnotation)
	if !ok || maxBefore == 0 {
		maxBefore = d.Status.Replicas
	}
	if maxBefore == 0 {
		return 0 // cannot happen for an active ReplicaSet; avoid dividing by 0
	}
	scaled := float64(replicasOf(rs)*maxNow) / float64(maxBefore)
	return roundToInt32(scaled) - replicasOf(rs)
}
