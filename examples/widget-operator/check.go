package widgetoperator

import (
	"fmt"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/simtest"
)

// ReplicasCheckName names the invariant in reports.
const ReplicasCheckName = "widget-replicas"

// NewReplicasCheck is the operator's invariant, read from the trace
// (simtest.EveryCustomObject): at the end of the run there are Widgets,
// and every one has a Deployment of the same name, controlled by that
// Widget (by UID), whose spec.replicas equals the Widget's.
func NewReplicasCheck() checks.Check {
	return simtest.EveryCustomObject(ReplicasCheckName, Widgets, Namespace, func(s clusterstate.Snapshot, w *model.CustomObject) string {
		var d *model.Deployment
		if obj, ok := s.Get(model.ResourceDeploymentsName, w.Namespace, w.Name); ok {
			d = obj.(*model.Deployment)
		}
		return replicasOffense(w, d)
	})
}

// replicasOffense says how w's Deployment d (nil: none) falls short of
// w, or "" when it does not.
func replicasOffense(w *model.CustomObject, d *model.Deployment) string {
	spec, err := model.SpecAs[WidgetSpec](w)
	switch {
	case err != nil:
		return fmt.Sprintf("Widget %s: %v", w.Name, err)
	case d == nil:
		return fmt.Sprintf("Widget %s (replicas %d) has no Deployment", w.Name, spec.Replicas)
	case !model.IsControlledBy(d, w):
		return fmt.Sprintf("Deployment %s is not controlled by Widget %s (%s)", d.Name, w.Name, w.UID)
	case model.Deref(d.Spec.Replicas, 1) != spec.Replicas:
		return fmt.Sprintf("Deployment %s has %d replicas, its Widget wants %d", d.Name, model.Deref(d.Spec.Replicas, 1), spec.Replicas)
	}
	return ""
}
