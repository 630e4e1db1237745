package apiserver

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiwire"
)

// The identities with roles.
const (
	userAdmin             = "admin"
	userScheduler         = "system:kube-scheduler"
	userControllerManager = "system:kube-controller-manager"
	nodeUserPrefix        = "system:node:"
	systemNamespace       = "kube-system"
)

// isRead reports a read-only verb.
func isRead(v apiwire.Verb) bool {
	return v == apiwire.VerbGet || v == apiwire.VerbList || v == apiwire.VerbWatch
}

// requestName is the name a request targets: its Name, or for create the
// object's name.
func requestName(req *apiwire.Request) string {
	if req.Name == "" && req.Object != nil {
		return req.Object.GetObjectMeta().Name
	}
	return req.Name
}

// requestNamespace is the namespace a request targets.
func requestNamespace(req *apiwire.Request, res resourceInfo) string {
	if !res.Namespaced {
		return ""
	}
	if req.Namespace == "" && req.Object != nil {
		return req.Object.GetObjectMeta().Namespace
	}
	return req.Namespace
}

// authorize is the RBAC-like authorizer. It decides on verb, resource,
// namespace and name only; the node restriction on pods, which needs the
// stored object, is nodeRestriction.
func (s *Server) authorize(req *apiwire.Request, res resourceInfo) *apiwire.Status {
	if s.cfg.Ablations.Has(ablation.SkipAuthz) || allowed(req, res) {
		return nil
	}
	return forbidden(req, res)
}

// allowed applies the roles.
func allowed(req *apiwire.Request, res resourceInfo) bool {
	v, user := req.Verb, req.User
	ns, name := requestNamespace(req, res), requestName(req)
	switch {
	case user == userAdmin:
		return true
	case user == userScheduler:
		switch {
		case isRead(v):
			return true
		case res.Name == model.ResourcePodsName:
			return v == apiwire.VerbBind || v == apiwire.VerbUpdateStatus
		case res.Name == model.ResourceLeasesName:
			return ns == systemNamespace && (v == apiwire.VerbCreate || v == apiwire.VerbUpdate)
		}
	case user == userControllerManager:
		switch res.Name {
		case model.ResourcePodsName, model.ResourceReplicaSetsName, model.ResourceDeploymentsName, model.ResourceLeasesName:
			return true
		case model.ResourceNodesName:
			return isRead(v) || v == apiwire.VerbUpdate || v == apiwire.VerbUpdateStatus ||
				v == apiwire.VerbPatch || v == apiwire.VerbDelete
		}
	case strings.HasPrefix(user, nodeUserPrefix):
		node := strings.TrimPrefix(user, nodeUserPrefix)
		switch res.Name {
		case model.ResourcePodsName:
			return isRead(v) || v == apiwire.VerbUpdateStatus || v == apiwire.VerbDelete
		case model.ResourceNodesName:
			if isRead(v) {
				return true
			}
			own := name == node
			return own && (v == apiwire.VerbCreate || v == apiwire.VerbUpdate || v == apiwire.VerbUpdateStatus || v == apiwire.VerbPatch)
		case model.ResourceLeasesName:
			return ns == model.NodeLeaseNamespace && name == node &&
				(v == apiwire.VerbGet || v == apiwire.VerbCreate || v == apiwire.VerbUpdate)
		}
	}
	return false
}

// rbacVerb is the verb and resource as RBAC names them: update-status is
// "update" on "pods/status", bind is "create" on "pods/binding".
func rbacVerb(v apiwire.Verb, resource string) (string, string) {
	switch v {
	case apiwire.VerbUpdateStatus:
		return "update", resource + "/status"
	case apiwire.VerbBind:
		return "create", resource + "/binding"
	}
	return string(v), resource
}

// forbidden is 403 with the real authorizer's message, e.g.
// `pods "x" is forbidden: User "bob" cannot update resource "pods" in API
// group "" in the namespace "default"`.
func forbidden(req *apiwire.Request, res resourceInfo) *apiwire.Status {
	verb, resource := rbacVerb(req.Verb, res.Name)
	subject := qualified(res)
	if name := requestName(req); name != "" {
		subject = fmt.Sprintf("%s %q", subject, name)
	}
	scope := "at the cluster scope"
	if ns := requestNamespace(req, res); ns != "" {
		scope = fmt.Sprintf("in the namespace %q", ns)
	}
	return errStatus(403, apiwire.ReasonForbidden, "%s is forbidden: User %q cannot %s resource %q in API group %q %s",
		subject, req.User, verb, resource, res.Group, scope)
}

// nodeRestriction is the NodeRestriction admission plugin for pods: a
// kubelet may update the status of, or delete, only pods bound to its node
// (stored is the pod as stored).
func (s *Server) nodeRestriction(req *apiwire.Request, res resourceInfo, stored model.Object) *apiwire.Status {
	if s.cfg.Ablations.Has(ablation.SkipAuthz) || !strings.HasPrefix(req.User, nodeUserPrefix) || res.Name != model.ResourcePodsName {
		return nil
	}
	node := strings.TrimPrefix(req.User, nodeUserPrefix)
	pod, ok := stored.(*model.Pod)
	if !ok || pod.Spec.NodeName == node {
		return nil
	}
	what := "update pod status for"
	if req.Verb == apiwire.VerbDelete {
		what = "delete"
	}
	return errStatus(403, apiwire.ReasonForbidden, "pods %q is forbidden: node %q can only %s pods with spec.nodeName set to itself",
		pod.Name, node, what)
}
