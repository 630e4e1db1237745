package model

import "slices"

// Pod is a group of containers bound to one node, as corev1.Pod (core group,
// "v1", resource "pods", namespaced).
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	// Spec is the desired state; mostly immutable after create.
	Spec PodSpec `json:"spec"`
	// Status is reported by the kubelet (and the scheduler's PodScheduled
	// condition).
	Status PodStatus `json:"status"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

// The restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DefaultSchedulerName is the scheduler a pod gets when it names none.
const DefaultSchedulerName = "default-scheduler"

// PodSpec is a pod's desired state, as corev1.PodSpec.
type PodSpec struct {
	// Containers run in the pod; at least one.
	Containers []Container `json:"containers"`
	// RestartPolicy defaults to Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationGracePeriodSeconds defaults to 30.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// NodeName is set by binding the pod to a node; empty while unscheduled.
	NodeName string `json:"nodeName,omitempty"`
	// SchedulerName defaults to "default-scheduler".
	SchedulerName string `json:"schedulerName,omitempty"`
	// Tolerations let the pod run on tainted nodes.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// Priority is set by the Priority admission plugin in Kubernetes; higher
	// runs first. Optional here.
	Priority *int32 `json:"priority,omitempty"`
}

// Container is one container of a pod, as corev1.Container.
type Container struct {
	// Name is a DNS-1123 label, unique within the pod.
	Name string `json:"name"`
	// Image is the container image; the only field a pod update may change.
	Image string `json:"image,omitempty"`
	// Resources are the container's requests and limits.
	Resources ResourceRequirements `json:"resources,omitempty"`
	// LivenessProbe restarts the container when it fails.
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe gates the pod's Ready condition.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// StartupProbe runs first: until it succeeds the liveness and
	// readiness probes do not run (the container is not ready, and its
	// liveness passes); once it succeeds it stops; failing
	// FailureThreshold times in a row kills the container, as a liveness
	// failure does. Its SuccessThreshold must be 1.
	StartupProbe *Probe `json:"startupProbe,omitempty"`
	// Lifecycle holds the container's lifecycle hooks (only a preStop
	// sleep is modelled).
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
}

// Lifecycle is a container's lifecycle hooks, as corev1.Lifecycle with
// only PreStop.
type Lifecycle struct {
	// PreStop runs when the kubelet stops the container, before SIGTERM
	// and within the grace period.
	PreStop *LifecycleHandler `json:"preStop,omitempty"`
}

// LifecycleHandler is what a hook does, as corev1.LifecycleHandler with
// only the sleep action (KEP-3960, GA in 1.34), which the kubelet itself
// carries out, so the container's state does not matter to it.
type LifecycleHandler struct {
	Sleep *SleepAction `json:"sleep,omitempty"`
}

// SleepAction sleeps for Seconds, as corev1.SleepAction; zero is allowed
// (KEP-4818, GA in 1.34) and does nothing.
type SleepAction struct {
	Seconds int64 `json:"seconds"`
}

// PreStopSleep returns the container's preStop sleep and whether it has
// one.
func (c *Container) PreStopSleep() (seconds int64, ok bool) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		return 0, false
	}
	return c.Lifecycle.PreStop.Sleep.Seconds, true
}

// ResourceRequirements are a container's requests (what the scheduler
// reserves) and limits, as corev1.ResourceRequirements.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// Probe is a periodic health check, as corev1.Probe without the handler (the
// simulated runtime decides the outcome).
type Probe struct {
	// InitialDelaySeconds after the container starts before the first probe.
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	// TimeoutSeconds per probe; default 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// PeriodSeconds between probes; default 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// SuccessThreshold consecutive successes after a failure; default 1
	// (and must be 1 for liveness and startup).
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	// FailureThreshold consecutive failures to give up; default 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod conditions.
const (
	// PodScheduled: the pod has been bound to a node (or False with reason
	// Unschedulable).
	PodScheduled PodConditionType = "PodScheduled"
	// PodInitialized: init containers have finished.
	PodInitialized PodConditionType = "Initialized"
	// ContainersReady: every container is ready.
	ContainersReady PodConditionType = "ContainersReady"
	// PodReady: the pod can serve; what IsPodReady reads.
	PodReady PodConditionType = "Ready"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Reasons used with pod conditions and container states.
const (
	// PodReasonUnschedulable is PodScheduled=False's reason when no node fits.
	PodReasonUnschedulable = "Unschedulable"
	// ReasonCrashLoopBackOff is a waiting container's reason while the kubelet
	// backs off restarting it.
	ReasonCrashLoopBackOff = "CrashLoopBackOff"
	// ReasonContainerCreating is a waiting container's reason before it starts.
	ReasonContainerCreating = "ContainerCreating"
)

// PodCondition is one condition of a pod, as corev1.PodCondition.
type PodCondition struct {
	Type   PodConditionType `json:"type"`
	Status ConditionStatus  `json:"status"`
	// LastProbeTime is when the condition was last probed.
	LastProbeTime Time `json:"lastProbeTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time   `json:"lastTransitionTime,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

// PodStatus is a pod's observed state, as corev1.PodStatus.
type PodStatus struct {
	Phase      PodPhase       `json:"phase,omitempty"`
	Conditions []PodCondition `json:"conditions,omitempty"`
	// Reason and Message explain the phase (e.g. "Evicted").
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// HostIP is the node's IP once the kubelet has seen the pod.
	HostIP string `json:"hostIP,omitempty"`
	// PodIP is the pod's IP once it has one.
	PodIP string `json:"podIP,omitempty"`
	// StartTime is when the kubelet acknowledged the pod.
	StartTime *Time `json:"startTime,omitempty"`
	// ContainerStatuses has one entry per container.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
}

// ContainerStatus is one container's observed state, as
// corev1.ContainerStatus.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state,omitempty"`
	LastState    ContainerState `json:"lastState,omitempty"`
	Ready        bool           `json:"ready"`
	RestartCount int32          `json:"restartCount"`
	Image        string         `json:"image"`
	Started      *bool          `json:"started,omitempty"`
}

// ContainerState holds at most one of Waiting, Running and Terminated, as
// corev1.ContainerState; none set means waiting.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container not yet running, e.g. with reason
// CrashLoopBackOff.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is a container that exited.
type ContainerStateTerminated struct {
	ExitCode   int32  `json:"exitCode"`
	Reason     string `json:"reason,omitempty"`
	Message    string `json:"message,omitempty"`
	StartedAt  Time   `json:"startedAt,omitempty"`
	FinishedAt Time   `json:"finishedAt,omitempty"`
}

// Kind returns KindPod.
func (p *Pod) Kind() string { return KindPod }

// DeepCopyObject returns p.DeepCopy() as an Object.
func (p *Pod) DeepCopyObject() Object { return p.DeepCopy() }

// DeepCopyInto copies p into out, sharing no memory.
func (p *Pod) DeepCopyInto(out *Pod) { *out = *p.DeepCopy() }

// DeepCopy returns a copy of p that shares no memory with it.
func (p *Pod) DeepCopy() *Pod { return deepCopy(p) }

// copyRefsInto copies p's references into its shallow copy out (deepCopy).
func (p *Pod) copyRefsInto(out *Pod) {
	p.Spec.DeepCopyInto(&out.Spec)
	p.Status.DeepCopyInto(&out.Status)
}

// DeepCopyInto copies s into out, sharing no memory.
func (s *PodSpec) DeepCopyInto(out *PodSpec) {
	*out = *s
	out.Containers = cloneEach(s.Containers, (*Container).DeepCopyInto)
	out.TerminationGracePeriodSeconds = clonePtr(s.TerminationGracePeriodSeconds)
	out.Tolerations = cloneEach(s.Tolerations, (*Toleration).DeepCopyInto)
	out.Priority = clonePtr(s.Priority)
}

// DeepCopyInto copies c into out, sharing no memory.
func (c *Container) DeepCopyInto(out *Container) {
	*out = *c
	out.Resources.Limits = c.Resources.Limits.DeepCopy()
	out.Resources.Requests = c.Resources.Requests.DeepCopy()
	out.LivenessProbe = clonePtr(c.LivenessProbe)
	out.ReadinessProbe = clonePtr(c.ReadinessProbe)
	out.StartupProbe = clonePtr(c.StartupProbe)
	if c.Lifecycle != nil {
		out.Lifecycle = &Lifecycle{}
		if c.Lifecycle.PreStop != nil {
			out.Lifecycle.PreStop = &LifecycleHandler{Sleep: clonePtr(c.Lifecycle.PreStop.Sleep)}
		}
	}
}

// DeepCopyInto copies s into out, sharing no memory.
func (s *PodStatus) DeepCopyInto(out *PodStatus) {
	*out = *s
	out.Conditions = slices.Clone(s.Conditions)
	out.StartTime = clonePtr(s.StartTime)
	out.ContainerStatuses = cloneEach(s.ContainerStatuses, (*ContainerStatus).DeepCopyInto)
}

// DeepCopyInto copies c into out, sharing no memory.
func (c *ContainerStatus) DeepCopyInto(out *ContainerStatus) {
	*out = *c
	c.State.DeepCopyInto(&out.State)
	c.LastState.DeepCopyInto(&out.LastState)
	out.Started = clonePtr(c.Started)
}

// DeepCopyInto copies s into out, sharing no memory.
func (s *ContainerState) DeepCopyInto(out *ContainerState) {
	out.Waiting = clonePtr(s.Waiting)
	out.Running = clonePtr(s.Running)
	out.Terminated = clonePtr(s.Terminated)
}
