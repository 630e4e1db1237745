package catalogue

import (
	"maps"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/scenarios"
)

// The operator's ownership steps: objects that overlap, orphans, and
// owners replaced under their dependents.

// newCanary is a ReplicaSet of app's pods also labelled track=canary,
// selected by both labels: its pods match app's selector too (selectors
// that overlap, as a canary beside its main ReplicaSet).
func newCanary(app string, replicas int32, s scenarios.AppSpec) *model.ReplicaSet {
	rs := scenarios.NewReplicaSet(app, replicas, s)
	canary(&rs.ObjectMeta, rs.Spec.Selector, &rs.Spec.Template)
	return rs
}

// newCanaryDeployment is newCanary's Deployment.
func newCanaryDeployment(app string, replicas int32, s scenarios.AppSpec) *model.Deployment {
	d := scenarios.NewDeployment(app, replicas, s)
	canary(&d.ObjectMeta, d.Spec.Selector, &d.Spec.Template)
	return d
}

// canary makes a workload of app (its name, selector and pod template)
// app's canary: named <app>-canary, and selecting and labelling its pods
// track=canary too.
func canary(meta *model.ObjectMeta, sel *model.LabelSelector, t *model.PodTemplateSpec) {
	meta.Name += "-canary"
	sel.MatchLabels["track"] = "canary"
	t.Labels["track"] = "canary"
}

// barePod is a pod with labels and no owner, as an operator creates by
// hand: an orphan that any controller whose selector matches may adopt.
func barePod(name string, labels map[string]string) *model.Pod {
	t := scenarios.PodTemplate(labels["app"], scenarios.AppSpec{})
	t.Labels = maps.Clone(labels)
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: scenarios.WorkloadNamespace, Labels: t.Labels, Annotations: t.Annotations},
		Spec: t.Spec}
}

// relabelPod takes the first pod (by name) that selector matches, that
// has a controller and is not being deleted, and sets its labels to
// labels, as an operator takes a pod out of its ReplicaSet to debug it:
// the ReplicaSet releases it and replaces it.
func relabelPod(at time.Duration, selector string, labels map[string]string) apiload.Step {
	return apiload.Step{At: at, Name: "relabel-" + selector, Do: func(c *client.Client, done func(error)) {
		pods := c.Pods(scenarios.WorkloadNamespace)
		c.RetryOnConflict(client.DefaultRetry, func(try func(error)) {
			pods.List(client.ListOptions{LabelSelector: selector}, func(l *client.ObjectList, err error) {
				if err != nil {
					try(err)
					return
				}
				var pick *model.Pod
				for _, obj := range l.Items {
					p := obj.(*model.Pod)
					if p.DeletionTimestamp == nil && model.GetControllerOf(p) != nil && (pick == nil || p.Name < pick.Name) {
						pick = p
					}
				}
				if pick == nil {
					try(nil) // nothing to take out
					return
				}
				p := pick.DeepCopy()
				p.Labels = maps.Clone(labels)
				pods.Update(p, func(_ model.Object, err error) { try(err) })
			})
		}, done)
	}}
}

// replaceDeployment deletes a Deployment and creates it again at once
// (kubectl replace --force): a new UID under the old name, while the old
// one's ReplicaSet and pods still run until the garbage collector deletes
// them.
func replaceDeployment(at time.Duration, d *model.Deployment) apiload.Step {
	return apiload.Step{At: at, Name: "replace-deployment-" + d.Name, Do: func(c *client.Client, done func(error)) {
		deps := c.Deployments(d.Namespace)
		deps.Delete(d.Name, client.DeleteOptions{}, func(_ model.Object, err error) {
			if err != nil && !client.IsNotFound(err) {
				done(err)
				return
			}
			deps.Create(d, func(_ model.Object, err error) {
				if client.IsAlreadyExists(err) {
					err = nil // a retried step whose create went through
				}
				done(err)
			})
		})
	}}
}
