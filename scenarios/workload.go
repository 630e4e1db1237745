package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
)

// This file is the full stack's workload vocabulary: the objects an
// operator's script declares (NewReplicaSet, NewDeployment) and the steps
// it takes (CreateStep, UpdateStep, DeleteStep, the scale and roll steps,
// WaitFor). Each step is an apiload.Step: tried at its time, and again
// after apiload.ScriptRetry while it fails, so every one is idempotent.

// WorkloadNamespace is where NewReplicaSet and NewDeployment put their
// objects, and where the catalogue's scripts keep their workloads. Set an
// object's Namespace to put it elsewhere.
const WorkloadNamespace = "default"

// ErrNotYet is what a WaitFor or WaitForList step fails with while its
// condition does not hold, so that the script tries it again.
var ErrNotYet = errors.New("condition does not hold yet")

// AppSpec describes the simulated application of a workload: what it
// requests, how it behaves (the kubelet's kubesim.io annotations) and how
// it is probed.
type AppSpec struct {
	CPU, Memory string
	// Annotations drive the simulated application (kubelet.Annotation*).
	Annotations map[string]string
	Liveness    *model.Probe
	Readiness   *model.Probe
	Startup     *model.Probe
	// PreStopSleep, when set, gives the container a preStop hook that
	// sleeps this many seconds before SIGTERM (corev1 LifecycleHandler
	// Sleep): the pod keeps serving while kube-proxy catches up.
	PreStopSleep *int64
	// GracePeriod is the pod's terminationGracePeriodSeconds (default
	// 30).
	GracePeriod *int64
}

// PodTemplate is the pod template of app: labelled app=<app>, one
// container "registry.example/<app>:1" requesting s's CPU and memory
// (default 250m and 256Mi) with s's probes, and s's annotations, which the
// kubelet reads to simulate the application.
func PodTemplate(app string, s AppSpec) model.PodTemplateSpec {
	if s.CPU == "" {
		s.CPU = "250m"
	}
	if s.Memory == "" {
		s.Memory = "256Mi"
	}
	ann := maps.Clone(s.Annotations)
	if ann == nil {
		ann = map[string]string{}
	}
	c := model.Container{
		Name: app, Image: "registry.example/" + app + ":1",
		Resources:      model.ResourceRequirements{Requests: model.ResourceListOf("cpu", s.CPU, "memory", s.Memory)},
		LivenessProbe:  s.Liveness,
		ReadinessProbe: s.Readiness,
		StartupProbe:   s.Startup,
	}
	if s.PreStopSleep != nil {
		c.Lifecycle = &model.Lifecycle{PreStop: &model.LifecycleHandler{Sleep: &model.SleepAction{Seconds: *s.PreStopSleep}}}
	}
	return model.PodTemplateSpec{
		ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": app}, Annotations: ann},
		Spec:       model.PodSpec{Containers: []model.Container{c}, TerminationGracePeriodSeconds: s.GracePeriod},
	}
}

// NewReplicaSet is a ReplicaSet named app in WorkloadNamespace of replicas
// pods of PodTemplate(app, s), selected by app=<app>: what the controller
// manager's ReplicaSet controller keeps running.
func NewReplicaSet(app string, replicas int32, s AppSpec) *model.ReplicaSet {
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: app, Namespace: WorkloadNamespace},
		Spec: model.ReplicaSetSpec{Replicas: &replicas,
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: PodTemplate(app, s)},
	}
}

// NewDeployment is a Deployment of the name, replicas, selector and pod
// template of NewReplicaSet's, with the default strategy (RollingUpdate,
// 25% surge and unavailable): the Deployment controller makes its
// ReplicaSets, which make the pods.
func NewDeployment(app string, replicas int32, s AppSpec) *model.Deployment {
	rs := NewReplicaSet(app, replicas, s)
	return &model.Deployment{ObjectMeta: rs.ObjectMeta,
		Spec: model.DeploymentSpec{Replicas: rs.Spec.Replicas, Selector: rs.Spec.Selector, Template: rs.Spec.Template}}
}

// NewService is a Service named app in WorkloadNamespace selecting
// app=<app> on port (the pods' port too): a ClusterIP Service, whose IP
// the API server allocates and whose EndpointSlices the controller
// manager's EndpointSlice controller keeps.
func NewService(app string, port int32) *model.Service {
	return &model.Service{
		ObjectMeta: model.ObjectMeta{Name: app, Namespace: WorkloadNamespace},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": app},
			Ports: []model.ServicePort{{Name: "http", Port: port}}},
	}
}

// CreateStep creates obj, of a built-in kind, in its namespace at at;
// AlreadyExists counts as done (a retried create whose first attempt went
// through). A custom object's resource is its definition's: create it with
// CreateCustomStep; given one, this step fails every attempt saying so.
func CreateStep(at time.Duration, obj model.Object) apiload.Step {
	res, ok := model.ResourceForKind(obj.Kind())
	if _, custom := obj.(*model.CustomObject); custom || !ok {
		name := "create-" + strings.ToLower(obj.Kind()) + "-" + obj.GetObjectMeta().Name
		return apiload.Step{At: at, Name: name, Do: func(_ *client.Client, done func(error)) {
			done(fmt.Errorf("%s: kind %s is not built in: create it with CreateCustomStep and its definition", name, obj.Kind()))
		}}
	}
	return createAs(at, res.Name, obj)
}

// CreateCustomStep creates obj, an object of the custom kind def (see
// model.NewCustomObject), at at, as CreateStep does a built-in one. The
// API servers must serve def (StackTopology.Custom, APITopology.Custom).
func CreateCustomStep(at time.Duration, def model.CustomResourceDefinition, obj *model.CustomObject) apiload.Step {
	return createAs(at, def.Plural, obj)
}

// createAs is the create step of obj under resource.
func createAs(at time.Duration, resource string, obj model.Object) apiload.Step {
	return apiload.Step{At: at, Name: "create-" + resource + "-" + obj.GetObjectMeta().Name, Do: func(c *client.Client, done func(error)) {
		c.Resource(resource, obj.GetObjectMeta().Namespace).Create(obj, func(_ model.Object, err error) {
			if client.IsAlreadyExists(err) {
				err = nil
			}
			done(err)
		})
	}}
}

// UpdateStep, named name, changes object (of resource, in namespace) at
// at: a quorum read, mutate on a copy, and an update conditional on what
// was read, under RetryOnConflict, as a client-go user changes an object.
// mutate must set the same result whenever it runs (it runs again on a
// conflict or a retried step).
func UpdateStep(at time.Duration, name, resource, namespace, object string, mutate func(model.Object)) apiload.Step {
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		rc := c.Resource(resource, namespace)
		c.RetryOnConflict(client.DefaultRetry, func(try func(error)) {
			rc.Get(object, client.GetOptions{}, func(obj model.Object, err error) {
				if err != nil {
					try(err)
					return
				}
				obj = obj.DeepCopyObject()
				mutate(obj)
				rc.Update(obj, func(_ model.Object, err error) { try(err) })
			})
		}, done)
	}}
}

// DeleteStep deletes object (of resource, in namespace) at at; NotFound
// counts as done. Its dependents (ownerReferences) are then the garbage
// collector's, which deletes them in the background.
func DeleteStep(at time.Duration, resource, namespace, object string) apiload.Step {
	return apiload.Step{At: at, Name: "delete-" + resource + "-" + object, Do: func(c *client.Client, done func(error)) {
		c.Resource(resource, namespace).Delete(object, client.DeleteOptions{}, func(_ model.Object, err error) {
			if client.IsNotFound(err) {
				err = nil
			}
			done(err)
		})
	}}
}

// ScaleReplicaSet sets the spec.replicas of the ReplicaSet namespace/name
// at at (an UpdateStep named "scale-<name>").
func ScaleReplicaSet(at time.Duration, namespace, name string, replicas int32) apiload.Step {
	return UpdateStep(at, "scale-"+name, model.ResourceReplicaSetsName, namespace, name, func(o model.Object) {
		r := replicas
		o.(*model.ReplicaSet).Spec.Replicas = &r
	})
}

// ScaleDeployment sets the spec.replicas of the Deployment namespace/name
// at at (an UpdateStep named "scale-<name>"); the Deployment controller
// then scales its ReplicaSets.
func ScaleDeployment(at time.Duration, namespace, name string, replicas int32) apiload.Step {
	return UpdateStep(at, "scale-"+name, model.ResourceDeploymentsName, namespace, name, func(o model.Object) {
		r := replicas
		o.(*model.Deployment).Spec.Replicas = &r
	})
}

// RollDeployment sets the image of every container of the Deployment
// namespace/name's pod template at at (an UpdateStep named
// "roll-<name>"), which starts a rolling update to a new ReplicaSet.
func RollDeployment(at time.Duration, namespace, name, image string) apiload.Step {
	return UpdateStep(at, "roll-"+name, model.ResourceDeploymentsName, namespace, name, func(o model.Object) {
		d := o.(*model.Deployment)
		for i := range d.Spec.Template.Spec.Containers {
			d.Spec.Template.Spec.Containers[i].Image = image
		}
	})
}

// WaitFor, named name, reads object (of resource, in namespace) with a
// quorum get from at on, and succeeds once cond holds for it; until then
// it fails with ErrNotYet and the script tries it again after
// apiload.ScriptRetry, so the steps after it wait. An object that does not
// exist (NotFound) has not met the condition yet. cond must not keep or
// change the object.
func WaitFor(at time.Duration, name, resource, namespace, object string, cond func(model.Object) bool) apiload.Step {
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		c.Resource(resource, namespace).Get(object, client.GetOptions{}, func(obj model.Object, err error) {
			switch {
			case client.IsNotFound(err):
				done(fmt.Errorf("%s: %s %s/%s does not exist: %w", name, resource, namespace, object, ErrNotYet))
			case err != nil:
				done(err)
			case !cond(obj):
				done(fmt.Errorf("%s: %s %s/%s: %w", name, resource, namespace, object, ErrNotYet))
			default:
				done(nil)
			}
		})
	}}
}

// WaitForList, named name, lists resource in namespace ("" for all
// namespaces, or a cluster-scoped resource) with a quorum list, filtered
// by the label selector (e.g. "app=web"; "" for all), from at on, and
// succeeds once cond holds for the items; until then it fails with
// ErrNotYet, as WaitFor. cond must not keep or change the items.
func WaitForList(at time.Duration, name, resource, namespace, selector string, cond func([]model.Object) bool) apiload.Step {
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		c.Resource(resource, namespace).List(client.ListOptions{LabelSelector: selector}, func(l *client.ObjectList, err error) {
			switch {
			case err != nil:
				done(err)
			case !cond(l.Items):
				done(fmt.Errorf("%s: %d %s in %q (%q): %w", name, len(l.Items), resource, namespace, selector, ErrNotYet))
			default:
				done(nil)
			}
		})
	}}
}

// LabelQuarantinedFrom marks a pod QuarantinePod took out of its app; its
// value is the app.
const LabelQuarantinedFrom = "quarantined-from"

// QuarantinePod, at at, takes one pod of app (label app=<app>) in
// namespace out of its Service and its controller, as an operator does to
// debug a misbehaving pod: the pod that sorts first by name loses its app
// label and gets quarantined-from=<app>. Its ReplicaSet releases it and
// creates a replacement, the EndpointSlice controller drops its endpoint,
// and the pod keeps running, an orphan. It is done once: a retried or
// restarted step that finds a quarantined pod does nothing more.
func QuarantinePod(at time.Duration, namespace, app string) apiload.Step {
	return apiload.Step{At: at, Name: "quarantine-" + app, Do: func(c *client.Client, done func(error)) {
		rc := c.Resource(model.ResourcePodsName, namespace)
		rc.List(client.ListOptions{LabelSelector: LabelQuarantinedFrom + "=" + app}, func(l *client.ObjectList, err error) {
			if err != nil || len(l.Items) > 0 {
				done(err) // an error, or done already
				return
			}
			rc.List(client.ListOptions{LabelSelector: "app=" + app}, func(l *client.ObjectList, err error) {
				if err != nil {
					done(err)
					return
				}
				names := make([]string, 0, len(l.Items))
				for _, o := range l.Items {
					names = append(names, o.GetObjectMeta().Name)
				}
				if len(names) == 0 {
					done(fmt.Errorf("quarantine-%s: no pod of %s in %q: %w", app, app, namespace, ErrNotYet))
					return
				}
				slices.Sort(names)
				UpdateStep(at, "quarantine-"+app, model.ResourcePodsName, namespace, names[0], func(o model.Object) {
					m := o.GetObjectMeta()
					labels := maps.Clone(m.Labels)
					delete(labels, "app")
					if labels == nil {
						labels = map[string]string{}
					}
					labels[LabelQuarantinedFrom] = app
					m.Labels = labels
				}).Do(c, done)
			})
		})
	}}
}
