package scenarios

import (
	"maps"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
)

// workloadNamespace is where the operator keeps the full-stack workloads.
const workloadNamespace = "default"

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
}

// podTemplate is the template of app's pods, labelled app=<app>.
func podTemplate(app string, s AppSpec) model.PodTemplateSpec {
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
	return model.PodTemplateSpec{
		ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": app}, Annotations: ann},
		Spec: model.PodSpec{Containers: []model.Container{{
			Name: app, Image: "registry.example/" + app + ":1",
			Resources:      model.ResourceRequirements{Requests: model.ResourceListOf("cpu", s.CPU, "memory", s.Memory)},
			LivenessProbe:  s.Liveness,
			ReadinessProbe: s.Readiness,
			StartupProbe:   s.Startup,
		}}},
	}
}

// newReplicaSet is a ReplicaSet of replicas pods of app.
func newReplicaSet(app string, replicas int32, s AppSpec) *model.ReplicaSet {
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: app, Namespace: workloadNamespace},
		Spec: model.ReplicaSetSpec{Replicas: &replicas,
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: podTemplate(app, s)},
	}
}

// newDeployment is a Deployment of replicas pods of app (RollingUpdate,
// 25%/25%, the defaults).
func newDeployment(app string, replicas int32, s AppSpec) *model.Deployment {
	return &model.Deployment{
		ObjectMeta: model.ObjectMeta{Name: app, Namespace: workloadNamespace},
		Spec: model.DeploymentSpec{Replicas: &replicas,
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: podTemplate(app, s)},
	}
}

// createStep creates obj at at; AlreadyExists counts as done (a retried
// create whose first attempt went through).
func createStep(at time.Duration, obj model.Object) apiload.Step {
	res := model.ResourceOf(obj).Name
	return apiload.Step{At: at, Name: "create-" + res + "-" + obj.GetObjectMeta().Name, Do: func(c *client.Client, done func(error)) {
		c.Resource(res, obj.GetObjectMeta().Namespace).Create(obj, func(_ model.Object, err error) {
			if client.IsAlreadyExists(err) {
				err = nil
			}
			done(err)
		})
	}}
}

// updateStep changes an object at at: a quorum read, mutate, and an
// update conditional on what was read, under RetryOnConflict.
func updateStep(at time.Duration, name, resource, namespace, object string, mutate func(model.Object)) apiload.Step {
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

// deleteStep deletes an object at at; NotFound counts as done.
func deleteStep(at time.Duration, resource, namespace, object string) apiload.Step {
	return apiload.Step{At: at, Name: "delete-" + resource + "-" + object, Do: func(c *client.Client, done func(error)) {
		c.Resource(resource, namespace).Delete(object, client.DeleteOptions{}, func(_ model.Object, err error) {
			if client.IsNotFound(err) {
				err = nil
			}
			done(err)
		})
	}}
}

// scaleReplicaSet returns a step that sets a ReplicaSet's spec.replicas.
func scaleReplicaSet(at time.Duration, name string, replicas int32) apiload.Step {
	return updateStep(at, "scale-"+name, model.ResourceReplicaSetsName, workloadNamespace, name, func(o model.Object) {
		r := replicas
		o.(*model.ReplicaSet).Spec.Replicas = &r
	})
}

// rollDeployment returns a step that changes a Deployment's pod template
// (a new image), starting a rolling update.
func rollDeployment(at time.Duration, name, image string) apiload.Step {
	return updateStep(at, "roll-"+name, model.ResourceDeploymentsName, workloadNamespace, name, func(o model.Object) {
		d := o.(*model.Deployment)
		for i := range d.Spec.Template.Spec.Containers {
			d.Spec.Template.Spec.Containers[i].Image = image
		}
	})
}
