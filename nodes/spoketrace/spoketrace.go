// Package spoketrace defines the typed trace events of the spokes: what
// kubelets' simulated runtimes really ran, what schedulers bound, who led
// the leader-elected components, and the cluster's state as the API
// server stores it at the end of a run. It is the contract between the
// kubelet, scheduler and controller manager (which emit these events) and
// the checks (which read only them), as apitrace is for the API layer.
//
// Every type implements sim.Data; its text form is what the trace hash
// covers.
package spoketrace

import (
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/sim"
)

// The trace kinds, as returned by TraceKind.
const (
	KindContainerStart = "kubelet.container-start"
	KindContainerStop  = "kubelet.container-stop"
	KindPodReady       = "kubelet.pod-ready"
	KindBound          = "scheduler.bound"
	KindLeading        = "leader.leading"
	KindClusterState   = "cluster.state"
	KindNodeHeartbeat  = "kubelet.heartbeat"
	KindNodeTaint      = "nodelifecycle.taint"
)

// Reasons a container stopped (ContainerStop.Reason).
const (
	// StopExited: the application exited by itself (ExitCode says how).
	StopExited = "Exited"
	// StopLiveness: the kubelet killed it after its liveness probe failed
	// FailureThreshold times in a row.
	StopLiveness = "Liveness"
	// StopDeleted: the pod was deleted gracefully (or is gone from the API
	// server), and the kubelet stopped its containers.
	StopDeleted = "Deleted"
	// StopReadiness: the kubelet killed it because its readiness probe
	// failed; only the liveness-as-readiness ablation does this.
	StopReadiness = "Readiness"
)

// ContainerStart is emitted by a kubelet's runtime when a container starts
// running on Node (the host's name). Owner is the UID of the pod's
// controlling owner ("" for none); Restarts is the container's restart
// count after this start.
type ContainerStart struct {
	Node      string `json:"node"`
	Pod       string `json:"pod"` // namespace/name
	UID       string `json:"uid"`
	Owner     string `json:"owner,omitempty"`
	Container string `json:"container"`
	Restarts  int    `json:"restarts"`
}

// TraceKind implements sim.Data.
func (e *ContainerStart) TraceKind() string { return KindContainerStart }

// AppendText implements sim.Data.
func (e *ContainerStart) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "node", e.Node)
	b = sim.AppendField(b, "pod", e.Pod)
	b = sim.AppendField(b, "uid", e.UID)
	b = sim.AppendFieldOpt(b, "owner", e.Owner)
	b = sim.AppendField(b, "container", e.Container)
	return sim.TrimSpaceRight(sim.AppendUintField(b, "restarts", uint64(e.Restarts)))
}

// ContainerStop is emitted by a kubelet's runtime when a running container
// stops, except when its host crashes (the crash itself, a kernel event on
// the host of the same name, stops every container there). Healthy is the
// runtime's ground truth at that moment: false when the application was
// hung (it would never answer a probe again), true when it was working,
// however slowly. A check may use it; the kubelet never decides on it.
type ContainerStop struct {
	Node      string `json:"node"`
	Pod       string `json:"pod"`
	UID       string `json:"uid"`
	Container string `json:"container"`
	Reason    string `json:"reason"`
	ExitCode  int    `json:"exit_code"`
	Healthy   bool   `json:"healthy"`
}

// TraceKind implements sim.Data.
func (e *ContainerStop) TraceKind() string { return KindContainerStop }

// AppendText implements sim.Data.
func (e *ContainerStop) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "node", e.Node)
	b = sim.AppendField(b, "pod", e.Pod)
	b = sim.AppendField(b, "uid", e.UID)
	b = sim.AppendField(b, "container", e.Container)
	b = sim.AppendField(b, "reason", e.Reason)
	b = sim.AppendIntField(b, "exit", int64(e.ExitCode))
	return sim.TrimSpaceRight(sim.AppendBoolField(b, "healthy", e.Healthy))
}

// PodReady is emitted by a kubelet when its view of a pod's readiness
// changes: the pod enters (Ready) or leaves service rotation.
type PodReady struct {
	Node  string `json:"node"`
	Pod   string `json:"pod"`
	UID   string `json:"uid"`
	Ready bool   `json:"ready"`
}

// TraceKind implements sim.Data.
func (e *PodReady) TraceKind() string { return KindPodReady }

// AppendText implements sim.Data.
func (e *PodReady) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "node", e.Node)
	b = sim.AppendField(b, "pod", e.Pod)
	b = sim.AppendField(b, "uid", e.UID)
	return sim.TrimSpaceRight(sim.AppendBoolField(b, "ready", e.Ready))
}

// NodeHeartbeat is emitted by a kubelet when the API server acknowledged a
// renewal of its node Lease: the heartbeat the node lifecycle controller
// watches.
type NodeHeartbeat struct {
	Node string `json:"node"`
}

// TraceKind implements sim.Data.
func (e *NodeHeartbeat) TraceKind() string { return KindNodeHeartbeat }

// AppendText implements sim.Data.
func (e *NodeHeartbeat) AppendText(b []byte) []byte {
	return sim.TrimSpaceRight(sim.AppendField(b, "node", e.Node))
}

// NodeTaint is emitted by the node lifecycle controller when the API
// server acknowledged an update that added (Added) or removed a NoExecute
// taint ("key:effect") of Node: the taint whose age the taint manager's
// evictions count from.
type NodeTaint struct {
	Node  string `json:"node"`
	Taint string `json:"taint"`
	Added bool   `json:"added"`
}

// TraceKind implements sim.Data.
func (e *NodeTaint) TraceKind() string { return KindNodeTaint }

// AppendText implements sim.Data.
func (e *NodeTaint) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "node", e.Node)
	b = sim.AppendField(b, "taint", e.Taint)
	return sim.TrimSpaceRight(sim.AppendBoolField(b, "added", e.Added))
}

// Bound is emitted by a scheduler when the API server answered 200 to its
// binding of pod UID to Node.
type Bound struct {
	Scheduler string `json:"scheduler"`
	Pod       string `json:"pod"`
	UID       string `json:"uid"`
	Node      string `json:"node"`
}

// TraceKind implements sim.Data.
func (e *Bound) TraceKind() string { return KindBound }

// AppendText implements sim.Data.
func (e *Bound) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "scheduler", e.Scheduler)
	b = sim.AppendField(b, "pod", e.Pod)
	b = sim.AppendField(b, "uid", e.UID)
	return sim.TrimSpaceRight(sim.AppendField(b, "node", e.Node))
}

// Leading is emitted by a leader-elected component (Component is e.g.
// "kube-scheduler" or "kube-controller-manager") when Identity starts
// (Leading) or stops leading.
type Leading struct {
	Component string `json:"component"`
	Identity  string `json:"identity"`
	Leading   bool   `json:"leading"`
}

// TraceKind implements sim.Data.
func (e *Leading) TraceKind() string { return KindLeading }

// AppendText implements sim.Data.
func (e *Leading) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "component", e.Component)
	b = sim.AppendField(b, "identity", e.Identity)
	return sim.TrimSpaceRight(sim.AppendBoolField(b, "leading", e.Leading))
}

// PodState is one pod of ClusterState.
type PodState struct {
	Key      string `json:"key"` // namespace/name
	UID      string `json:"uid"`
	Owner    string `json:"owner,omitempty"` // controlling owner's UID
	Node     string `json:"node,omitempty"`
	Phase    string `json:"phase"`
	Ready    bool   `json:"ready"`
	Deleting bool   `json:"deleting,omitempty"` // deletionTimestamp set
	Restarts int    `json:"restarts"`           // summed over containers
	// Template is the pod-template-hash label ("" for none).
	Template string `json:"template,omitempty"`
}

// NodeState is one node of ClusterState.
type NodeState struct {
	Name   string   `json:"name"`
	Ready  string   `json:"ready"`            // the Ready condition: True, False or Unknown
	Taints []string `json:"taints,omitempty"` // key:effect
}

// ReplicaSetState is one ReplicaSet of ClusterState.
type ReplicaSetState struct {
	Key      string `json:"key"`
	UID      string `json:"uid"`
	Owner    string `json:"owner,omitempty"`
	Replicas int    `json:"replicas"` // spec.replicas
	Deleting bool   `json:"deleting,omitempty"`
	Template string `json:"template,omitempty"` // pod-template-hash label
}

// DeploymentState is one Deployment of ClusterState: its spec and the
// status the deployment controller wrote.
type DeploymentState struct {
	Key                string `json:"key"`
	UID                string `json:"uid"`
	Replicas           int    `json:"replicas"` // spec.replicas
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observed_generation"`
	UpdatedReplicas    int    `json:"updated_replicas"`
	AvailableReplicas  int    `json:"available_replicas"`
	StatusReplicas     int    `json:"status_replicas"`
	// Progressing is the reason of the Progressing condition, e.g.
	// "NewReplicaSetAvailable" once a rollout is complete.
	Progressing string `json:"progressing,omitempty"`
}

// ClusterState is the cluster as the API server stores it (quorum lists,
// emitted by a reporter near the end of a run), for the convergence check.
// Every slice is sorted by key.
type ClusterState struct {
	RV          string            `json:"rv"`
	Pods        []PodState        `json:"pods"`
	Nodes       []NodeState       `json:"nodes"`
	ReplicaSets []ReplicaSetState `json:"replicasets"`
	Deployments []DeploymentState `json:"deployments"`
}

// TraceKind implements sim.Data.
func (e *ClusterState) TraceKind() string { return KindClusterState }

// AppendText implements sim.Data: a summary line (the hash covers it; the
// JSON form carries everything).
func (e *ClusterState) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "rv", e.RV)
	for _, p := range e.Pods {
		b = append(b, "pod:"...)
		b = append(b, p.Key...)
		b = append(b, '@')
		b = append(b, p.Node...)
		b = append(b, '/')
		b = append(b, p.Phase...)
		if p.Ready {
			b = append(b, "/ready"...)
		}
		if p.Deleting {
			b = append(b, "/deleting"...)
		}
		b = append(b, ' ')
	}
	for _, n := range e.Nodes {
		b = append(b, "node:"...)
		b = append(b, n.Name...)
		b = append(b, '/')
		b = append(b, n.Ready...)
		if len(n.Taints) > 0 {
			b = append(b, '/')
			b = append(b, strings.Join(n.Taints, ",")...)
		}
		b = append(b, ' ')
	}
	for _, r := range e.ReplicaSets {
		b = append(b, "rs:"...)
		b = append(b, r.Key...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(r.Replicas), 10)
		b = append(b, ' ')
	}
	for _, d := range e.Deployments {
		b = append(b, "deploy:"...)
		b = append(b, d.Key...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(d.Replicas), 10)
		b = append(b, ' ')
	}
	return sim.TrimSpaceRight(b)
}
