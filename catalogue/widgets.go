package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/scenarios"
)

// Widgets is the custom kind the catalogue's chaos scenarios serve beside
// the built-in kinds, so that the custom-resource path (the definition's
// validation, storage under the group's prefix, the watch cache, the
// authorization of custom resources, the controller manager's informer and
// the garbage collector's custom owners) is reached under their faults and
// judged by their checks: namespaced, with the status subresource, as most
// operators' kinds.
var Widgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets",
	Namespaced: true, StatusSubresource: true, Validate: validateWidget}

// WidgetSpec is a Widget's spec: the size an operator asks for.
type WidgetSpec struct {
	Size *int64 `json:"size,omitempty"`
}

// validateWidget is the Widget kind's schema, as an OpenAPI schema with
// minimum: 0 would be: the spec, when set, is an object whose size is a
// non-negative integer.
func validateWidget(obj, _ *model.CustomObject) model.ErrorList {
	spec, err := model.SpecAs[WidgetSpec](obj)
	if err != nil {
		return model.ErrorList{model.FieldInvalid("spec", obj.Spec.String(), err.Error())}
	}
	if spec.Size != nil && *spec.Size < 0 {
		return model.ErrorList{model.FieldInvalid("spec.size", *spec.Size, "must be greater than or equal to 0")}
	}
	return nil
}

// widget is Widget name in the workload namespace, of size.
func widget(name string, size int64) *model.CustomObject {
	w := model.NewCustomObject(Widgets, scenarios.WorkloadNamespace, name)
	if err := w.SetSpec(WidgetSpec{Size: &size}); err != nil {
		panic(err) // a WidgetSpec always encodes
	}
	return w
}

// widgetSteps is an operator's work with Widget name, at create, edit and
// remove: it creates the Widget, and its controller (a script step here)
// the Widget's Deployment of one pod, controlled by the Widget; it edits
// the Widget's size; it deletes the Widget, after which the garbage
// collector deletes the Deployment, and through it its ReplicaSet and pod.
func widgetSteps(name string, create, edit, remove time.Duration) (first, second []apiload.Step) {
	first = []apiload.Step{
		scenarios.CreateCustomStep(create, Widgets, widget(name, 1)),
		ownedDeployment(create, name),
	}
	second = []apiload.Step{
		scenarios.SetCustomSpecStep(edit, "resize-widget-"+name, Widgets, scenarios.WorkloadNamespace, name, WidgetSpec{Size: model.Ptr(int64(2))}),
		scenarios.DeleteStep(remove, Widgets.Plural, scenarios.WorkloadNamespace, name),
	}
	return first, second
}

// ownedDeployment reads Widget name and creates its Deployment of one
// small pod, controlled by it, as an operator's controller does.
func ownedDeployment(at time.Duration, name string) apiload.Step {
	return apiload.Step{At: at, Name: "widget-deployment-" + name, Do: func(c *client.Client, done func(error)) {
		c.CustomResources(Widgets, scenarios.WorkloadNamespace).Get(name, client.GetOptions{}, func(w model.Object, err error) {
			if err != nil {
				done(err)
				return
			}
			d := scenarios.NewDeployment(name, 1, scenarios.AppSpec{CPU: "50m", Memory: "64Mi"})
			d.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(w, w.Kind())}
			c.Deployments(scenarios.WorkloadNamespace).Create(d, func(_ model.Object, err error) {
				if client.IsAlreadyExists(err) {
					err = nil // a retried step whose create went through
				}
				done(err)
			})
		})
	}}
}
