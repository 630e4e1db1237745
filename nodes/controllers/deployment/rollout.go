package deployment

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// rolloutRolling is one step of a rolling update: create the new
// ReplicaSet if needed, scale it up if the surge allows, else scale old
// ones down if availability allows, and once complete clean up old
// revisions; then report the status.
func (s *syncer) rolloutRolling() {
	s.ensureNewRS(func() {
		all := s.allRSs()
		n, change := planNewReplicaSet(s.d, s.newRS, func() int32 { return s.newRSReplicas(all, s.newRS) })
		if !change {
			s.scaleDownOld(all)
			return
		}
		s.scaleRS(scaleOp{rs: s.newRS, replicas: n}, func(scaled bool, err error) {
			switch {
			case err != nil:
				s.done(err)
			case scaled:
				s.syncRolloutStatus(all)
			default:
				s.scaleDownOld(all)
			}
		})
	})
}

// newRSReplicas is the size the new ReplicaSet may grow to now
// (NewRSNewReplicas); with the deployment-ignores-max-surge ablation, a
// rolling update's replicas at once, whatever the old ReplicaSets have.
func (s *syncer) newRSReplicas(all []*model.ReplicaSet, newRS *model.ReplicaSet) int32 {
	if s.c.cfg.Ablations.Has(ablation.DeploymentIgnoresMaxSurge) && isRollingUpdate(s.d) {
		return desiredOf(s.d)
	}
	return newRSNewReplicas(s.d, all, newRS)
}

// scaleDownOld is reconcileOldReplicaSets; like the real one, it counts a
// failed resize as no scale-down and carries on.
func (s *syncer) scaleDownOld(all []*model.ReplicaSet) {
	ops, ok := planOldReplicaSets(s.d, all, filterActive(s.oldRSs), s.newRS, s.c.cfg.Ablations.Has(ablation.DeploymentIgnoresAvailability))
	s.applyScales(ops, func(scaled bool, err error) {
		if scaled && ok && err == nil {
			s.syncRolloutStatus(all)
			return
		}
		s.finishRollout(all)
	})
}

// finishRollout cleans up old revisions of a complete rollout and reports
// the status.
func (s *syncer) finishRollout(all []*model.ReplicaSet) {
	if deploymentComplete(s.d, &s.d.Status) {
		s.cleanup(func() { s.syncRolloutStatus(all) })
		return
	}
	s.syncRolloutStatus(all)
}

// rolloutRecreate is one step of a Recreate rollout: scale every old
// ReplicaSet to 0; once none has pods left, create the new ReplicaSet and
// scale it to the Deployment's replicas.
func (s *syncer) rolloutRecreate() {
	var ops []scaleOp
	for _, rs := range filterActive(s.oldRSs) {
		ops = append(ops, scaleOp{rs: rs, replicas: 0})
	}
	s.applyScales(ops, func(scaled bool, err error) {
		switch {
		case err != nil:
			s.done(err)
		case scaled, s.oldPodsRunning():
			s.syncRolloutStatus(s.allRSs())
		default:
			s.ensureNewRS(s.scaleUpRecreate)
		}
	})
}

// scaleUpRecreate scales the new ReplicaSet to replicas.
func (s *syncer) scaleUpRecreate() {
	all := s.allRSs()
	s.scaleRS(scaleOp{rs: s.newRS, replicas: desiredOf(s.d)}, func(_ bool, err error) {
		if err != nil {
			s.done(err)
			return
		}
		s.finishRollout(all)
	})
}

// oldPodsRunning reports whether old ReplicaSets still report pods, or a
// non-terminal pod of one is still in the informer, as oldPodsRunning.
func (s *syncer) oldPodsRunning() bool {
	if sumStatus(s.oldRSs, statusReplicas) > 0 {
		return true
	}
	for _, uid := range sim.SortedKeys(s.podMap) {
		if s.newRS != nil && uid == s.newRS.UID {
			continue
		}
		for _, pod := range s.podMap[uid] {
			if !model.IsPodTerminal(pod) {
				return true
			}
		}
	}
	return false
}
