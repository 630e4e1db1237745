package apiserver

import (
	"slices"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// ownedResources are the resources whose ownership writes are traced
// (apitrace.Owners).
var ownedResources = []string{model.ResourcePodsName, model.ResourceReplicaSetsName, model.ResourceDeploymentsName}

// traceOwners emits apitrace.Owners once etcd confirmed a write of a pod,
// ReplicaSet or Deployment from old (nil for a create) to obj (for a
// removal, the object removed) that created it, removed it, marked it for
// deletion, or changed its ownerReferences or labels.
func (c *call) traceOwners(old, obj model.Object, removed bool) {
	if !slices.Contains(ownedResources, c.res.Name) {
		return
	}
	m := obj.GetObjectMeta()
	e := &apitrace.Owners{Server: c.s.cfg.Name, Verb: string(c.req.Verb), Resource: c.res.Name,
		Key: traceKey(c.res, m.Namespace, m.Name), UID: string(m.UID), Owners: ownersText(m.OwnerReferences),
		Labels: model.SelectorFromSet(m.Labels).String(), Selector: selectorText(obj),
		Deleting: m.DeletionTimestamp != nil, Removed: removed}
	if old != nil {
		om := old.GetObjectMeta()
		e.OldOwners = ownersText(om.OwnerReferences)
		changed := removed || e.OldOwners != e.Owners || model.SelectorFromSet(om.Labels).String() != e.Labels ||
			(om.DeletionTimestamp == nil) != (m.DeletionTimestamp == nil)
		if !changed {
			return
		}
	}
	c.s.h.Emit(e)
}

// ownersText prints ownerReferences as "Kind/uid", the controller's
// followed by "*", comma-separated.
func ownersText(refs []model.OwnerReference) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.Kind + "/" + string(r.UID)
		if model.Deref(r.Controller, false) {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, ",")
}

// selectorText is a ReplicaSet's or Deployment's selector in its string
// form, "" for anything else.
func selectorText(obj model.Object) string {
	var ls *model.LabelSelector
	switch o := obj.(type) {
	case *model.ReplicaSet:
		ls = o.Spec.Selector
	case *model.Deployment:
		ls = o.Spec.Selector
	default:
		return ""
	}
	sel, err := ls.AsSelector()
	if err != nil {
		return ""
	}
	return sel.String()
}
