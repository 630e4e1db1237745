package deployment

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// syncer is one sync of one Deployment, the real syncDeployment as a chain
// of API calls: every step continues from the previous call's answer, and
// the first error ends the sync (done(err) requeues the key with backoff).
type syncer struct {
	c   *Controller
	key string
	// d is the controller's copy; it takes the answers of its status writes.
	d      *model.Deployment
	rsList []*model.ReplicaSet
	podMap map[model.UID][]*model.Pod
	newRS  *model.ReplicaSet
	oldRSs []*model.ReplicaSet // every old ReplicaSet
	done   func(error)
}

// run is syncDeployment: a Deployment being deleted only gets its status;
// a paused one, or one whose replicas changed, is scaled (sync); any other
// is rolled out by its strategy.
func (s *syncer) run() {
	d := s.d
	s.rsList = s.c.replicaSetsFor(d)
	s.podMap = s.c.podMapFor(d, s.rsList)
	if d.DeletionTimestamp != nil {
		s.syncRevision(func() { s.syncDeploymentStatus(s.allRSs()) })
		return
	}
	s.checkPausedConditions(func() {
		s.syncRevision(func() {
			switch {
			case s.d.Spec.Paused, s.isScalingEvent():
				s.sync()
			case s.d.Spec.Strategy.Type == model.RecreateDeploymentStrategyType:
				s.rolloutRecreate()
			default:
				s.rolloutRolling()
			}
		})
	})
}

// allRSs is the old ReplicaSets and the new one, if any.
func (s *syncer) allRSs() []*model.ReplicaSet {
	all := slices.Clone(s.oldRSs)
	if s.newRS != nil {
		all = append(all, s.newRS)
	}
	return all
}

// updateStatus writes s.d's status and continues with the stored
// Deployment.
func (s *syncer) updateStatus(next func()) {
	s.c.ctx.Client.Deployments(s.d.Namespace).UpdateStatus(s.d, s.c.guard(func(obj model.Object, err error) {
		if err != nil {
			s.done(err)
			return
		}
		if d, ok := obj.(*model.Deployment); ok {
			s.d = d
		}
		next()
	}))
}

// checkPausedConditions records pausing and resuming in the Progressing
// condition (unless a deadline was already exceeded).
func (s *syncer) checkPausedConditions(next func()) {
	d := s.d
	if !hasProgressDeadline(d) {
		next()
		return
	}
	cond := getCondition(&d.Status, model.DeploymentProgressing)
	if cond != nil && cond.Reason == ReasonProgressDeadlineExceeded {
		next()
		return
	}
	paused := cond != nil && cond.Reason == ReasonDeploymentPaused
	switch {
	case d.Spec.Paused && !paused:
		setCondition(&d.Status, newCondition(model.DeploymentProgressing, model.ConditionUnknown, ReasonDeploymentPaused,
			"Deployment is paused", s.c.now()))
	case !d.Spec.Paused && paused:
		setCondition(&d.Status, newCondition(model.DeploymentProgressing, model.ConditionUnknown, ReasonDeploymentResumed,
			"Deployment is resumed", s.c.now()))
	default:
		next()
		return
	}
	s.updateStatus(next)
}

// syncRevision finds the new and old ReplicaSets and brings an existing
// new ReplicaSet's annotations and minReadySeconds up to date, as
// getAllReplicaSetsAndSyncRevision without creating; a Deployment without
// a Progressing condition then gets FoundNewReplicaSet.
func (s *syncer) syncRevision(next func()) {
	d := s.d
	s.newRS = findNewReplicaSet(d, s.rsList)
	s.oldRSs = oldReplicaSets(s.rsList, s.newRS)
	if s.newRS == nil {
		next()
		return
	}
	rs := s.newRS.DeepCopy()
	changed := setNewReplicaSetAnnotations(d, rs, maxRevision(s.oldRSs)+1, true)
	if changed || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		s.c.ctx.Client.ReplicaSets(d.Namespace).Update(rs, s.c.guard(func(obj model.Object, err error) {
			if err != nil {
				s.done(err)
				return
			}
			s.newRS = obj.(*model.ReplicaSet)
			next()
		}))
		return
	}
	if hasProgressDeadline(d) && getCondition(&d.Status, model.DeploymentProgressing) == nil {
		setCondition(&d.Status, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonFoundNewReplicaSet,
			fmt.Sprintf("Found new replica set %q", rs.Name), s.c.now()))
		s.updateStatus(next)
		return
	}
	next()
}

// isScalingEvent reports whether an active ReplicaSet was last scaled for
// other replicas than d's: spec.replicas changed, not the template.
func (s *syncer) isScalingEvent() bool {
	for _, rs := range filterActive(s.allRSs()) {
		if desired, ok := intAnnotation(rs, DesiredReplicasAnnotation); ok && desired != desiredOf(s.d) {
			return true
		}
	}
	return false
}

// ensureNewRS creates the new ReplicaSet unless it exists.
func (s *syncer) ensureNewRS(next func()) {
	if s.newRS != nil {
		next()
		return
	}
	s.createNewRS(next)
}

// newReplicaSet builds the new ReplicaSet of d: template and selector with
// the pod-template-hash label, named after it, controlled by d, sized and
// annotated for the rollout.
func (s *syncer) newReplicaSet() *model.ReplicaSet {
	d := s.d
	hash := ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
	rs := &model.ReplicaSet{}
	d.Spec.Template.DeepCopyInto(&rs.Spec.Template)
	labels := maps.Clone(rs.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[DefaultDeploymentUniqueLabelKey] = hash
	rs.Spec.Template.Labels = labels
	rs.Spec.Selector = d.Spec.Selector.DeepCopy()
	if rs.Spec.Selector.MatchLabels == nil {
		rs.Spec.Selector.MatchLabels = map[string]string{}
	}
	rs.Spec.Selector.MatchLabels[DefaultDeploymentUniqueLabelKey] = hash
	rs.Name, rs.Namespace = d.Name+"-"+hash, d.Namespace
	rs.Labels = maps.Clone(labels)
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(d, model.KindDeployment)}
	rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
	rs.Spec.Replicas = model.Ptr(int32(0))
	rs.Spec.Replicas = model.Ptr(s.newRSReplicas(append(slices.Clone(s.oldRSs), rs), rs))
	setNewReplicaSetAnnotations(d, rs, maxRevision(s.oldRSs)+1, false)
	return rs
}

// createNewRS creates the new ReplicaSet, as getNewReplicaSet does when
// none exists: AlreadyExists with our own ReplicaSet of that template is
// success; with another one it is a hash collision, which bumps
// status.collisionCount and fails the sync; any other failure sets
// Progressing=False (ReplicaSetCreateError). A created ReplicaSet sets
// Progressing (NewReplicaSetCreated).
func (s *syncer) createNewRS(next func()) {
	d, rs := s.d, s.newReplicaSet()
	s.c.ctx.Client.ReplicaSets(d.Namespace).Create(rs, s.c.guard(func(obj model.Object, err error) {
		switch {
		case client.IsAlreadyExists(err):
			s.handleAlreadyExists(rs, err, next)
		case err != nil:
			if hasProgressDeadline(d) {
				setCondition(&d.Status, newCondition(model.DeploymentProgressing, model.ConditionFalse, ReasonReplicaSetCreateError,
					fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err), s.c.now()))
				s.c.ctx.Client.Deployments(d.Namespace).UpdateStatus(d, func(model.Object, error) {})
			}
			s.done(err)
		default:
			s.newRS = obj.(*model.ReplicaSet)
			if !hasProgressDeadline(d) {
				next()
				return
			}
			setCondition(&d.Status, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonNewReplicaSetCreated,
				fmt.Sprintf("Created new replica set %q", s.newRS.Name), s.c.now()))
			s.updateStatus(next)
		}
	}))
}

// handleAlreadyExists decides whether the ReplicaSet in the way is ours.
func (s *syncer) handleAlreadyExists(rs *model.ReplicaSet, createErr error, next func()) {
	d := s.d
	obj, ok := s.c.ctx.ReplicaSets.Lister().ByNamespace(d.Namespace).Get(rs.Name)
	if !ok {
		s.done(createErr) // the informer has not seen it yet: retry later
		return
	}
	existing := obj.(*model.ReplicaSet)
	if model.IsControlledBy(existing, d) && equalIgnoreHash(&d.Spec.Template, &existing.Spec.Template) {
		s.newRS = existing
		next()
		return
	}
	d.Status.CollisionCount = model.Ptr(model.Deref(d.Status.CollisionCount, 0) + 1)
	s.c.ctx.Client.Deployments(d.Namespace).UpdateStatus(d, s.c.guard(func(model.Object, error) { s.done(createErr) }))
}

// scaleRS resizes one ReplicaSet and refreshes its replicas annotations,
// as scaleReplicaSet (or, unless op.always, scaleReplicaSetAndRecordEvent,
// which skips an unchanged size). scaled reports a size change.
func (s *syncer) scaleRS(op scaleOp, next func(scaled bool, err error)) {
	d, rs := s.d, op.rs
	if !op.always && replicasOf(rs) == op.replicas {
		next(false, nil)
		return
	}
	desired, maxReplicas := desiredOf(d), desiredOf(d)+maxSurge(d)
	sizeChanged := replicasOf(rs) != op.replicas
	if !sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		next(false, nil)
		return
	}
	cp := rs.DeepCopy()
	cp.Spec.Replicas = model.Ptr(op.replicas)
	setReplicasAnnotations(cp, desired, maxReplicas)
	s.c.ctx.Client.ReplicaSets(d.Namespace).Update(cp, s.c.guard(func(_ model.Object, err error) {
		next(err == nil && sizeChanged, err)
	}))
}

// applyScales runs ops one after another, stopping at the first error;
// scaled reports whether any size changed.
func (s *syncer) applyScales(ops []scaleOp, next func(scaled bool, err error)) {
	scaled := false
	var step func(i int)
	step = func(i int) {
		if i == len(ops) {
			next(scaled, nil)
			return
		}
		s.scaleRS(ops[i], func(ok bool, err error) {
			scaled = scaled || ok
			if err != nil {
				next(scaled, err)
				return
			}
			step(i + 1)
		})
	}
	step(0)
}

// sync scales a paused Deployment, or one whose replicas changed, without
// rolling it out; a paused one also gets its old revisions cleaned up.
func (s *syncer) sync() {
	s.applyScales(planScale(s.d, s.newRS, s.oldRSs), func(_ bool, err error) {
		if err != nil {
			s.done(err)
			return
		}
		all := s.allRSs()
		if s.d.Spec.Paused {
			s.cleanup(func() { s.syncDeploymentStatus(all) })
			return
		}
		s.syncDeploymentStatus(all)
	})
}

// cleanup deletes the old ReplicaSets beyond revisionHistoryLimit, lowest
// revision first, skipping any that still has (or may have) pods, as
// cleanupDeployment. A deletion the API server answered 200 is traced as a
// spoketrace.ControllerDelete. The deployment-history-off-by-one ablation
// keeps one old ReplicaSet fewer.
func (s *syncer) cleanup(next func()) {
	d := s.d
	if d.Spec.RevisionHistoryLimit == nil {
		next()
		return
	}
	var alive []*model.ReplicaSet
	for _, rs := range s.oldRSs {
		if rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	diff := len(alive) - int(*d.Spec.RevisionHistoryLimit)
	if s.c.cfg.Ablations.Has(ablation.DeploymentHistoryOffByOne) {
		diff = min(diff+1, len(alive))
	}
	if diff <= 0 {
		next()
		return
	}
	slices.SortStableFunc(alive, lessByRevision)
	var victims []*model.ReplicaSet
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || replicasOf(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		victims = append(victims, rs)
	}
	var step func(i int)
	step = func(i int) {
		if i == len(victims) {
			next()
			return
		}
		rs := victims[i]
		s.c.ctx.Client.ReplicaSets(d.Namespace).Delete(rs.Name, client.DeleteOptions{}, s.c.guard(func(_ model.Object, err error) {
			if err != nil && !client.IsNotFound(err) {
				s.done(err)
				return
			}
			if err == nil {
				s.c.h.Emit(&spoketrace.ControllerDelete{Controller: spoketrace.ControllerDeployment, Owner: string(d.UID),
					Resource: model.ResourceReplicaSetsName, Key: d.Namespace + "/" + rs.Name, UID: string(rs.UID)})
			}
			step(i + 1)
		}))
	}
	step(0)
}

// syncDeploymentStatus writes calculateStatus if it changed.
func (s *syncer) syncDeploymentStatus(all []*model.ReplicaSet) {
	st := calculateStatus(all, s.newRS, s.d, s.c.now())
	if reflect.DeepEqual(s.d.Status, st) {
		s.done(nil)
		return
	}
	s.d.Status = st
	s.updateStatus(func() { s.done(nil) })
}

// syncRolloutStatus writes rolloutStatus if it changed; otherwise it
// requeues a rollout that may be stuck for when its deadline passes.
func (s *syncer) syncRolloutStatus(all []*model.ReplicaSet) {
	now := s.c.now()
	st := rolloutStatus(all, s.newRS, s.d, now)
	if reflect.DeepEqual(s.d.Status, st) {
		switch after := stuckRequeue(s.d, &st, now); {
		case after == 0:
			s.c.queue.AddRateLimited(s.key)
		case after > 0:
			s.c.queue.AddAfter(s.key, after)
		}
		s.done(nil)
		return
	}
	s.d.Status = st
	s.updateStatus(func() { s.done(nil) })
}
