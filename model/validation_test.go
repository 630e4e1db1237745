package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	subdomainMsg = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	labelMsg     = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	nameMsg      = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	valueMsg     = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
)

func validPod() *Pod {
	p := &Pod{
		ObjectMeta: ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: PodSpec{Containers: []Container{{Name: "app", Image: "nginx:1.25",
			Resources: ResourceRequirements{Requests: ResourceListOf("cpu", "100m", "memory", "64Mi")}}}},
	}
	SetDefaults(p)
	AddDefaultTolerations(p)
	return p
}

func validNode() *Node {
	n := &Node{ObjectMeta: ObjectMeta{Name: "node-1"},
		Status: NodeStatus{Capacity: ResourceListOf("cpu", "4", "memory", "8Gi", "pods", "110")}}
	SetDefaults(n)
	return n
}

func validTemplate() PodTemplateSpec {
	return PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: PodSpec{Containers: []Container{{Name: "app", Image: "nginx:1.25"}}}}
}

func validRS() *ReplicaSet {
	rs := &ReplicaSet{ObjectMeta: ObjectMeta{Name: "web-5d9f", Namespace: "default"},
		Spec: ReplicaSetSpec{Replicas: Ptr[int32](3), Selector: &LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: validTemplate()}}
	SetDefaults(rs)
	return rs
}

func validDeployment() *Deployment {
	d := &Deployment{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec: DeploymentSpec{Replicas: Ptr[int32](3), Selector: &LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: validTemplate()}}
	SetDefaults(d)
	return d
}

func validLease() *Lease {
	return &Lease{ObjectMeta: ObjectMeta{Name: "node-1", Namespace: NodeLeaseNamespace},
		Spec: LeaseSpec{HolderIdentity: Ptr("node-1"), LeaseDurationSeconds: Ptr[int32](40)}}
}

func errorStrings(l ErrorList) []string {
	if len(l) == 0 {
		return nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.Error()
	}
	return out
}

func TestValidObjectsPass(t *testing.T) {
	for _, obj := range []Object{validPod(), validNode(), validRS(), validDeployment(), validLease()} {
		assert.Empty(t, errorStrings(Validate(obj)), obj.Kind())
	}
}

// TestPreStopSleepBounds: a preStop sleep of zero (KEP-4818) and one equal
// to the grace period are valid.
func TestPreStopSleepBounds(t *testing.T) {
	for _, s := range []int64{0, 30} {
		p := validPod()
		p.Spec.Containers[0].Lifecycle = &Lifecycle{PreStop: &LifecycleHandler{Sleep: &SleepAction{Seconds: s}}}
		assert.Empty(t, errorStrings(Validate(p)), "sleep %d", s)
		got, ok := p.Spec.Containers[0].PreStopSleep()
		assert.True(t, ok)
		assert.Equal(t, s, got)
	}
	_, ok := validPod().Spec.Containers[0].PreStopSleep()
	assert.False(t, ok, "no lifecycle, no preStop sleep")
}

func TestValidateExactMessages(t *testing.T) {
	cases := []struct {
		name string
		obj  func() Object
		want []string
	}{
		{"pod name not a subdomain", func() Object { p := validPod(); p.Name = "Foo_1"; return p },
			[]string{`metadata.name: Invalid value: "Foo_1": ` + subdomainMsg}},
		{"pod name missing", func() Object { p := validPod(); p.Name = ""; return p },
			[]string{`metadata.name: Required value: name or generateName is required`}},
		{"pod name too long", func() Object {
			p := validPod()
			p.Name = "a"
			for len(p.Name) < 254 {
				p.Name += "a"
			}
			return p
		}, []string{`metadata.name: Invalid value: "` + func() string {
			s := "a"
			for len(s) < 254 {
				s += "a"
			}
			return s
		}() + `": must be no more than 253 characters`}},
		{"pod namespace missing", func() Object { p := validPod(); p.Namespace = ""; return p },
			[]string{`metadata.namespace: Required value`}},
		{"pod namespace not a label", func() Object { p := validPod(); p.Namespace = "a.b"; return p },
			[]string{`metadata.namespace: Invalid value: "a.b": ` + labelMsg}},
		{"node namespace forbidden", func() Object { n := validNode(); n.Namespace = "default"; return n },
			[]string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"label key", func() Object { p := validPod(); p.Labels["-bad"] = "x"; return p },
			[]string{`metadata.labels: Invalid value: "-bad": ` + nameMsg}},
		{"label key prefix", func() Object { p := validPod(); p.Labels["Example.com/x"] = "x"; return p },
			[]string{`metadata.labels: Invalid value: "Example.com/x": prefix part ` + subdomainMsg}},
		{"label value", func() Object { p := validPod(); p.Labels["app"] = "bad value"; return p },
			[]string{`metadata.labels: Invalid value: "bad value": ` + valueMsg}},
		{"labels reported in key order", func() Object {
			p := validPod()
			p.Labels = map[string]string{"z": "-", "a": "-"}
			return p
		}, []string{`metadata.labels: Invalid value: "-": ` + valueMsg, `metadata.labels: Invalid value: "-": ` + valueMsg}},
		{"annotation key", func() Object { p := validPod(); p.Annotations = map[string]string{"a b": "x"}; return p },
			[]string{`metadata.annotations: Invalid value: "a b": ` + nameMsg}},
		{"negative generation", func() Object { p := validPod(); p.Generation = -1; return p },
			[]string{`metadata.generation: Invalid value: -1: must be greater than or equal to 0`}},
		{"owner reference fields", func() Object {
			p := validPod()
			p.OwnerReferences = []OwnerReference{{}}
			return p
		}, []string{
			// apimachinery's ValidateOwnerReferences passes the list's path,
			// not an indexed one, to validateOwnerReference
			`metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty`,
			`metadata.ownerReferences.kind: Invalid value: "": kind must not be empty`,
			`metadata.ownerReferences.name: Invalid value: "": name must not be empty`,
			`metadata.ownerReferences.uid: Invalid value: "": uid must not be empty`,
		}},
		// validateOwnerReference: schema.ParseGroupVersion("a/b/c") fails,
		// leaving no version; a core v1 Event is in BannedOwners
		{"owner reference apiVersion with two slashes", func() Object {
			p := validPod()
			p.OwnerReferences = []OwnerReference{{APIVersion: "a/b/c", Kind: "Thing", Name: "t", UID: "1"}}
			return p
		}, []string{`metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty`}},
		{"event as owner", func() Object {
			p := validPod()
			p.OwnerReferences = []OwnerReference{{APIVersion: "v1", Kind: "Event", Name: "e", UID: "1"}}
			return p
		}, []string{`metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"1", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: v1, Kind=Event is disallowed from being an owner`}},
		// ValidateFinalizers: orphan and foregroundDeletion conflict
		{"orphan and foreground finalizers", func() Object {
			p := validPod()
			p.Finalizers = []string{FinalizerOrphanDependents, FinalizerDeleteDependents}
			return p
		}, []string{`metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set`}},
		{"two controllers", func() Object {
			p := validPod()
			p.OwnerReferences = []OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: Ptr(true)},
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "b", UID: "2", Controller: Ptr(true)},
			}
			return p
		}, []string{`metadata.ownerReferences: Invalid value: [ReplicaSet/a ReplicaSet/b]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b`}},
		{"finalizer", func() Object { p := validPod(); p.Finalizers = []string{"a/b/c"}; return p },
			[]string{`metadata.finalizers: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`}},
		{"no containers", func() Object { p := validPod(); p.Spec.Containers = nil; return p },
			[]string{`spec.containers: Required value`}},
		{"container name", func() Object { p := validPod(); p.Spec.Containers[0].Name = "App"; return p },
			[]string{`spec.containers[0].name: Invalid value: "App": ` + labelMsg}},
		{"container name missing", func() Object { p := validPod(); p.Spec.Containers[0].Name = ""; return p },
			[]string{`spec.containers[0].name: Required value`}},
		{"duplicate container", func() Object {
			p := validPod()
			p.Spec.Containers = append(p.Spec.Containers, Container{Name: "app", Image: "x"})
			return p
		}, []string{`spec.containers[1].name: Duplicate value: "app"`}},
		{"image missing", func() Object { p := validPod(); p.Spec.Containers[0].Image = ""; return p },
			[]string{`spec.containers[0].image: Required value`}},
		{"restart policy", func() Object { p := validPod(); p.Spec.RestartPolicy = "Sometimes"; return p },
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"request above limit", func() Object {
			p := validPod()
			p.Spec.Containers[0].Resources = ResourceRequirements{Requests: ResourceListOf("cpu", "2"), Limits: ResourceListOf("cpu", "500m")}
			return p
		}, []string{`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 500m`}},
		{"negative request", func() Object {
			p := validPod()
			p.Spec.Containers[0].Resources.Requests[ResourceMemory] = -1
			return p
		}, []string{`spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"non-standard resource", func() Object {
			p := validPod()
			p.Spec.Containers[0].Resources.Limits = ResourceList{"gpus": 1}
			return p
		}, []string{`spec.containers[0].resources.limits[gpus]: Invalid value: "gpus": must be a standard resource for containers`}},
		{"liveness success threshold", func() Object {
			p := validPod()
			p.Spec.Containers[0].LivenessProbe = &Probe{PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 2}
			return p
		}, []string{`spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`}},
		// pkg/apis/core/validation/validation.go validateContainerCommon:
		// "must be 1" for a startup probe's successThreshold too.
		{"startup success threshold", func() Object {
			p := validPod()
			p.Spec.Containers[0].StartupProbe = &Probe{PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 30, SuccessThreshold: 2}
			return p
		}, []string{`spec.containers[0].startupProbe.successThreshold: Invalid value: 2: must be 1`}},
		{"negative startup probe timeout", func() Object {
			p := validPod()
			p.Spec.Containers[0].StartupProbe = &Probe{PeriodSeconds: 10, TimeoutSeconds: -1, FailureThreshold: 3, SuccessThreshold: 1}
			return p
		}, []string{`spec.containers[0].startupProbe.timeoutSeconds: Invalid value: -1: must be greater than or equal to 0`}},
		{"negative probe period", func() Object {
			p := validPod()
			p.Spec.Containers[0].ReadinessProbe = &Probe{PeriodSeconds: -1, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
			return p
		}, []string{`spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`}},
		// pkg/apis/core/validation/validation.go validateSleepAction, with
		// zero allowed (KEP-4818, GA in 1.34).
		{"prestop sleep above grace", func() Object {
			p := validPod()
			p.Spec.TerminationGracePeriodSeconds = Ptr[int64](10)
			p.Spec.Containers[0].Lifecycle = &Lifecycle{PreStop: &LifecycleHandler{Sleep: &SleepAction{Seconds: 11}}}
			return p
		}, []string{`spec.containers[0].lifecycle.preStop.sleep.seconds: Invalid value: 11: must be non-negative and less than terminationGracePeriodSeconds (10)`}},
		{"negative prestop sleep", func() Object {
			p := validPod()
			p.Spec.Containers[0].Lifecycle = &Lifecycle{PreStop: &LifecycleHandler{Sleep: &SleepAction{Seconds: -1}}}
			return p
		}, []string{`spec.containers[0].lifecycle.preStop.sleep.seconds: Invalid value: -1: must be non-negative and less than terminationGracePeriodSeconds (30)`}},
		{"prestop without handler", func() Object {
			p := validPod()
			p.Spec.Containers[0].Lifecycle = &Lifecycle{PreStop: &LifecycleHandler{}}
			return p
		}, []string{`spec.containers[0].lifecycle.preStop: Required value: must specify a handler type`}},
		{"node name", func() Object { p := validPod(); p.Spec.NodeName = "Node_1"; return p },
			[]string{`spec.nodeName: Invalid value: "Node_1": ` + subdomainMsg}},
		{"grace period", func() Object { p := validPod(); p.Spec.TerminationGracePeriodSeconds = Ptr[int64](-5); return p },
			[]string{`spec.terminationGracePeriodSeconds: Invalid value: -5: must be greater than or equal to 0`}},
		{"toleration empty key needs Exists", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Operator: TolerationOpEqual}}
			return p
		}, []string{"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""}},
		{"tolerationSeconds needs NoExecute", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule, TolerationSeconds: Ptr[int64](5)}}
			return p
		}, []string{"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{"toleration Exists with value", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Value: "v"}}
			return p
		}, []string{"spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"}},
		{"toleration operator and effect", func() Object {
			p := validPod()
			p.Spec.Tolerations = []Toleration{{Key: "k", Operator: "Gt", Effect: "Evict"}}
			return p
		}, []string{
			`spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists"`,
			`spec.tolerations[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"taints", func() Object {
			n := validNode()
			n.Spec.Taints = []Taint{{Key: "k", Effect: TaintEffectNoSchedule}, {Key: "k", Value: "other", Effect: TaintEffectNoSchedule}, {Effect: "Evict"}}
			return n
		}, []string{
			`spec.taints[1]: Duplicate value: model.Taint{Key:"k", Value:"other", Effect:"NoSchedule", TimeAdded:(*model.Time)(nil)}: taints must be unique by key and effect pair`,
			`spec.taints[2].key: Required value`,
			`spec.taints[2].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"node capacity", func() Object { n := validNode(); n.Status.Capacity[ResourceCPU] = -1000; return n },
			[]string{`status.capacity[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"rs negative replicas", func() Object { rs := validRS(); rs.Spec.Replicas = Ptr[int32](-1); return rs },
			[]string{`spec.replicas: Invalid value: -1: must be greater than or equal to 0`}},
		{"rs selector missing", func() Object { rs := validRS(); rs.Spec.Selector = nil; return rs },
			[]string{`spec.selector: Required value`,
				"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"}},
		{"rs selector empty", func() Object { rs := validRS(); rs.Spec.Selector = &LabelSelector{}; return rs },
			[]string{`spec.selector: Invalid value: model.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]model.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment`}},
		{"rs selector does not match template", func() Object {
			rs := validRS()
			rs.Spec.Template.Labels = map[string]string{"app": "db"}
			return rs
		}, []string{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"db\"}: `selector` does not match template `labels`"}},
		{"rs selector expression without values", func() Object {
			rs := validRS()
			rs.Spec.Selector.MatchExpressions = []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpIn}}
			return rs
		}, []string{
			"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`spec.selector: Invalid value: model.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]model.LabelSelectorRequirement{model.LabelSelectorRequirement{Key:"tier", Operator:"In", Values:[]string(nil)}}}: invalid label selector`,
		}},
		{"rs template restart policy", func() Object { rs := validRS(); rs.Spec.Template.Spec.RestartPolicy = RestartPolicyNever; return rs },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"rs template container", func() Object { rs := validRS(); rs.Spec.Template.Spec.Containers[0].Image = ""; return rs },
			[]string{`spec.template.spec.containers[0].image: Required value`}},
		{"deployment surge and unavailable both zero", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate = &RollingUpdateDeployment{MaxSurge: Ptr(FromInt(0)), MaxUnavailable: Ptr(FromString("0%"))}
			return d
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0%: may not be 0 when `maxSurge` is 0"}},
		{"deployment maxUnavailable over 100%", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = Ptr(FromString("150%"))
			return d
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 150%: must not be greater than 100%"}},
		{"deployment maxSurge not a percent", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate.MaxSurge = Ptr(FromString("abc"))
			return d
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: abc: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"deployment negative maxSurge", func() Object {
			d := validDeployment()
			d.Spec.Strategy.RollingUpdate.MaxSurge = Ptr(FromInt(-1))
			return d
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"}},
		{"deployment recreate with rollingUpdate", func() Object {
			d := validDeployment()
			d.Spec.Strategy.Type = RecreateDeploymentStrategyType
			return d
		}, []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"deployment strategy type", func() Object { d := validDeployment(); d.Spec.Strategy.Type = "BlueGreen"; return d },
			[]string{`spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"`}},
		{"deployment progress deadline", func() Object {
			d := validDeployment()
			d.Spec.MinReadySeconds = 10
			d.Spec.ProgressDeadlineSeconds = Ptr[int32](10)
			return d
		}, []string{`spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds`}},
		{"deployment revision history", func() Object { d := validDeployment(); d.Spec.RevisionHistoryLimit = Ptr[int32](-1); return d },
			[]string{`spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0`}},
		{"lease duration", func() Object { l := validLease(); l.Spec.LeaseDurationSeconds = Ptr[int32](0); return l },
			[]string{`spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`}},
		{"lease transitions", func() Object { l := validLease(); l.Spec.LeaseTransitions = Ptr[int32](-1); return l },
			[]string{`spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`}},
		{"lease name", func() Object { l := validLease(); l.Name = "Node 1"; return l },
			[]string{`metadata.name: Invalid value: "Node 1": ` + subdomainMsg}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, errorStrings(Validate(c.obj())))
		})
	}
}

func TestErrorListFormatting(t *testing.T) {
	p := validPod()
	p.Name = ""
	p.Spec.Containers = nil
	errs := Validate(p)
	require.Len(t, errs, 2)
	assert.Equal(t, `[metadata.name: Required value: name or generateName is required, spec.containers: Required value]`, errs.Error())
	assert.Equal(t, errs[0].Error(), errs[:1].Error())
	assert.NoError(t, ErrorList(nil).ToAggregate())
	assert.Error(t, errs.ToAggregate())
	assert.Len(t, errs.Filter(ErrorTypeRequired), 0)
	assert.Equal(t, "metadata.x: Invalid value: null", (&FieldError{Type: ErrorTypeInvalid, Field: "metadata.x", BadValue: (*int32)(nil)}).Error())
	assert.Equal(t, "x: Invalid value: true: d", (&FieldError{Type: ErrorTypeInvalid, Field: "x", BadValue: true, Detail: "d"}).Error())
}

func TestNameHelpers(t *testing.T) {
	assert.Empty(t, IsDNS1123Subdomain("a.b-c.d"))
	assert.Empty(t, IsDNS1123Label("a-1"))
	assert.NotEmpty(t, IsDNS1123Label("a.b"))
	assert.Empty(t, IsQualifiedName("example.com/My_Name.1"))
	assert.Equal(t, []string{"prefix part must be non-empty"}, IsQualifiedName("/x"))
	assert.Equal(t, []string{"name part must be non-empty", "name part " + nameMsg[len("name part "):]}, IsQualifiedName("x/"))
	assert.Empty(t, IsValidLabelValue(""))
	long := ""
	for len(long) < 64 {
		long += "a"
	}
	assert.Equal(t, []string{"name part must be no more than 63 characters"}, IsQualifiedName(long))
	assert.Equal(t, []string{"must be no more than 63 characters"}, IsValidLabelValue(long))
}

// TestValidateLabelSelectorRequirements: the facts of apimachinery's
// ValidateLabelSelectorRequirement (pkg/apis/meta/v1/validation/
// validation.go) and its table in validation_test.go: In and NotIn need
// values, Exists and DoesNotExist take none, an unknown operator is
// invalid, the key is a label key and every value a label value.
func TestValidateLabelSelectorRequirements(t *testing.T) {
	cases := []struct {
		name string
		req  LabelSelectorRequirement
		want []string
	}{
		{"In with values", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpIn, Values: []string{"a", ""}}, nil},
		{"In without values", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpIn},
			[]string{"s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"NotIn without values", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpNotIn},
			[]string{"s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"Exists with values", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpExists, Values: []string{"a"}},
			[]string{"s.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
		{"DoesNotExist without values", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpDoesNotExist}, nil},
		{"unknown operator", LabelSelectorRequirement{Key: "k", Operator: "Gt", Values: []string{"1"}},
			[]string{`s.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator`}},
		{"invalid value", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpIn, Values: []string{"ok", "not ok"}},
			[]string{`s.matchExpressions[0].values[1]: Invalid value: "not ok": ` + valueMsg}},
		{"value too long", LabelSelectorRequirement{Key: "k", Operator: LabelSelectorOpNotIn, Values: []string{strings.Repeat("a", 64)}},
			[]string{`s.matchExpressions[0].values[0]: Invalid value: "` + strings.Repeat("a", 64) + `": must be no more than 63 characters`}},
		{"invalid key", LabelSelectorRequirement{Key: "a b", Operator: LabelSelectorOpExists},
			[]string{`s.matchExpressions[0].key: Invalid value: "a b": ` + nameMsg}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := ValidateLabelSelector(&LabelSelector{MatchExpressions: []LabelSelectorRequirement{c.req}}, "s")
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, c.want, got)
		})
	}
}
