package model

// Default values, as the apps/v1 and core/v1 defaulting functions set them.
const (
	DefaultTerminationGracePeriodSeconds int64 = 30
	DefaultProbePeriodSeconds            int32 = 10
	DefaultProbeTimeoutSeconds           int32 = 1
	DefaultProbeSuccessThreshold         int32 = 1
	DefaultProbeFailureThreshold         int32 = 3
	DefaultReplicas                      int32 = 1
	DefaultRevisionHistoryLimit          int32 = 10
	DefaultProgressDeadlineSeconds       int32 = 600
	// DefaultMaxSurge and DefaultMaxUnavailable are a rolling update's bounds.
	DefaultMaxSurge       = "25%"
	DefaultMaxUnavailable = "25%"
)

// SetDefaults fills in unset fields of obj in place, as the API server's
// defaulting does before validation on create and update:
//
//   - Pod (and every pod template): restartPolicy Always,
//     terminationGracePeriodSeconds 30, schedulerName "default-scheduler";
//     probes get periodSeconds 10, timeoutSeconds 1, successThreshold 1,
//     failureThreshold 3 where zero; a container limit with no request
//     becomes the request too.
//   - Node: status.allocatable copies status.capacity if unset.
//   - ReplicaSet: replicas 1.
//   - Deployment: replicas 1; strategy RollingUpdate with maxSurge and
//     maxUnavailable 25% (only when the type is RollingUpdate);
//     revisionHistoryLimit 10; progressDeadlineSeconds 600.
//   - Lease: nothing.
//   - Service: type ClusterIP; each port's protocol TCP and targetPort the
//     port itself when unset (pkg/apis/core/v1/defaults.go,
//     SetDefaults_Service).
//   - EndpointSlice: each port's name "" and protocol TCP when unset
//     (pkg/apis/discovery/v1/defaults.go, SetDefaults_EndpointPort).
//
// The DefaultTolerationSeconds admission plugin is separate:
// AddDefaultTolerations.
func SetDefaults(obj Object) {
	switch o := obj.(type) {
	case *Pod:
		SetDefaultsPodSpec(&o.Spec)
	case *Node:
		if o.Status.Allocatable == nil && o.Status.Capacity != nil {
			o.Status.Allocatable = o.Status.Capacity.DeepCopy()
		}
	case *ReplicaSet:
		defaultPtr(&o.Spec.Replicas, DefaultReplicas)
		SetDefaultsPodSpec(&o.Spec.Template.Spec)
	case *Deployment:
		setDefaultsDeployment(o)
	case *Service:
		setDefaultsService(o)
	case *EndpointSlice:
		for i := range o.Ports {
			p := &o.Ports[i]
			defaultPtr(&p.Name, "")
			defaultPtr(&p.Protocol, ProtocolTCP)
		}
	}
}

func setDefaultsService(svc *Service) {
	defaultTo(&svc.Spec.Type, ServiceTypeClusterIP)
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		defaultTo(&p.Protocol, ProtocolTCP)
		if p.TargetPort == FromInt(0) || p.TargetPort == FromString("") {
			p.TargetPort = FromInt(int(p.Port))
		}
	}
}

// SetDefaultsPodSpec applies the pod spec defaults of SetDefaults.
func SetDefaultsPodSpec(spec *PodSpec) {
	defaultTo(&spec.RestartPolicy, RestartPolicyAlways)
	defaultPtr(&spec.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
	defaultTo(&spec.SchedulerName, DefaultSchedulerName)
	for i := range spec.Containers {
		c := &spec.Containers[i]
		setDefaultsProbe(c.LivenessProbe)
		setDefaultsProbe(c.ReadinessProbe)
		setDefaultsProbe(c.StartupProbe)
		for _, name := range c.Resources.Limits.Names() {
			if _, ok := c.Resources.Requests[name]; !ok {
				if c.Resources.Requests == nil {
					c.Resources.Requests = ResourceList{}
				}
				c.Resources.Requests[name] = c.Resources.Limits[name]
			}
		}
	}
}

func setDefaultsProbe(p *Probe) {
	if p == nil {
		return
	}
	defaultTo(&p.TimeoutSeconds, DefaultProbeTimeoutSeconds)
	defaultTo(&p.PeriodSeconds, DefaultProbePeriodSeconds)
	defaultTo(&p.SuccessThreshold, DefaultProbeSuccessThreshold)
	defaultTo(&p.FailureThreshold, DefaultProbeFailureThreshold)
}

func setDefaultsDeployment(d *Deployment) {
	spec := &d.Spec
	defaultPtr(&spec.Replicas, DefaultReplicas)
	defaultTo(&spec.Strategy.Type, RollingUpdateDeploymentStrategyType)
	if spec.Strategy.Type == RollingUpdateDeploymentStrategyType {
		defaultPtr(&spec.Strategy.RollingUpdate, RollingUpdateDeployment{})
		defaultPtr(&spec.Strategy.RollingUpdate.MaxUnavailable, FromString(DefaultMaxUnavailable))
		defaultPtr(&spec.Strategy.RollingUpdate.MaxSurge, FromString(DefaultMaxSurge))
	}
	defaultPtr(&spec.RevisionHistoryLimit, DefaultRevisionHistoryLimit)
	defaultPtr(&spec.ProgressDeadlineSeconds, DefaultProgressDeadlineSeconds)
	SetDefaultsPodSpec(&spec.Template.Spec)
}

// defaultTo sets *field to v if it holds its zero value ("" or 0), as
// the defaulting functions do to a scalar field.
func defaultTo[T comparable](field *T, v T) {
	var zero T
	if *field == zero {
		*field = v
	}
}

// defaultPtr points *field at a copy of v if it is nil, as the defaulting
// functions do to an optional (pointer) field.
func defaultPtr[T any](field **T, v T) {
	if *field == nil {
		*field = Ptr(v)
	}
}
