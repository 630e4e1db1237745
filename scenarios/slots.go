package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
)

// LabelSlot is the label that puts a pod of an app into one of its slot
// Services (NewSlotService), as a blue/green switch or a canary slot
// does: an operator moves pods between those Services by relabelling
// them (SlotPods), while they stay in their ReplicaSet and in the app's
// own Service.
const LabelSlot = "slot"

// NewSlotService is the Service <app>-<slot> in WorkloadNamespace,
// selecting app=<app> and slot=<slot> on port.
func NewSlotService(app, slot string, port int32) *model.Service {
	svc := NewService(app, port)
	svc.Name = app + "-" + slot
	svc.Spec.Selector[LabelSlot] = slot
	return svc
}

// SlotPods, at at, labels the n pods of app (label app=<app>) in namespace
// that sort first by name among those not being deleted with
// slot=<slot>: each leaves the slot Service it was in (if any) for
// <app>-<slot>'s, and the EndpointSlice controller must move its endpoint
// from the one's slices to the other's. The pods' updates go one after
// the other, each a quorum read and a conditional update under
// RetryOnConflict; a pod already in the slot is left alone, so a retried
// step does only what is left.
func SlotPods(at time.Duration, namespace, app, slot string, n int) apiload.Step {
	name := "slot-" + app + "-" + slot
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		c.Resource(model.ResourcePodsName, namespace).List(client.ListOptions{LabelSelector: "app=" + app}, func(l *client.ObjectList, err error) {
			if err != nil {
				done(err)
				return
			}
			var names []string
			moved := map[string]bool{}
			for _, o := range l.Items {
				if m := o.GetObjectMeta(); m.DeletionTimestamp == nil {
					names = append(names, m.Name)
					moved[m.Name] = m.Labels[LabelSlot] == slot
				}
			}
			if len(names) == 0 {
				done(fmt.Errorf("%s: no pod of %s in %q: %w", name, app, namespace, ErrNotYet))
				return
			}
			slices.Sort(names)
			var todo []string
			for _, p := range names[:min(n, len(names))] {
				if !moved[p] {
					todo = append(todo, p)
				}
			}
			slotEach(c, name, namespace, slot, todo, done)
		})
	}}
}

// slotEach labels each pod of names with slot=<slot>, in order.
func slotEach(c *client.Client, step, namespace, slot string, names []string, done func(error)) {
	if len(names) == 0 {
		done(nil)
		return
	}
	UpdateStep(0, step, model.ResourcePodsName, namespace, names[0], func(o model.Object) {
		m := o.GetObjectMeta()
		labels := maps.Clone(m.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelSlot] = slot
		m.Labels = labels
	}).Do(c, func(err error) {
		if err != nil {
			done(err)
			return
		}
		slotEach(c, step, namespace, slot, names[1:], done)
	})
}
