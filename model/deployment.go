package model

import (
	"fmt"
	"slices"
)

// Deployment rolls pods out through ReplicaSets, as appsv1.Deployment (group
// "apps", "apps/v1", resource "deployments", namespaced).
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       DeploymentSpec   `json:"spec"`
	Status     DeploymentStatus `json:"status"`
}

// DeploymentStrategyType is how a Deployment replaces old pods.
type DeploymentStrategyType string

// The deployment strategies.
const (
	// RecreateDeploymentStrategyType kills all old pods before creating new
	// ones.
	RecreateDeploymentStrategyType DeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType replaces pods gradually, bounded by
	// maxSurge and maxUnavailable (the default).
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy is a Deployment's rollout strategy.
type DeploymentStrategy struct {
	// Type defaults to RollingUpdate.
	Type DeploymentStrategyType `json:"type,omitempty"`
	// RollingUpdate is set only for the RollingUpdate type.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update.
type RollingUpdateDeployment struct {
	// MaxUnavailable pods below the desired count during the update: an
	// absolute number or a percentage of desired replicas rounded down.
	// Defaults to 25%.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge pods above the desired count during the update: an absolute
	// number or a percentage of desired replicas rounded up. Defaults to 25%.
	MaxSurge *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentSpec is a Deployment's desired state, as appsv1.DeploymentSpec.
type DeploymentSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector must match Template's labels; required and immutable.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod to roll out.
	Template PodTemplateSpec `json:"template"`
	// Strategy defaults to RollingUpdate 25%/25%.
	Strategy DeploymentStrategy `json:"strategy,omitempty"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit old ReplicaSets are kept; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// Paused stops rollouts.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds before a stalled rollout is reported as failed
	// (Progressing=False, reason ProgressDeadlineExceeded); defaults to 600.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// DeploymentConditionType names a Deployment condition.
type DeploymentConditionType string

// The deployment conditions.
const (
	// DeploymentAvailable: at least replicas-maxUnavailable pods are
	// available.
	DeploymentAvailable DeploymentConditionType = "Available"
	// DeploymentProgressing: the rollout is making progress (or False with
	// reason ProgressDeadlineExceeded).
	DeploymentProgressing DeploymentConditionType = "Progressing"
	// DeploymentReplicaFailure: a pod could not be created or deleted.
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one condition of a Deployment.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// DeploymentStatus is a Deployment's observed state, as
// appsv1.DeploymentStatus.
type DeploymentStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of non-terminated pods of all its ReplicaSets.
	Replicas int32 `json:"replicas,omitempty"`
	// UpdatedReplicas run the current template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// ReadyReplicas are Ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas have been Ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// UnavailableReplicas are still needed for 100% availability.
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	// CollisionCount breaks pod-template-hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
}

// Kind returns KindDeployment.
func (d *Deployment) Kind() string { return KindDeployment }

// DeepCopyObject returns d.DeepCopy() as an Object.
func (d *Deployment) DeepCopyObject() Object { return d.DeepCopy() }

// DeepCopyInto copies d into out, sharing no memory.
func (d *Deployment) DeepCopyInto(out *Deployment) { *out = *d.DeepCopy() }

// DeepCopy returns a copy of d that shares no memory with it.
func (d *Deployment) DeepCopy() *Deployment { return deepCopy(d) }

// copyRefsInto copies d's references into its shallow copy out (deepCopy).
func (d *Deployment) copyRefsInto(out *Deployment) {
	out.Spec.Replicas = clonePtr(d.Spec.Replicas)
	out.Spec.Selector = d.Spec.Selector.DeepCopy()
	d.Spec.Template.DeepCopyInto(&out.Spec.Template)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		out.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxUnavailable: clonePtr(ru.MaxUnavailable), MaxSurge: clonePtr(ru.MaxSurge)}
	}
	out.Spec.RevisionHistoryLimit = clonePtr(d.Spec.RevisionHistoryLimit)
	out.Spec.ProgressDeadlineSeconds = clonePtr(d.Spec.ProgressDeadlineSeconds)
	out.Status.Conditions = slices.Clone(d.Status.Conditions)
	out.Status.CollisionCount = clonePtr(d.Status.CollisionCount)
}

// ResolveFenceposts turns maxSurge and maxUnavailable into pod counts for
// desired replicas, as the deployment controller's ResolveFenceposts:
// maxSurge rounds up, maxUnavailable rounds down, and if both come to zero
// maxUnavailable becomes 1 so that a rollout can make progress.
func ResolveFenceposts(maxSurge, maxUnavailable *IntOrString, desired int32) (surge, unavailable int32, err error) {
	zero := FromInt(0)
	if maxSurge == nil {
		maxSurge = &zero
	}
	if maxUnavailable == nil {
		maxUnavailable = &zero
	}
	s, err := GetScaledValueFromIntOrPercent(maxSurge, int(desired), true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	u, err := GetScaledValueFromIntOrPercent(maxUnavailable, int(desired), false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}
