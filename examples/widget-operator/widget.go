// Package widgetoperator is an example operator tested with kubesim: a
// controller that reconciles a custom resource, Widget (spec.replicas),
// into a Deployment of that many replicas owned by the Widget, run on its
// own host beside kubesim's API servers under API chaos, and judged by an
// invariant of its own (every Widget ends with a Deployment of its
// replicas). See docs/library.md, "A complete example".
package widgetoperator

import (
	"github.com/kubesim/kubesim/model"
)

// Namespace is where the example's Widgets and Deployments live.
const Namespace = "default"

// WidgetSpec is a Widget's spec: how many replicas its Deployment runs.
type WidgetSpec struct {
	Replicas int32 `json:"replicas"`
}

// Widgets is the custom kind, registered on every API server of the world
// (scenarios.APITopology.Custom). Its validation refuses a negative
// replica count, as an OpenAPI schema's "minimum: 0" would.
var Widgets = model.CustomResourceDefinition{
	Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets",
	Namespaced: true, StatusSubresource: true,
	Validate: func(obj, _ *model.CustomObject) model.ErrorList {
		spec, err := model.SpecAs[WidgetSpec](obj)
		if err != nil {
			return model.ErrorList{model.FieldInvalid("spec", obj.Spec.String(), err.Error())}
		}
		if spec.Replicas < 0 {
			return model.ErrorList{model.FieldInvalid("spec.replicas", spec.Replicas, "must be non-negative")}
		}
		return nil
	},
}

// NewWidget returns a Widget named name with replicas.
func NewWidget(name string, replicas int32) *model.CustomObject {
	w := model.NewCustomObject(Widgets, Namespace, name)
	if err := w.SetSpec(WidgetSpec{Replicas: replicas}); err != nil {
		panic(err) // a WidgetSpec always encodes
	}
	return w
}
