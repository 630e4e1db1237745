package rbac

import (
	"fmt"
	"slices"
)

// Allows reports whether the policy allows a request, and by which
// binding (a description for a reason; "" when refused). It visits the
// rules as the real rule resolver does (pkg/registry/rbac/validation/
// rule.go, VisitRulesFor): those of every ClusterRoleBinding whose subjects
// include the user, then, for a request in a namespace, those of that
// namespace's RoleBindings; the first rule that allows the request
// (RuleAllows) decides. A nil policy allows nothing.
func (p *Policy) Allows(a Attributes) (bool, string) {
	if p == nil {
		return false, ""
	}
	for i := range p.ClusterRoleBindings {
		b := &p.ClusterRoleBindings[i]
		if !p.appliesTo(a.User, b.Subjects, "") {
			continue
		}
		if RulesAllow(a, p.clusterRoleRules(b.ClusterRole)...) {
			return true, fmt.Sprintf("ClusterRoleBinding %q of ClusterRole %q", b.Name, b.ClusterRole)
		}
	}
	if a.Namespace == "" {
		return false, ""
	}
	for i := range p.RoleBindings {
		b := &p.RoleBindings[i]
		if b.Namespace != a.Namespace || !p.appliesTo(a.User, b.Subjects, b.Namespace) {
			continue
		}
		if RulesAllow(a, p.roleRefRules(b.RoleRef, b.Namespace)...) {
			return true, fmt.Sprintf("RoleBinding %q of %s %q", b.Namespace+"/"+b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
	}
	return false, ""
}

// appliesTo reports whether any subject of a binding in namespace ("" for
// a ClusterRoleBinding) is user (rule.go, appliesToUser): a User by name, a
// Group the user is in, a ServiceAccount by its user name, its namespace
// defaulting to the binding's.
func (p *Policy) appliesTo(user string, subjects []Subject, namespace string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case KindUser:
			if user == s.Name {
				return true
			}
		case KindGroup:
			if p.InGroup(user, s.Name) {
				return true
			}
		case KindServiceAccount:
			ns := namespace
			if s.Namespace != "" {
				ns = s.Namespace
			}
			if ns != "" && user == ServiceAccountUser(ns, s.Name) {
				return true
			}
		}
	}
	return false
}

// clusterRoleRules are a ClusterRole's rules; none when it does not exist
// (the real resolver reports an error and grants nothing).
func (p *Policy) clusterRoleRules(name string) []Rule {
	for i := range p.ClusterRoles {
		if p.ClusterRoles[i].Name == name {
			return p.ClusterRoles[i].Rules
		}
	}
	return nil
}

// roleRefRules resolves a RoleBinding's role in its namespace (rule.go,
// GetRoleReferenceRules).
func (p *Policy) roleRefRules(ref RoleRef, namespace string) []Rule {
	switch ref.Kind {
	case KindClusterRole:
		return p.clusterRoleRules(ref.Name)
	case KindRole:
		for i := range p.Roles {
			if r := &p.Roles[i]; r.Namespace == namespace && r.Name == ref.Name {
				return r.Rules
			}
		}
	}
	return nil
}

// RulesAllow reports whether any of rules allows a (rbac.go, RulesAllow).
func RulesAllow(a Attributes, rules ...Rule) bool {
	for i := range rules {
		if RuleAllows(a, &rules[i]) {
			return true
		}
	}
	return false
}

// RuleAllows reports whether one rule allows a resource request (rbac.go,
// RuleAllows): its verb, API group, resource (with the subresource, as
// "resource/subresource") and name all match.
func RuleAllows(a Attributes, r *Rule) bool {
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	return VerbMatches(r, a.Verb) && APIGroupMatches(r, a.APIGroup) &&
		ResourceMatches(r, combined, a.Subresource) && ResourceNameMatches(r, a.Name)
}

// VerbMatches: the rule lists the verb, or All (k8s.io/kubernetes,
// pkg/apis/rbac/v1/evaluation_helpers.go, VerbMatches).
func VerbMatches(r *Rule, verb string) bool {
	return slices.Contains(r.Verbs, All) || slices.Contains(r.Verbs, verb)
}

// APIGroupMatches: the rule lists the group, or All (evaluation_helpers.go,
// APIGroupMatches).
func APIGroupMatches(r *Rule, group string) bool {
	return slices.Contains(r.APIGroups, All) || slices.Contains(r.APIGroups, group)
}

// ResourceMatches: the rule lists All, the combined "resource/subresource"
// exactly, or, for a subresource, "*/subresource" (evaluation_helpers.go,
// ResourceMatches). "pods" does not cover "pods/status".
func ResourceMatches(r *Rule, combined, subresource string) bool {
	for _, res := range r.Resources {
		switch {
		case res == All, res == combined:
			return true
		case subresource != "" && res == "*/"+subresource:
			return true
		}
	}
	return false
}

// ResourceNameMatches: the rule lists no names, or the request's name
// (evaluation_helpers.go, ResourceNameMatches). A rule with names never
// allows list, watch or create, whose name is "".
func ResourceNameMatches(r *Rule, name string) bool {
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)
}
