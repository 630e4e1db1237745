package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidateUpdate(t *testing.T) {
	cases := []struct {
		name   string
		old    func() Object
		change func(Object)
		want   []string
	}{
		{"pod image may change", func() Object { return validPod() },
			func(o Object) { o.(*Pod).Spec.Containers[0].Image = "nginx:1.26" }, nil},
		{"pod status may change", func() Object { return validPod() },
			func(o Object) { o.(*Pod).Status.Phase = PodRunning }, nil},
		{"labels may change", func() Object { return validPod() },
			func(o Object) { o.GetObjectMeta().Labels["extra"] = "1" }, nil},
		{"pod nodeName may be set once", func() Object { return validPod() },
			func(o Object) { o.(*Pod).Spec.NodeName = "node-1" }, nil},
		{"pod nodeName may not change", func() Object { p := validPod(); p.Spec.NodeName = "node-1"; return p },
			func(o Object) { o.(*Pod).Spec.NodeName = "node-2" },
			[]string{`spec.nodeName: Invalid value: "node-2": field is immutable once set`}},
		{"pod nodeName may not be cleared", func() Object { p := validPod(); p.Spec.NodeName = "node-1"; return p },
			func(o Object) { o.(*Pod).Spec.NodeName = "" },
			[]string{`spec.nodeName: Invalid value: "": field is immutable once set`}},
		{"pod restartPolicy is immutable", func() Object { return validPod() },
			func(o Object) { o.(*Pod).Spec.RestartPolicy = RestartPolicyNever },
			[]string{"spec: Forbidden: " + podSpecUpdateDetail}},
		{"pod tolerations are immutable", func() Object { return validPod() },
			func(o Object) {
				p := o.(*Pod)
				p.Spec.Tolerations = append(p.Spec.Tolerations, Toleration{Key: "k", Operator: TolerationOpExists})
			},
			[]string{"spec: Forbidden: " + podSpecUpdateDetail}},
		{"pod containers may not be added", func() Object { return validPod() },
			func(o Object) {
				p := o.(*Pod)
				p.Spec.Containers = append(p.Spec.Containers, Container{Name: "side", Image: "busybox"})
			},
			[]string{"spec: Forbidden: " + podSpecUpdateDetail}},
		{"pod resources are immutable", func() Object { return validPod() },
			func(o Object) { o.(*Pod).Spec.Containers[0].Resources.Requests[ResourceCPU] = 200 },
			[]string{"spec: Forbidden: " + podSpecUpdateDetail}},
		{"name is immutable", func() Object { return validPod() },
			func(o Object) { o.GetObjectMeta().Name = "web-2" },
			[]string{`metadata.name: Invalid value: "web-2": field is immutable`}},
		{"namespace is immutable", func() Object { return validRS() },
			func(o Object) { o.GetObjectMeta().Namespace = "other" },
			[]string{`metadata.namespace: Invalid value: "other": field is immutable`}},
		{"uid is immutable", func() Object { n := validNode(); n.UID = "u1"; return n },
			func(o Object) { o.GetObjectMeta().UID = "u2" },
			[]string{`metadata.uid: Invalid value: "u2": field is immutable`}},
		{"creationTimestamp is immutable", func() Object { l := validLease(); l.CreationTimestamp = 5; return l },
			func(o Object) { o.GetObjectMeta().CreationTimestamp = 6 },
			[]string{`metadata.creationTimestamp: Invalid value: 0.000000006s: field is immutable`}},
		{"generation may not decrease", func() Object { d := validDeployment(); d.Generation = 3; return d },
			func(o Object) { o.GetObjectMeta().Generation = 2 },
			[]string{`metadata.generation: Invalid value: 2: must not be decremented`}},
		{"no new finalizers while deleting", func() Object {
			p := validPod()
			p.DeletionTimestamp = Ptr(Time(1))
			p.Finalizers = []string{"a.io/x"}
			return p
		}, func(o Object) { o.GetObjectMeta().Finalizers = []string{"a.io/x", "b.io/y"} },
			[]string{`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}`}},
		{"finalizers may be removed while deleting", func() Object {
			p := validPod()
			p.DeletionTimestamp = Ptr(Time(1))
			p.Finalizers = []string{"a.io/x"}
			return p
		}, func(o Object) { o.GetObjectMeta().Finalizers = nil }, nil},
		{"rs selector is immutable", func() Object { return validRS() },
			func(o Object) {
				rs := o.(*ReplicaSet)
				rs.Spec.Selector.MatchLabels["tier"] = "x"
				rs.Spec.Template.Labels["tier"] = "x"
			},
			[]string{`spec.selector: Invalid value: model.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]model.LabelSelectorRequirement(nil)}: field is immutable`}},
		{"rs replicas and template may change", func() Object { return validRS() },
			func(o Object) {
				rs := o.(*ReplicaSet)
				rs.Spec.Replicas = Ptr[int32](5)
				rs.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			}, nil},
		{"deployment selector is immutable", func() Object { return validDeployment() },
			func(o Object) {
				d := o.(*Deployment)
				d.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "web", "v": "2"}}
				d.Spec.Template.Labels["v"] = "2"
			},
			[]string{`spec.selector: Invalid value: model.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]model.LabelSelectorRequirement(nil)}: field is immutable`}},
		{"the new object is validated too", func() Object { return validDeployment() },
			func(o Object) { o.(*Deployment).Spec.Replicas = Ptr[int32](-1) },
			[]string{`spec.replicas: Invalid value: -1: must be greater than or equal to 0`}},
		{"lease renew", func() Object { return validLease() },
			func(o Object) { o.(*Lease).Spec.RenewTime = Ptr(Time(10)) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := c.old()
			new := old.DeepCopyObject()
			c.change(new)
			assert.Equal(t, c.want, errorStrings(ValidateUpdate(old, new)))
		})
	}
	assert.Equal(t, []string{`kind: Invalid value: "Node": field is immutable`}, errorStrings(ValidateUpdate(validPod(), validNode())))
}
