package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
)

// This file is the workload vocabulary of the EndpointSlice controller's
// rarer paths: a user who deletes, edits or re-creates one of the
// controller's slices by hand (kubectl delete / edit / apply), and
// an owner who edits a Service's ports and selector. The controller must
// undo the first (its slice handlers and tracker:
// pkg/controller/endpointslice, onEndpointSliceDelete and
// onEndpointSliceUpdate) and follow the second.

// managedSlices is the label selector of the controller's slices of the
// Service named service.
func managedSlices(service string) string {
	return model.LabelServiceName + "=" + service + "," + model.LabelManagedBy + "=" + model.ManagedByEndpointSliceController
}

// pickSlice lists the controller's slices of namespace/service and calls
// found with the one that sorts first by name among those that hold at
// least one endpoint (ErrNotYet when there is none).
func pickSlice(c *client.Client, step, namespace, service string, found func(*model.EndpointSlice), done func(error)) {
	c.Resource(model.ResourceEndpointSlicesName, namespace).List(client.ListOptions{LabelSelector: managedSlices(service)}, func(l *client.ObjectList, err error) {
		if err != nil {
			done(err)
			return
		}
		var best *model.EndpointSlice
		for _, o := range l.Items {
			s := o.(*model.EndpointSlice)
			if len(s.Endpoints) > 0 && s.DeletionTimestamp == nil && (best == nil || s.Name < best.Name) {
				best = s
			}
		}
		if best == nil {
			done(fmt.Errorf("%s: no slice of %s/%s with endpoints: %w", step, namespace, service, ErrNotYet))
			return
		}
		found(best)
	})
}

// DeleteEndpointSlice, at at, deletes one of the EndpointSlice
// controller's slices of the Service namespace/service (the first by name
// that holds endpoints), as a user running kubectl delete endpointslice
// does: the controller must recreate its endpoints. It deletes one slice
// however often it is tried: the slice it picked first is the one it
// deletes, and NotFound counts as done.
func DeleteEndpointSlice(at time.Duration, namespace, service string) apiload.Step {
	name := "delete-slice-" + service
	picked := ""
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		del := func() {
			c.Resource(model.ResourceEndpointSlicesName, namespace).Delete(picked, client.DeleteOptions{}, func(_ model.Object, err error) {
				if client.IsNotFound(err) {
					err = nil
				}
				done(err)
			})
		}
		if picked != "" {
			del()
			return
		}
		pickSlice(c, name, namespace, service, func(s *model.EndpointSlice) {
			picked = s.Name
			del()
		}, done)
	}}
}

// EditEndpointSlice, at at, removes one endpoint (its last) from one of
// the EndpointSlice controller's slices of the Service namespace/service
// (the first by name that holds endpoints), as a user running kubectl
// edit endpointslice does: the update moves the slice's generation past
// the one the controller wrote, and the controller must put the endpoint
// back. It removes one pod's endpoint however often it is tried (the
// slice and the pod it picked first).
func EditEndpointSlice(at time.Duration, namespace, service string) apiload.Step {
	name := "edit-slice-" + service
	var slice, pod string
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		edit := func() {
			UpdateStep(at, name, model.ResourceEndpointSlicesName, namespace, slice, func(o model.Object) {
				s := o.(*model.EndpointSlice)
				s.Endpoints = slices.DeleteFunc(slices.Clone(s.Endpoints), func(e model.Endpoint) bool {
					return e.TargetRef != nil && e.TargetRef.Name == pod
				})
			}).Do(c, func(err error) {
				if client.IsNotFound(err) {
					err = nil // the controller replaced the slice meanwhile
				}
				done(err)
			})
		}
		if slice != "" {
			edit()
			return
		}
		pickSlice(c, name, namespace, service, func(s *model.EndpointSlice) {
			last := s.Endpoints[len(s.Endpoints)-1]
			if last.TargetRef == nil {
				done(fmt.Errorf("%s: slice %s's last endpoint names no pod", name, s.Name))
				return
			}
			slice, pod = s.Name, last.TargetRef.Name
			edit()
		}, done)
	}}
}

// CopyEndpointSlice, at at, creates a copy of one of the EndpointSlice
// controller's slices of the Service namespace/service (the first by name
// that holds endpoints) under the name "<slice>-copy", with its labels,
// owner references, ports and endpoints, as a user who re-applies a
// manifest dumped from the cluster earlier does: every endpoint in it is
// now listed twice, and the controller, which did not write the slice,
// must sync the Service (onEndpointSliceAdd) and list each pod once
// again. AlreadyExists counts as done.
func CopyEndpointSlice(at time.Duration, namespace, service string) apiload.Step {
	name := "copy-slice-" + service
	var cp *model.EndpointSlice
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		create := func() {
			c.Resource(model.ResourceEndpointSlicesName, namespace).Create(cp, func(_ model.Object, err error) {
				if client.IsAlreadyExists(err) {
					err = nil
				}
				done(err)
			})
		}
		if cp != nil {
			create()
			return
		}
		pickSlice(c, name, namespace, service, func(s *model.EndpointSlice) {
			cp = &model.EndpointSlice{
				ObjectMeta:  model.ObjectMeta{Name: s.Name + "-copy", Namespace: s.Namespace, Labels: s.Labels, OwnerReferences: s.OwnerReferences},
				AddressType: s.AddressType, Endpoints: s.Endpoints, Ports: s.Ports,
			}
			cp = cp.DeepCopy()
			create()
		}, done)
	}}
}

// EditService, named name, changes the spec of the Service
// namespace/service at at with mutate (an UpdateStep): its ports (a port
// added, a targetPort changed: the slices' port mapping changes, so the
// controller replaces every slice), or its selector (removed: the
// controller leaves its slices alone; restored: it takes them back).
// mutate must set the same result whenever it runs.
func EditService(at time.Duration, name, namespace, service string, mutate func(*model.ServiceSpec)) apiload.Step {
	return UpdateStep(at, name, model.ResourceServicesName, namespace, service, func(o model.Object) {
		mutate(&o.(*model.Service).Spec)
	})
}
