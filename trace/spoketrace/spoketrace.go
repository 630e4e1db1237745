// Package spoketrace defines the typed trace events of the spokes: what
// kubelets' simulated runtimes really ran, what schedulers bound, who led
// the leader-elected components, and the cluster's state as the API
// server stores it at the end of a run. It is the contract between the
// kubelet, scheduler and controller manager (which emit these events) and
// the checks (which read only them), as apitrace is for the API layer.
//
// Every type implements sim.Data; its text form is what the trace hash
// covers. The trace tags of the fields define that form; zz_trace.go is
// generated from them.
package spoketrace

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

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
	// StopStartup: the kubelet killed it after its startup probe failed
	// FailureThreshold times in a row (computePodActions, "failed startup
	// probe").
	StopStartup = "Startup"
)

// ContainerStart is emitted by a kubelet's runtime when a container starts
// running on Node (the host's name). Owner is the UID of the pod's
// controlling owner ("" for none); Restarts is the container's restart
// count after this start.
//
//trace:kind KindContainerStart kubelet.container-start
type ContainerStart struct {
	Node      string `json:"node" trace:"node"`
	Pod       string `json:"pod" trace:"pod"` // namespace/name
	UID       string `json:"uid" trace:"uid"`
	Owner     string `json:"owner,omitempty" trace:"owner,omitempty"`
	Container string `json:"container" trace:"container"`
	Restarts  int    `json:"restarts" trace:"restarts"`
}

// ContainerStop is emitted by a kubelet's runtime when a running container
// stops, except when its host crashes (the crash itself, a kernel event on
// the host of the same name, stops every container there). Healthy is the
// runtime's ground truth when the kubelet decided to stop it (or when it
// exited): false when the application was hung (it would never answer a
// probe again) or its liveness endpoint was answering failures (it said
// itself that it was unhealthy), true when it was working, however
// slowly. A check may use it; the kubelet never decides on it.
//
//trace:kind KindContainerStop kubelet.container-stop
type ContainerStop struct {
	Node      string `json:"node" trace:"node"`
	Pod       string `json:"pod" trace:"pod"`
	UID       string `json:"uid" trace:"uid"`
	Container string `json:"container" trace:"container"`
	Reason    string `json:"reason" trace:"reason"`
	ExitCode  int    `json:"exit_code" trace:"exit"`
	Healthy   bool   `json:"healthy" trace:"healthy"`
}

// PodReady is emitted by a kubelet when its view of a pod's readiness
// changes: the pod enters (Ready) or leaves service rotation.
//
//trace:kind KindPodReady kubelet.pod-ready
type PodReady struct {
	Node  string `json:"node" trace:"node"`
	Pod   string `json:"pod" trace:"pod"`
	UID   string `json:"uid" trace:"uid"`
	Ready bool   `json:"ready" trace:"ready"`
}

// Probe kinds (ProbeWorker.Probe, ProbeResult.Probe).
const (
	ProbeLiveness  = "liveness"
	ProbeReadiness = "readiness"
	ProbeStartup   = "startup"
)

// ProbeWorker is emitted by a kubelet when it starts probing one run of a
// container (a probe worker, as the prober manager's): the run started,
// or a restarted kubelet adopted it. A worker counts consecutive results
// from zero. Initial is the result before the first probe: true for
// liveness; false for readiness, except for a run a restarted kubelet
// adopted while the API server showed it ready (KEP-4781); for startup,
// whether the run counts as started (false, except for a run a restarted
// kubelet adopted while the API server showed it started). Until a run's
// startup worker has succeeded, its liveness and readiness workers do not
// probe.
//
//trace:kind KindProbeWorker kubelet.probe-worker
type ProbeWorker struct {
	Node             string `json:"node" trace:"node"`
	Pod              string `json:"pod" trace:"pod"`
	UID              string `json:"uid" trace:"uid"`
	Container        string `json:"container" trace:"container"`
	Probe            string `json:"probe" trace:"probe"`
	SuccessThreshold int    `json:"success_threshold" trace:"success"`
	FailureThreshold int    `json:"failure_threshold" trace:"failure"`
	Initial          bool   `json:"initial" trace:"initial"`
}

// ProbeResult is emitted by a kubelet for every probe of a container's
// liveness, readiness or startup, with its raw outcome before any threshold: a
// failure is an answer that says so, or none within timeoutSeconds.
//
//trace:kind KindProbeResult kubelet.probe
type ProbeResult struct {
	Node      string `json:"node" trace:"node"`
	Pod       string `json:"pod" trace:"pod"`
	UID       string `json:"uid" trace:"uid"`
	Container string `json:"container" trace:"container"`
	Probe     string `json:"probe" trace:"probe"`
	Success   bool   `json:"success" trace:"success"`
}

// ContainerKill is emitted by a kubelet's runtime when the kubelet asks
// it to stop a running container (SIGTERM, or SIGKILL with grace 0): the
// moment of the decision, as the real kubelet's "Killing" event. Reason
// is the ContainerStop reason to come (StopLiveness, StopDeleted, ...);
// the ContainerStop follows once the container exited. A container with a
// preStop sleep gets SIGTERM only once the sleep is over (PreStop seconds
// later, within the grace period); until then its application runs and
// serves as before.
//
//trace:kind KindContainerKill kubelet.container-kill
type ContainerKill struct {
	Node      string `json:"node" trace:"node"`
	Pod       string `json:"pod" trace:"pod"`
	UID       string `json:"uid" trace:"uid"`
	Container string `json:"container" trace:"container"`
	Reason    string `json:"reason" trace:"reason"`
	Grace     int64  `json:"grace_s" trace:"grace"`
	// PreStop is the preStop sleep that runs before SIGTERM, in seconds (0:
	// none, or the hook was skipped).
	PreStop int64 `json:"prestop_s,omitempty" trace:"prestop,omitempty"`
}

// NodeHeartbeat is emitted by a kubelet when the API server acknowledged a
// renewal of its node Lease: the heartbeat the node lifecycle controller
// watches.
//
//trace:kind KindNodeHeartbeat kubelet.heartbeat
type NodeHeartbeat struct {
	Node string `json:"node" trace:"node"`
}

// NodeTaint is emitted by the node lifecycle controller when the API
// server acknowledged an update that added (Added) or removed a NoExecute
// taint ("key:effect") of Node: the taint whose age the taint manager's
// evictions count from.
//
//trace:kind KindNodeTaint nodelifecycle.taint
type NodeTaint struct {
	Node  string `json:"node" trace:"node"`
	Taint string `json:"taint" trace:"taint"`
	Added bool   `json:"added" trace:"added"`
}

// Bound is emitted by a scheduler when the API server answered 200 to its
// binding of pod UID to Node. CPU (millicores) and Memory (bytes) are the
// pod's requests, summed over its containers.
//
//trace:kind KindBound scheduler.bound
type Bound struct {
	Scheduler string `json:"scheduler" trace:"scheduler"`
	Pod       string `json:"pod" trace:"pod"`
	UID       string `json:"uid" trace:"uid"`
	Node      string `json:"node" trace:"node"`
	CPU       int64  `json:"cpu_m,omitempty" trace:"cpu-m,omitempty"`
	Memory    int64  `json:"memory,omitempty" trace:"mem,omitempty"`
}

// NodeAllocatable is emitted by a kubelet when its process starts: what
// its node offers pods (status.allocatable): CPU in millicores, Memory in
// bytes, Pods the most pods it runs.
//
//trace:kind KindNodeAllocatable kubelet.allocatable
type NodeAllocatable struct {
	Node   string `json:"node" trace:"node"`
	CPU    int64  `json:"cpu_m" trace:"cpu-m"`
	Memory int64  `json:"memory" trace:"mem"`
	Pods   int64  `json:"pods" trace:"pods"`
}

// Reasons a kubelet rejects a pod at admission (PodAdmit.Reason), as the
// real kubelet's lifecycle.OutOfCPU, OutOfMemory and OutOfPods.
const (
	RejectOutOfCPU    = "OutOfcpu"
	RejectOutOfMemory = "OutOfmemory"
	RejectOutOfPods   = "OutOfpods"
)

// PodAdmit is emitted by a kubelet when it decides whether to run a pod
// bound to its node: Admitted, or rejected for Reason (the pod's phase
// becomes Failed and it never runs). CPU (millicores) and Memory (bytes)
// are the pod's requests.
//
//trace:kind KindPodAdmit kubelet.admit
type PodAdmit struct {
	Node     string `json:"node" trace:"node"`
	Pod      string `json:"pod" trace:"pod"`
	UID      string `json:"uid" trace:"uid"`
	CPU      int64  `json:"cpu_m,omitempty" trace:"cpu-m,omitempty"`
	Memory   int64  `json:"memory,omitempty" trace:"mem,omitempty"`
	Admitted bool   `json:"admitted" trace:"admitted"`
	Reason   string `json:"reason,omitempty" trace:"reason,omitempty"`
}

// Leading is emitted by a leader-elected component (Component is e.g.
// "kube-scheduler" or "kube-controller-manager") when Identity starts
// (Leading) or stops leading.
//
//trace:kind KindLeading leader.leading
type Leading struct {
	Component string `json:"component" trace:"component"`
	Identity  string `json:"identity" trace:"identity"`
	Leading   bool   `json:"leading" trace:"leading"`
}

// Controllers that trace their deletions (ControllerDelete.Controller)
// or their retries (ControllerRetry.Controller).
const (
	ControllerReplicaSet       = "replicaset"
	ControllerGarbageCollector = "garbage-collector"
	ControllerPodGC            = "pod-gc"
	ControllerDeployment       = "deployment"
	ControllerTaintEviction    = "taint-eviction"
	ControllerEndpointSlice    = "endpointslice"
)

// ControllerRetry is emitted by a controller whose sync of Key failed
// (Reason: its error, as the controller logs "Error syncing ...,
// retrying") when it puts Key back into its work queue with the rate
// limiter's backoff: the next sync comes no later than AfterNs
// nanoseconds from now (sooner if an event queues Key again). Only the EndpointSlice
// controller traces it: its syncs fail while its slice informer lags its
// own writes (the endpointSliceTracker's stale cache), and a burst of
// such failures backs a Service off for seconds.
//
//trace:kind KindControllerRetry controller.retry
type ControllerRetry struct {
	Controller string `json:"controller" trace:"controller"`
	Key        string `json:"key" trace:"key"`
	Reason     string `json:"reason" trace:"reason"`
	AfterNs    int64  `json:"after_ns" trace:"after-ns"`
}

// Why the pod garbage collector deleted a pod (ControllerDelete.Reason),
// after the passes of the real one (pkg/controller/podgc/gc_controller.go).
const (
	// PodGCTerminated: a terminated pod beyond the threshold (gcTerminated).
	PodGCTerminated = "terminated"
	// PodGCOrphaned: a pod bound to a Node that no longer exists
	// (gcOrphaned).
	PodGCOrphaned = "orphaned"
	// PodGCTerminating: a pod being deleted on a node that is not Ready and
	// is tainted out-of-service (gcTerminating).
	PodGCTerminating = "terminating"
	// PodGCUnscheduledTerminating: a pod being deleted that was never
	// bound (gcUnscheduledTerminating).
	PodGCUnscheduledTerminating = "unscheduled-terminating"
)

// ControllerDelete is emitted by a controller when the API server answered
// 200 to its deletion of an object (Resource, Key, UID): for the
// ReplicaSet controller, a pod of the ReplicaSet Owner (its UID) it
// scaled down; for the garbage collector, an object whose owners (Owner:
// their UIDs, comma-separated) it found gone; for the pod garbage
// collector, a pod, for Reason; for the Deployment controller, an old
// ReplicaSet of the Deployment Owner beyond its revisionHistoryLimit; for
// the taint eviction controller, a pod of a node with NoExecute taints.
//
//trace:kind KindControllerDelete controller.delete
type ControllerDelete struct {
	Controller string `json:"controller" trace:"controller"`
	Owner      string `json:"owner,omitempty" trace:"owner,omitempty"`
	Resource   string `json:"resource" trace:"resource"`
	Key        string `json:"key" trace:"key"`
	UID        string `json:"uid" trace:"uid"`
	Reason     string `json:"reason,omitempty" trace:"reason,omitempty"`
}

// LeaderRenewed is emitted by a leader-elected component when its leader
// elector renewed the Lease it holds: the API server's answer to the
// renewal came back. The leader goes on leading on its own clock from
// here: client-go gives up RetryPeriod+RenewDeadline (12 s) after its
// last renewal unless it renews again.
//
//trace:kind KindLeaderRenewed leader.renewed
type LeaderRenewed struct {
	Component string `json:"component" trace:"component"`
	Identity  string `json:"identity" trace:"identity"`
}

// LeaderWrite is emitted by a leader-elected component when it sends a
// write that only its leader makes (the controller manager's controllers'
// writes, the scheduler's bindings and pod status updates; never its
// Lease), as the request leaves: Key is namespace/name (or name).
//
//trace:kind KindLeaderWrite leader.write
type LeaderWrite struct {
	Component string `json:"component" trace:"component"`
	Identity  string `json:"identity" trace:"identity"`
	Verb      string `json:"verb" trace:"verb"`
	Resource  string `json:"resource" trace:"resource"`
	Key       string `json:"key" trace:"key"`
}

// PodState is one pod of ClusterState.
//
//trace:item
type PodState struct {
	Key      string `json:"key" trace:"pod:"` // namespace/name
	UID      string `json:"uid" trace:"-"`
	Owner    string `json:"owner,omitempty" trace:"-"` // controlling owner's UID
	Node     string `json:"node,omitempty" trace:"@"`
	Phase    string `json:"phase" trace:"/"`
	Ready    bool   `json:"ready" trace:"/ready,flag"`
	Deleting bool   `json:"deleting,omitempty" trace:"/deleting,flag"` // deletionTimestamp set
	Restarts int    `json:"restarts" trace:"-"`                        // summed over containers
	// Template is the pod-template-hash label ("" for none).
	Template string `json:"template,omitempty" trace:"-"`
}

// NodeState is one node of ClusterState.
//
//trace:item
type NodeState struct {
	Name   string   `json:"name" trace:"node:"`
	Ready  string   `json:"ready" trace:"/"`                      // the Ready condition: True, False or Unknown
	Taints []string `json:"taints,omitempty" trace:"/,omitempty"` // key:effect
}

// ReplicaSetState is one ReplicaSet of ClusterState.
//
//trace:item
type ReplicaSetState struct {
	Key      string `json:"key" trace:"rs:"`
	UID      string `json:"uid" trace:"-"`
	Owner    string `json:"owner,omitempty" trace:"-"`
	Replicas int    `json:"replicas" trace:"="` // spec.replicas
	Deleting bool   `json:"deleting,omitempty" trace:"-"`
	Template string `json:"template,omitempty" trace:"-"` // pod-template-hash label
}

// DeploymentState is one Deployment of ClusterState: its spec and the
// status the deployment controller wrote.
//
//trace:item
type DeploymentState struct {
	Key                string `json:"key" trace:"deploy:"`
	UID                string `json:"uid" trace:"-"`
	Replicas           int    `json:"replicas" trace:"="` // spec.replicas
	Generation         int64  `json:"generation" trace:"-"`
	ObservedGeneration int64  `json:"observed_generation" trace:"-"`
	UpdatedReplicas    int    `json:"updated_replicas" trace:"-"`
	AvailableReplicas  int    `json:"available_replicas" trace:"-"`
	StatusReplicas     int    `json:"status_replicas" trace:"-"`
	// Progressing is the reason of the Progressing condition, e.g.
	// "NewReplicaSetAvailable" once a rollout is complete.
	Progressing string `json:"progressing,omitempty" trace:"-"`
}

// ClusterState is the cluster as the API server stores it (quorum lists,
// emitted by a reporter near the end of a run), for the convergence check.
// Every slice is sorted by key. Its text form is a summary, for the hash
// (pod:key@node/phase[/ready][/deleting], node:name/ready[/taints],
// rs:key=replicas, deploy:key=replicas); the JSON form carries everything.
//
//trace:kind KindClusterState cluster.state
type ClusterState struct {
	RV          string            `json:"rv" trace:"rv"`
	Pods        []PodState        `json:"pods" trace:""`
	Nodes       []NodeState       `json:"nodes" trace:""`
	ReplicaSets []ReplicaSetState `json:"replicasets" trace:""`
	Deployments []DeploymentState `json:"deployments" trace:""`
}
