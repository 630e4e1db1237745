package apiserver

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// The identities the tests name.
const (
	userScheduler         = rbac.UserScheduler
	userControllerManager = rbac.UserControllerManager
	nodeUserPrefix        = rbac.NodeUserPrefix
)

// The authorizers that refuse, as apitrace.Forbidden.By names them.
const (
	byRBAC            = "RBAC"
	byNodeRestriction = "NodeRestriction"
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

// attributes are what the authorizer sees of a request, as k8s.io/apiserver
// builds authorizer.Attributes from the URL (pkg/endpoints/filters/
// authorization.go, GetAuthorizerAttributes): update-status is "update" of
// the subresource "status", bind is "create" of "binding", and create
// names no object (a POST names the collection).
func attributes(req *apiwire.Request, res resourceInfo) rbac.Attributes {
	a := rbac.Attributes{User: req.User, Verb: string(req.Verb), APIGroup: res.Group, Resource: res.Name,
		Subresource: subresource(req.Verb), Namespace: requestNamespace(req, res), Name: requestName(req)}
	switch req.Verb {
	case apiwire.VerbUpdateStatus:
		a.Verb = "update"
	case apiwire.VerbBind:
		a.Verb = "create"
	case apiwire.VerbCreate, apiwire.VerbList, apiwire.VerbWatch:
		a.Name = ""
	}
	return a
}

// authorize chains the authorizers as kube-apiserver's
// --authorization-mode=Node,RBAC does (the union authorizer: the first
// allow wins, a refusal is every authorizer's lack of one): the Node
// authorizer, code, for kubelets; then the policy (Config.Policy). A
// refusal is traced (apitrace.Forbidden) and answered 403.
func (s *Server) authorize(req *apiwire.Request, res resourceInfo) *apiwire.Status {
	if s.cfg.Ablations.Has(ablation.SkipAuthz) || nodeAuthorized(req, res) {
		return nil
	}
	a := attributes(req, res)
	if ok, _ := s.cfg.Policy.Allows(a); ok {
		return nil
	}
	st := forbidden(a, res)
	s.traceForbidden(req, res, byRBAC, st)
	return st
}

// nodeAuthorized is the Node authorizer's allow, for a kubelet
// ("system:node:<n>"): read pods and nodes, update the status of and
// delete pods (NodeRestriction then limits both to its own pods), create,
// update, update the status of and patch its own Node, and get, create and
// update its own Lease in kube-node-lease. It has no opinion on anything
// else, which the policy then decides.
func nodeAuthorized(req *apiwire.Request, res resourceInfo) bool {
	node, ok := strings.CutPrefix(req.User, nodeUserPrefix)
	if !ok {
		return false
	}
	v, ns, name := req.Verb, requestNamespace(req, res), requestName(req)
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
	return false
}

// forbidden is 403 with the real authorizer's message
// (k8s.io/apiserver, pkg/endpoints/handlers/responsewriters/errors.go,
// ForbiddenStatusError and forbiddenMessage), e.g. `pods "x" is
// forbidden: User "bob" cannot update resource "pods" in API group "" in
// the namespace "default"`; the object is named only when the attributes
// name it (not for create, list or watch).
func forbidden(a rbac.Attributes, res resourceInfo) *apiwire.Status {
	subject := qualified(res)
	if a.Name != "" {
		subject = fmt.Sprintf("%s %q", subject, a.Name)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	scope := "at the cluster scope"
	if a.Namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", a.Namespace)
	}
	return errStatus(403, apiwire.ReasonForbidden, "%s is forbidden: User %q cannot %s resource %q in API group %q %s",
		subject, a.User, a.Verb, resource, a.APIGroup, scope)
}

// traceForbidden emits apitrace.Forbidden for a refused request.
func (s *Server) traceForbidden(req *apiwire.Request, res resourceInfo, by string, st *apiwire.Status) {
	s.h.Emit(&apitrace.Forbidden{Server: s.cfg.Name, User: req.User, Verb: string(req.Verb), Group: res.Group,
		Resource: res.Name, Namespace: requestNamespace(req, res), Name: requestName(req), By: by, Message: st.Message})
}

// nodeRestriction is the NodeRestriction admission plugin for pods: a
// kubelet may update the status of, or delete, only pods bound to its node
// (stored is the pod as stored). A refusal is traced.
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
	st := errStatus(403, apiwire.ReasonForbidden, "pods %q is forbidden: node %q can only %s pods with spec.nodeName set to itself",
		pod.Name, node, what)
	s.traceForbidden(req, res, byNodeRestriction, st)
	return st
}
