package deployment

import (
	"fmt"
	"math"
	"time"

	"github.com/kubesim/kubesim/model"
)

// The reasons of the Deployment conditions, as deploymentutil's.
const (
	// ReasonNewReplicaSetCreated: Progressing, a new ReplicaSet was
	// created.
	ReasonNewReplicaSetCreated = "NewReplicaSetCreated"
	// ReasonFoundNewReplicaSet: Progressing, the new ReplicaSet existed
	// before the Deployment had a Progressing condition.
	ReasonFoundNewReplicaSet = "FoundNewReplicaSet"
	// ReasonReplicaSetUpdated: Progressing, the rollout made progress.
	ReasonReplicaSetUpdated = "ReplicaSetUpdated"
	// ReasonNewReplicaSetAvailable: Progressing, the rollout is complete.
	ReasonNewReplicaSetAvailable = "NewReplicaSetAvailable"
	// ReasonProgressDeadlineExceeded: Progressing=False, no progress for
	// progressDeadlineSeconds.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonReplicaSetCreateError: Progressing=False, the new ReplicaSet
	// could not be created.
	ReasonReplicaSetCreateError = "ReplicaSetCreateError"
	// ReasonDeploymentPaused and ReasonDeploymentResumed:
	// Progressing=Unknown while paused, and once resumed.
	ReasonDeploymentPaused  = "DeploymentPaused"
	ReasonDeploymentResumed = "DeploymentResumed"
	// ReasonMinimumReplicasAvailable and ReasonMinimumReplicasUnavailable:
	// Available is True or False.
	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// IsComplete reports whether d's rollout is complete by its status, as
// deploymentutil.DeploymentComplete: every one of spec.replicas is updated
// and available, no old pod is left (status.replicas equals spec.replicas),
// and the status is of the current generation.
func IsComplete(d *model.Deployment) bool { return deploymentComplete(d, &d.Status) }

func deploymentComplete(d *model.Deployment, st *model.DeploymentStatus) bool {
	want := desiredOf(d)
	return st.UpdatedReplicas == want && st.Replicas == want && st.AvailableReplicas == want &&
		st.ObservedGeneration >= d.Generation
}

// deploymentProgressing reports whether st shows progress over d's stored
// status: more updated, ready or available pods, or fewer old ones.
func deploymentProgressing(d *model.Deployment, st *model.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// hasProgressDeadline reports whether d has a progress deadline (MaxInt32
// means none).
func hasProgressDeadline(d *model.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func progressDeadline(d *model.Deployment) time.Duration {
	return time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
}

// deploymentTimedOut reports whether the Progressing condition of st was
// last updated more than progressDeadlineSeconds before now.
func deploymentTimedOut(d *model.Deployment, st *model.DeploymentStatus, now model.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := getCondition(st, model.DeploymentProgressing)
	switch {
	case c == nil, c.Reason == ReasonNewReplicaSetAvailable:
		return false
	case c.Reason == ReasonProgressDeadlineExceeded:
		return true
	}
	return c.LastUpdateTime.Add(progressDeadline(d)).Before(now)
}

func newCondition(t model.DeploymentConditionType, status model.ConditionStatus, reason, msg string, now model.Time) model.DeploymentCondition {
	return model.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: msg, LastUpdateTime: now, LastTransitionTime: now}
}

func getCondition(st *model.DeploymentStatus, t model.DeploymentConditionType) *model.DeploymentCondition {
	_, c := model.FindCondition(st.Conditions, t)
	return c
}

// setCondition sets c in st, as SetDeploymentCondition: nothing happens if
// a condition of the type has the same status and reason; an unchanged
// status keeps its transition time; the condition moves to the end.
func setCondition(st *model.DeploymentStatus, c model.DeploymentCondition) {
	if cur := getCondition(st, c.Type); cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	model.ReplaceCondition[model.DeploymentCondition, model.DeploymentConditionType](&st.Conditions, c)
}

// calculateStatus is the status d should have given its ReplicaSets, as
// the real calculateStatus: counts summed over the ReplicaSets (replicas,
// ready and available from their status, unavailable from their spec), the
// current generation, and the Available condition.
func calculateStatus(allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment, now model.Time) model.DeploymentStatus {
	available := sumStatus(allRSs, statusAvailable)
	st := model.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumStatus(allRSs, statusReplicas),
		UpdatedReplicas:     sumStatus([]*model.ReplicaSet{newRS}, statusReplicas),
		ReadyReplicas:       sumStatus(allRSs, statusReady),
		AvailableReplicas:   available,
		UnavailableReplicas: max(sumSpec(allRSs)-available, 0),
	}
	if d.Status.CollisionCount != nil {
		st.CollisionCount = model.Ptr(*d.Status.CollisionCount)
	}
	st.Conditions = append(st.Conditions, d.Status.Conditions...)
	if available >= desiredOf(d)-maxUnavailable(d) {
		setCondition(&st, newCondition(model.DeploymentAvailable, model.ConditionTrue, ReasonMinimumReplicasAvailable,
			"Deployment has minimum availability.", now))
	} else {
		setCondition(&st, newCondition(model.DeploymentAvailable, model.ConditionFalse, ReasonMinimumReplicasUnavailable,
			"Deployment does not have minimum availability.", now))
	}
	return st
}

// rolloutStatus is the status syncRolloutStatus writes: calculateStatus
// plus the Progressing condition (complete, progressing, or timed out),
// unless the rollout was already complete.
func rolloutStatus(allRSs []*model.ReplicaSet, newRS *model.ReplicaSet, d *model.Deployment, now model.Time) model.DeploymentStatus {
	st := calculateStatus(allRSs, newRS, d, now)
	if !hasProgressDeadline(d) {
		model.RemoveCondition(&st.Conditions, model.DeploymentProgressing)
		return st
	}
	cur := getCondition(&d.Status, model.DeploymentProgressing)
	if st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == ReasonNewReplicaSetAvailable {
		return st // a complete rollout: nothing to estimate
	}
	subject := fmt.Sprintf("Deployment %q", d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	switch {
	case deploymentComplete(d, &st):
		setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonNewReplicaSetAvailable,
			subject+" has successfully progressed.", now))
	case deploymentProgressing(d, &st):
		c := newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonReplicaSetUpdated, subject+" is progressing.", now)
		// Progress refreshes lastUpdateTime even with the same reason.
		if cur != nil {
			if cur.Status == model.ConditionTrue {
				c.LastTransitionTime = cur.LastTransitionTime
			}
			model.RemoveCondition(&st.Conditions, model.DeploymentProgressing)
		}
		setCondition(&st, c)
	case deploymentTimedOut(d, &st, now):
		setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionFalse, ReasonProgressDeadlineExceeded,
			subject+" has timed out progressing.", now))
	}
	return st
}

// stuckRequeue is requeueStuckDeployment's decision for a rollout whose
// status did not change: how long until its progress deadline passes
// (plus a second), 0 for a rate-limited requeue now, or -1 for none.
func stuckRequeue(d *model.Deployment, st *model.DeploymentStatus, now model.Time) time.Duration {
	cur := getCondition(&d.Status, model.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil {
		return -1
	}
	if deploymentComplete(d, st) || cur.Reason == ReasonProgressDeadlineExceeded {
		return -1
	}
	after := cur.LastUpdateTime.Add(progressDeadline(d)).Sub(now)
	if after < time.Second {
		return 0
	}
	return after + time.Second
}
