package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// The node authorizer's identities and namespace, repeated from the
// kubelet's conventions.
const (
	policyNodePrefix  = "system:node:"
	policyNodeLeaseNS = "kube-node-lease"
)

// forbidWrite judges an admitted write: "" when the node rules or the
// policy allow it, otherwise why not.
func (c *Access) forbidWrite(d *apitrace.Admit) string {
	ns, name := d.Namespace, d.Key
	if n, rest, ok := strings.Cut(d.Key, "/"); ok {
		ns, name = n, rest
	}
	why := "no rule of the policy allows it"
	if node, ok := strings.CutPrefix(d.User, policyNodePrefix); ok {
		if d.Resource == "pods" && slices.Contains([]string{"update", "update-status", "patch", "delete"}, d.Verb) {
			bound := d.NodeName == node
			if d.Verb == "delete" {
				bound = bound && (d.OldNode == "" || d.OldNode == node)
			} else {
				bound = bound && d.OldNode == node
			}
			if !bound {
				return fmt.Sprintf("node restriction: node %q may only write pods bound to it (pod's node %q, stored %q)", node, d.NodeName, d.OldNode)
			}
		}
		if why = nodeRule(node, d.Verb, d.Resource, ns, name); why == "" {
			return ""
		}
	}
	if c.policyGrants(d.User, d.Verb, d.Group, d.Resource, ns, name) {
		return ""
	}
	return why
}

// nodeRule is the Node authorizer's allow of a kubelet's write: "" when
// allowed, otherwise why not.
func nodeRule(node, verb, resource, ns, name string) string {
	switch resource {
	case "nodes":
		if name != node {
			return fmt.Sprintf("node %q may write only its own Node, not %q", node, name)
		}
		if slices.Contains([]string{"create", "update", "update-status", "patch"}, verb) {
			return ""
		}
		return fmt.Sprintf("node %q may not %s its Node", node, verb)
	case "pods":
		if verb == "update-status" || verb == "delete" {
			return ""
		}
		return fmt.Sprintf("node %q may only update the status of or delete pods", node)
	case "leases":
		if ns == policyNodeLeaseNS && name == node && (verb == "create" || verb == "update") {
			return ""
		}
		return fmt.Sprintf("node %q may only create and update its own Lease in kube-node-lease", node)
	}
	return fmt.Sprintf("node %q may not write %s", node, resource)
}

// policyGrants is the check's own reading of an RBAC policy: the write
// (an apiwire verb; update-status is "update" of the subresource status,
// bind "create" of binding, and a create names no object, as the real
// authorizer's attributes) is granted when one rule of a role bound to the
// user, by a ClusterRoleBinding or a RoleBinding of the namespace, covers
// its verb, API group, resource and name. It is written apart from package
// rbac's evaluation, which the API servers run, so that one checks the
// other; only group membership (rbac.Policy.InGroup, the authenticators'
// part) is shared.
func (c *Access) policyGrants(user, verb, group, resource, ns, name string) bool {
	sub := ""
	switch verb {
	case "update-status":
		verb, sub = "update", "status"
	case "bind":
		verb, sub = "create", "binding"
	case "create":
		name = ""
	}
	if sub != "" {
		resource += "/" + sub
	}
	p := c.opts.Policy
	covers := func(rules []rbac.Rule) bool {
		for _, r := range rules {
			has := func(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }
			resOK := has(r.Resources, resource) || (sub != "" && slices.Contains(r.Resources, "*/"+sub))
			nameOK := len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)
			if has(r.Verbs, verb) && has(r.APIGroups, group) && resOK && nameOK {
				return true
			}
		}
		return false
	}
	bound := func(subjects []rbac.Subject, bindingNS string) bool {
		for _, s := range subjects {
			saNS := s.Namespace
			if saNS == "" {
				saNS = bindingNS
			}
			switch {
			case s.Kind == rbac.KindUser && s.Name == user,
				s.Kind == rbac.KindGroup && p.InGroup(user, s.Name),
				s.Kind == rbac.KindServiceAccount && saNS != "" && user == "system:serviceaccount:"+saNS+":"+s.Name:
				return true
			}
		}
		return false
	}
	clusterRole := func(n string) []rbac.Rule {
		for _, r := range p.ClusterRoles {
			if r.Name == n {
				return r.Rules
			}
		}
		return nil
	}
	for _, b := range p.ClusterRoleBindings {
		if bound(b.Subjects, "") && covers(clusterRole(b.ClusterRole)) {
			return true
		}
	}
	for _, b := range p.RoleBindings {
		if ns == "" || b.Namespace != ns || !bound(b.Subjects, ns) {
			continue
		}
		rules := clusterRole(b.RoleRef.Name)
		if b.RoleRef.Kind == rbac.KindRole {
			rules = nil
			for _, r := range p.Roles {
				if r.Namespace == ns && r.Name == b.RoleRef.Name {
					rules = r.Rules
				}
			}
		} else if b.RoleRef.Kind != rbac.KindClusterRole {
			rules = nil
		}
		if covers(rules) {
			return true
		}
	}
	return false
}
