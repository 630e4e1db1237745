package model

// conditionOf is what every status condition (PodCondition, NodeCondition,
// ReplicaSetCondition, DeploymentCondition) shares, as a pointer: its type,
// its status and reason, and when its status last changed. The helpers
// below serve all four, as the real podutil, nodeutil and the workload
// controllers' condition helpers all do the same thing on their own type.
type conditionOf[C any, T ~string] interface {
	*C
	conditionType() T
	conditionStatus() ConditionStatus
	conditionReason() string
	transitionTime() *Time
}

func (c *PodCondition) conditionType() PodConditionType   { return c.Type }
func (c *PodCondition) conditionStatus() ConditionStatus  { return c.Status }
func (c *PodCondition) conditionReason() string           { return c.Reason }
func (c *PodCondition) transitionTime() *Time             { return &c.LastTransitionTime }
func (c *NodeCondition) conditionType() NodeConditionType { return c.Type }
func (c *NodeCondition) conditionStatus() ConditionStatus { return c.Status }
func (c *NodeCondition) conditionReason() string          { return c.Reason }
func (c *NodeCondition) transitionTime() *Time            { return &c.LastTransitionTime }
func (c *ReplicaSetCondition) conditionType() ReplicaSetConditionType {
	return c.Type
}
func (c *ReplicaSetCondition) conditionStatus() ConditionStatus { return c.Status }
func (c *ReplicaSetCondition) conditionReason() string          { return c.Reason }
func (c *ReplicaSetCondition) transitionTime() *Time            { return &c.LastTransitionTime }
func (c *DeploymentCondition) conditionType() DeploymentConditionType {
	return c.Type
}
func (c *DeploymentCondition) conditionStatus() ConditionStatus { return c.Status }
func (c *DeploymentCondition) conditionReason() string          { return c.Reason }
func (c *DeploymentCondition) transitionTime() *Time            { return &c.LastTransitionTime }

// FindCondition returns the index of the condition of type t in conds and a
// pointer to it, or -1 and nil: podutil.GetPodCondition and its siblings
// for the other kinds.
func FindCondition[C any, T ~string, P conditionOf[C, T]](conds []C, t T) (int, *C) {
	for i := range conds {
		if P(&conds[i]).conditionType() == t {
			return i, &conds[i]
		}
	}
	return -1, nil
}

// UpdateCondition sets cond in *conds in place, as
// podutil.UpdatePodCondition and the kubelet's and node controller's
// setters: a new type is appended as given; an existing one takes cond's
// fields but keeps its LastTransitionTime unless the Status changed. It
// reports whether anything changed.
func UpdateCondition[C comparable, T ~string, P conditionOf[C, T]](conds *[]C, cond C) bool {
	i, old := FindCondition[C, T, P](*conds, P(&cond).conditionType())
	if old == nil {
		*conds = append(*conds, cond)
		return true
	}
	if P(&cond).conditionStatus() == P(old).conditionStatus() {
		*P(&cond).transitionTime() = *P(old).transitionTime()
	}
	changed := cond != *old
	(*conds)[i] = cond
	return changed
}

// ReplaceCondition sets cond in *conds as the workload controllers'
// SetCondition (replicaset/replica_set_utils.go, deployment/util): nothing
// happens if a condition of its type has the same status and reason;
// otherwise the old one is removed and cond appended at the end.
func ReplaceCondition[C any, T ~string, P conditionOf[C, T]](conds *[]C, cond C) {
	if _, cur := FindCondition[C, T, P](*conds, P(&cond).conditionType()); cur != nil &&
		P(cur).conditionStatus() == P(&cond).conditionStatus() && P(cur).conditionReason() == P(&cond).conditionReason() {
		return
	}
	RemoveCondition[C, T, P](conds, P(&cond).conditionType())
	*conds = append(*conds, cond)
}

// RemoveCondition drops every condition of type t from *conds, as the
// workload controllers' RemoveCondition (filterOutCondition): a fresh
// slice, nil when none is left.
func RemoveCondition[C any, T ~string, P conditionOf[C, T]](conds *[]C, t T) {
	var out []C
	for i := range *conds {
		if P(&(*conds)[i]).conditionType() != t {
			out = append(out, (*conds)[i])
		}
	}
	*conds = out
}
