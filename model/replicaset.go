package model

import "slices"

// ReplicaSet keeps a number of identical pods running, as appsv1.ReplicaSet
// (group "apps", "apps/v1", resource "replicasets", namespaced).
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       ReplicaSetSpec   `json:"spec"`
	Status     ReplicaSetStatus `json:"status"`
}

// PodTemplateSpec is the pod a controller creates copies of, as
// corev1.PodTemplateSpec.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata"`
	Spec       PodSpec `json:"spec"`
}

// DeepCopyInto copies t into out, sharing no memory.
func (t *PodTemplateSpec) DeepCopyInto(out *PodTemplateSpec) {
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	t.Spec.DeepCopyInto(&out.Spec)
}

// ReplicaSetSpec is a ReplicaSet's desired state, as appsv1.ReplicaSetSpec.
type ReplicaSetSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector must match Template's labels; required and immutable.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod to create.
	Template PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure: a pod could not be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// ReplicaSetStatus is a ReplicaSet's observed state, as
// appsv1.ReplicaSetStatus.
type ReplicaSetStatus struct {
	// Replicas is the number of active pods the controller sees.
	Replicas int32 `json:"replicas"`
	// FullyLabeledReplicas have all of the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`
	// ReadyReplicas are Ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas have been Ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64                 `json:"observedGeneration,omitempty"`
	Conditions         []ReplicaSetCondition `json:"conditions,omitempty"`
}

// Kind returns KindReplicaSet.
func (rs *ReplicaSet) Kind() string { return KindReplicaSet }

// DeepCopyObject returns rs.DeepCopy() as an Object.
func (rs *ReplicaSet) DeepCopyObject() Object { return rs.DeepCopy() }

// DeepCopyInto copies rs into out, sharing no memory.
func (rs *ReplicaSet) DeepCopyInto(out *ReplicaSet) { *out = *rs.DeepCopy() }

// DeepCopy returns a copy of rs that shares no memory with it.
func (rs *ReplicaSet) DeepCopy() *ReplicaSet { return deepCopy(rs) }

// copyRefsInto copies rs's references into its shallow copy out (deepCopy).
func (rs *ReplicaSet) copyRefsInto(out *ReplicaSet) {
	out.Spec.Replicas = clonePtr(rs.Spec.Replicas)
	out.Spec.Selector = rs.Spec.Selector.DeepCopy()
	rs.Spec.Template.DeepCopyInto(&out.Spec.Template)
	out.Status.Conditions = slices.Clone(rs.Status.Conditions)
}
