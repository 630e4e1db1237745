package replicaset

import (
	"reflect"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// statusUpdateRetries is the replicaset controller's: one more UpdateStatus
// after a failed one, on a freshly read ReplicaSet.
const statusUpdateRetries = 1

// Reasons of the ReplicaFailure condition.
const (
	reasonFailedCreate = "FailedCreate"
	reasonFailedDelete = "FailedDelete"
)

// calculateStatus is the status rs should have with the claimed active
// pods, at now, after manageReplicas returned manageErr.
func calculateStatus(rs *model.ReplicaSet, pods []*model.Pod, manageErr error, now model.Time) model.ReplicaSetStatus {
	status := rs.Status
	status.Conditions = append([]model.ReplicaSetCondition(nil), rs.Status.Conditions...)
	templateLabels := model.SelectorFromSet(rs.Spec.Template.Labels)
	var fully, ready, available int32
	for _, p := range pods {
		if templateLabels.Matches(p.Labels) {
			fully++
		}
		if model.IsPodReady(p) {
			ready++
			if model.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	_, failure := model.FindCondition(status.Conditions, model.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(pods) - int(model.Deref(rs.Spec.Replicas, 1)); diff < 0 {
			reason = reasonFailedCreate
		} else if diff > 0 {
			reason = reasonFailedDelete
		}
		model.ReplaceCondition[model.ReplicaSetCondition, model.ReplicaSetConditionType](&status.Conditions, model.ReplicaSetCondition{Type: model.ReplicaSetReplicaFailure, Status: model.ConditionTrue,
			LastTransitionTime: now, Reason: reason, Message: manageErr.Error()})
	case manageErr == nil && failure != nil:
		model.RemoveCondition(&status.Conditions, model.ReplicaSetReplicaFailure)
	}
	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas = fully
	status.ReadyReplicas = ready
	status.AvailableReplicas = available
	return status
}

// updateStatus writes status (with observedGeneration) unless rs already
// has it, as updateReplicaSetStatus: UpdateStatus on rs's resourceVersion,
// and after a failure once more on a quorum read. done gets the ReplicaSet
// as written (or rs when nothing had to be).
func (c *Controller) updateStatus(rs *model.ReplicaSet, status model.ReplicaSetStatus, done func(*model.ReplicaSet, error)) {
	s := rs.Status
	if s.Replicas == status.Replicas && s.FullyLabeledReplicas == status.FullyLabeledReplicas &&
		s.ReadyReplicas == status.ReadyReplicas && s.AvailableReplicas == status.AvailableReplicas &&
		rs.Generation == s.ObservedGeneration && reflect.DeepEqual(s.Conditions, status.Conditions) {
		done(rs, nil)
		return
	}
	status.ObservedGeneration = rs.Generation
	rsc := c.ctx.Client.ReplicaSets(rs.Namespace)
	var attempt func(rs *model.ReplicaSet, i int)
	attempt = func(rs *model.ReplicaSet, i int) {
		rs.Status = status
		rsc.UpdateStatus(rs, func(obj model.Object, err error) {
			if c.stopped {
				return
			}
			if err == nil {
				done(obj.(*model.ReplicaSet), nil)
				return
			}
			if i >= statusUpdateRetries {
				done(nil, err)
				return
			}
			rsc.Get(rs.Name, client.GetOptions{}, func(obj model.Object, getErr error) {
				if c.stopped {
					return
				}
				if getErr != nil {
					done(nil, getErr)
					return
				}
				attempt(obj.(*model.ReplicaSet), i+1)
			})
		})
	}
	attempt(rs, 0)
}
