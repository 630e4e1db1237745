package scheduler

import (
	"maps"
	"reflect"

	"github.com/kubesim/kubesim/model"
)

// equalPodSpec compares two pod specs field by field.
func equalPodSpec(a, b *model.PodSpec) bool { return reflect.DeepEqual(a, b) }

// nodeSchedulingPropertiesChanged reports a node update that may make an
// unschedulable pod fit, as the real event handler's
// nodeSchedulingPropertiesChange: spec.unschedulable, allocatable, labels,
// taints, or the status of a condition changed (heartbeats alone do not
// count).
func nodeSchedulingPropertiesChanged(old, cur *model.Node) bool {
	if old.Spec.Unschedulable != cur.Spec.Unschedulable {
		return true
	}
	if !reflect.DeepEqual(old.Status.Allocatable, cur.Status.Allocatable) {
		return true
	}
	if !maps.Equal(old.Labels, cur.Labels) || !equalTaints(old.Spec.Taints, cur.Spec.Taints) {
		return true
	}
	return !equalConditionStatuses(old.Status.Conditions, cur.Status.Conditions)
}

// equalTaints compares taint lists ignoring TimeAdded.
func equalTaints(a, b []model.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value || a[i].Effect != b[i].Effect {
			return false
		}
	}
	return true
}

// equalConditionStatuses compares the status of each condition type.
func equalConditionStatuses(a, b []model.NodeCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		_, c := model.GetNodeCondition(&model.NodeStatus{Conditions: b}, a[i].Type)
		if c == nil || c.Status != a[i].Status {
			return false
		}
	}
	return true
}
