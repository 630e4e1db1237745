package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetDefaultsPod(t *testing.T) {
	p := &Pod{Spec: PodSpec{Containers: []Container{{Name: "a", Image: "x",
		Resources:      ResourceRequirements{Limits: ResourceListOf("cpu", "1", "memory", "1Gi"), Requests: ResourceListOf("cpu", "250m")},
		LivenessProbe:  &Probe{},
		ReadinessProbe: &Probe{PeriodSeconds: 2, FailureThreshold: 7, InitialDelaySeconds: 5},
		StartupProbe:   &Probe{FailureThreshold: 30}}}}}
	SetDefaults(p)
	assert.Equal(t, RestartPolicyAlways, p.Spec.RestartPolicy)
	assert.Equal(t, int64(30), *p.Spec.TerminationGracePeriodSeconds)
	assert.Equal(t, "default-scheduler", p.Spec.SchedulerName)
	c := p.Spec.Containers[0]
	assert.Equal(t, Probe{PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}, *c.LivenessProbe)
	assert.Equal(t, Probe{InitialDelaySeconds: 5, PeriodSeconds: 2, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 7}, *c.ReadinessProbe)
	// A startup probe gets the same defaults (pkg/apis/core/v1/defaults.go
	// SetDefaults_Probe applies to every probe of a container).
	assert.Equal(t, Probe{PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 30}, *c.StartupProbe)
	assert.Equal(t, ResourceListOf("cpu", "250m", "memory", "1Gi"), c.Resources.Requests, "a limit without a request becomes the request")
	assert.Empty(t, p.Spec.Tolerations, "SetDefaults does not add the admission plugin's tolerations")

	set := &Pod{Spec: PodSpec{RestartPolicy: RestartPolicyNever, TerminationGracePeriodSeconds: Ptr[int64](0), SchedulerName: "mine"}}
	SetDefaults(set)
	assert.Equal(t, RestartPolicyNever, set.Spec.RestartPolicy)
	assert.Equal(t, int64(0), *set.Spec.TerminationGracePeriodSeconds)
	assert.Equal(t, "mine", set.Spec.SchedulerName)
}

func TestSetDefaultsApps(t *testing.T) {
	rs := &ReplicaSet{}
	SetDefaults(rs)
	assert.Equal(t, int32(1), *rs.Spec.Replicas)
	assert.Equal(t, RestartPolicyAlways, rs.Spec.Template.Spec.RestartPolicy)

	zero := &ReplicaSet{Spec: ReplicaSetSpec{Replicas: Ptr[int32](0)}}
	SetDefaults(zero)
	assert.Equal(t, int32(0), *zero.Spec.Replicas, "an explicit 0 is kept")

	d := &Deployment{}
	SetDefaults(d)
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	assert.Equal(t, RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type)
	require.NotNil(t, d.Spec.Strategy.RollingUpdate)
	assert.Equal(t, FromString("25%"), *d.Spec.Strategy.RollingUpdate.MaxSurge)
	assert.Equal(t, FromString("25%"), *d.Spec.Strategy.RollingUpdate.MaxUnavailable)
	assert.Equal(t, int32(10), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, int32(600), *d.Spec.ProgressDeadlineSeconds)
	assert.Equal(t, int64(30), *d.Spec.Template.Spec.TerminationGracePeriodSeconds)

	partial := &Deployment{Spec: DeploymentSpec{Strategy: DeploymentStrategy{RollingUpdate: &RollingUpdateDeployment{MaxSurge: Ptr(FromInt(2))}}}}
	SetDefaults(partial)
	assert.Equal(t, FromInt(2), *partial.Spec.Strategy.RollingUpdate.MaxSurge)
	assert.Equal(t, FromString("25%"), *partial.Spec.Strategy.RollingUpdate.MaxUnavailable)

	recreate := &Deployment{Spec: DeploymentSpec{Strategy: DeploymentStrategy{Type: RecreateDeploymentStrategyType}}}
	SetDefaults(recreate)
	assert.Nil(t, recreate.Spec.Strategy.RollingUpdate, "Recreate gets no rollingUpdate")
	assert.Empty(t, errorStrings(Validate(func() *Deployment {
		d := validDeployment()
		d.Spec.Strategy = DeploymentStrategy{Type: RecreateDeploymentStrategyType}
		return d
	}())))
}

func TestSetDefaultsNodeAndLease(t *testing.T) {
	n := &Node{Status: NodeStatus{Capacity: ResourceListOf("cpu", "2")}}
	SetDefaults(n)
	assert.Equal(t, ResourceListOf("cpu", "2"), n.Status.Allocatable)
	n.Status.Allocatable[ResourceCPU] = 1
	assert.Equal(t, Quantity(2000), n.Status.Capacity[ResourceCPU], "allocatable is a copy")

	l := &Lease{}
	SetDefaults(l)
	assert.Equal(t, &Lease{}, l)
}

func TestAddDefaultTolerations(t *testing.T) {
	notReady := Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: Ptr[int64](300)}
	unreachable := Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: Ptr[int64](300)}
	own := Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: Ptr[int64](6000)}
	cases := []struct {
		name    string
		in      []Toleration
		want    []Toleration
		changed bool
	}{
		{"none", nil, []Toleration{notReady, unreachable}, true},
		{"own unreachable kept", []Toleration{own}, []Toleration{own, notReady}, true},
		{"tolerate everything", []Toleration{{Operator: TolerationOpExists}}, []Toleration{{Operator: TolerationOpExists}}, false},
		{"NoSchedule does not count", []Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}},
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, notReady, unreachable}, true},
		{"both present", []Toleration{notReady, unreachable}, []Toleration{notReady, unreachable}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Pod{Spec: PodSpec{Tolerations: c.in}}
			assert.Equal(t, c.changed, AddDefaultTolerations(p))
			assert.Equal(t, c.want, p.Spec.Tolerations)
		})
	}
}
