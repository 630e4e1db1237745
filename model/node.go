package model

import "slices"

// Node is a worker machine, as corev1.Node (core group, "v1", resource
// "nodes", cluster-scoped).
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       NodeSpec   `json:"spec"`
	Status     NodeStatus `json:"status"`
}

// NodeSpec is a node's desired state, as corev1.NodeSpec.
type NodeSpec struct {
	// Unschedulable cordons the node: no new pods are scheduled to it.
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Taints repel pods that do not tolerate them.
	Taints []Taint `json:"taints,omitempty"`
}

// NodeConditionType names a node condition.
type NodeConditionType string

// The node conditions.
const (
	// NodeReady: the kubelet is healthy and ready for pods. Unknown means the
	// node controller stopped hearing from the kubelet.
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one condition of a node, as corev1.NodeCondition.
type NodeCondition struct {
	Type   NodeConditionType `json:"type"`
	Status ConditionStatus   `json:"status"`
	// LastHeartbeatTime is when the kubelet last reported the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time   `json:"lastTransitionTime,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

// NodeAddress is one address of a node.
type NodeAddress struct {
	// Type is e.g. "InternalIP" or "Hostname".
	Type    string `json:"type"`
	Address string `json:"address"`
}

// NodeStatus is a node's observed state, as corev1.NodeStatus.
type NodeStatus struct {
	// Capacity is the node's total resources.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Allocatable is what pods may use; defaults to Capacity.
	Allocatable ResourceList    `json:"allocatable,omitempty"`
	Conditions  []NodeCondition `json:"conditions,omitempty"`
	Addresses   []NodeAddress   `json:"addresses,omitempty"`
}

// Kind returns KindNode.
func (n *Node) Kind() string { return KindNode }

// DeepCopyObject returns n.DeepCopy() as an Object.
func (n *Node) DeepCopyObject() Object { return n.DeepCopy() }

// DeepCopyInto copies n into out, sharing no memory.
func (n *Node) DeepCopyInto(out *Node) { *out = *n.DeepCopy() }

// DeepCopy returns a copy of n that shares no memory with it.
func (n *Node) DeepCopy() *Node { return deepCopy(n) }

// copyRefsInto copies n's references into its shallow copy out (deepCopy).
func (n *Node) copyRefsInto(out *Node) {
	out.Spec.Taints = cloneEach(n.Spec.Taints, (*Taint).DeepCopyInto)
	out.Status.Capacity = n.Status.Capacity.DeepCopy()
	out.Status.Allocatable = n.Status.Allocatable.DeepCopy()
	out.Status.Conditions = slices.Clone(n.Status.Conditions)
	out.Status.Addresses = slices.Clone(n.Status.Addresses)
}

// GetNodeCondition returns the index and a pointer to the condition of type
// t in status, or -1 and nil.
func GetNodeCondition(status *NodeStatus, t NodeConditionType) (int, *NodeCondition) {
	if status == nil {
		return -1, nil
	}
	return FindCondition(status.Conditions, t)
}

// SetNodeCondition sets cond in status, as the kubelet and node controller
// do: a new type is appended as given; an existing one takes cond's fields
// (including LastHeartbeatTime) but keeps its LastTransitionTime unless the
// Status changed. It reports whether anything changed.
func SetNodeCondition(status *NodeStatus, cond NodeCondition) bool {
	return UpdateCondition[NodeCondition, NodeConditionType](&status.Conditions, cond)
}

// IsNodeReady reports whether node's Ready condition is True.
func IsNodeReady(node *Node) bool { return NodeReadyStatus(node) == ConditionTrue }

// NodeReadyStatus returns the status of node's Ready condition, or Unknown
// if it has none (a node that never reported is not known to be ready).
func NodeReadyStatus(node *Node) ConditionStatus {
	_, c := GetNodeCondition(&node.Status, NodeReady)
	if c == nil {
		return ConditionUnknown
	}
	return c.Status
}
