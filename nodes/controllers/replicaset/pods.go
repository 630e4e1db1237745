package replicaset

import (
	"errors"

	"github.com/kubesim/kubesim/model"
)

// maxNameLength is a DNS-1123 subdomain's.
const maxNameLength = 253

// errNoLabels is RealPodControl's refusal of a template without labels.
var errNoLabels = errors.New("unable to create pods, no labels")

// podFromTemplate builds a pod of rs, as controller.GetPodFromTemplate: the
// template's labels, annotations, finalizers and spec, the generated name
// "<rs>-", rs's namespace, and a controllerRef to rs (controller and
// blockOwnerDeletion true, rs's UID).
func podFromTemplate(rs *model.ReplicaSet) *model.Pod {
	t := &rs.Spec.Template
	pod := &model.Pod{}
	var meta model.ObjectMeta
	t.ObjectMeta.DeepCopyInto(&meta)
	pod.Labels, pod.Annotations, pod.Finalizers = meta.Labels, meta.Annotations, meta.Finalizers
	pod.Namespace = rs.Namespace
	pod.GenerateName = rs.Name + "-"
	if len(pod.GenerateName) > maxNameLength {
		pod.GenerateName = rs.Name // getPodsPrefix: the name itself when "<name>-" is no valid prefix
	}
	pod.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(rs, model.KindReplicaSet)}
	t.Spec.DeepCopyInto(&pod.Spec)
	return pod
}

// createPod creates one pod of rs.
func (c *Controller) createPod(rs *model.ReplicaSet, done func(error)) {
	pod := podFromTemplate(rs)
	if len(pod.Labels) == 0 {
		c.ctx.Host.After(0, "replicaset-create-refused", func() { done(errNoLabels) })
		return
	}
	c.ctx.Client.Pods(rs.Namespace).Create(pod, func(_ model.Object, err error) { done(err) })
}
