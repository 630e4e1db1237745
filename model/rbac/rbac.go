// Package rbac is the API servers' authorization policy as data: roles,
// cluster roles and their bindings to users, groups and service accounts,
// evaluated as the real RBAC authorizer evaluates them (k8s.io/kubernetes,
// plugin/pkg/auth/authorizer/rbac/rbac.go, and the rule resolver of
// pkg/registry/rbac/validation/rule.go). A request is allowed when some
// rule that applies to its user in its namespace allows it; a refusal is
// only the absence of an allow: there are no deny rules.
//
// Default is the policy every scenario runs with: the kube-system
// identities (admin, the scheduler, the controller manager). A test starts
// from it and adds its own users and service accounts (Policy.Allow,
// BindClusterRole, BindRole), and hands it to the API servers
// (apiserver.Config.Policy) and the access check (checks.AccessOptions).
// Kubelets are authorized by code, not by this policy, as the real Node
// authorizer and NodeRestriction admission plugin are (package apiserver);
// the policy applies to them only where that code has no opinion.
//
// A policy is read, never changed, once the world runs; the package keeps
// no state and starts no work, so it is safe on a simulation path.
package rbac

import "strings"

// All matches every verb, API group or resource in a Rule (rbacv1.VerbAll,
// APIGroupAll, ResourceAll).
const All = "*"

// Rule is a PolicyRule: it allows each of Verbs on each of Resources in
// each of APIGroups, restricted to ResourceNames when that is not empty.
// A resource may name a subresource ("pods/status"), or every resource's
// subresource ("*/status"); the core group is "".
type Rule struct {
	Verbs         []string
	APIGroups     []string
	Resources     []string
	ResourceNames []string
}

// ClusterRole is a cluster-wide set of rules. A ClusterRoleBinding grants
// it everywhere; a RoleBinding grants it within the binding's namespace.
type ClusterRole struct {
	Name  string
	Rules []Rule
}

// Role is a set of rules of one namespace; only a RoleBinding of that
// namespace can grant it.
type Role struct {
	Namespace string
	Name      string
	Rules     []Rule
}

// The kinds of subjects and role references, as rbacv1 spells them.
const (
	KindUser           = "User"
	KindGroup          = "Group"
	KindServiceAccount = "ServiceAccount"
	KindRole           = "Role"
	KindClusterRole    = "ClusterRole"
)

// Subject is whom a binding grants its role: a user by name, a group, or a
// service account (Namespace/Name; in a RoleBinding an empty Namespace is
// the binding's).
type Subject struct {
	Kind      string
	Name      string
	Namespace string
}

// RoleRef names the role a binding grants: Kind is KindRole or
// KindClusterRole.
type RoleRef struct {
	Kind string
	Name string
}

// ClusterRoleBinding grants a ClusterRole to subjects in every namespace
// and at the cluster scope.
type ClusterRoleBinding struct {
	Name        string
	ClusterRole string
	Subjects    []Subject
}

// RoleBinding grants a Role of its namespace, or a ClusterRole, to
// subjects within its namespace only.
type RoleBinding struct {
	Namespace string
	Name      string
	RoleRef   RoleRef
	Subjects  []Subject
}

// Policy is the whole authorization policy: the roles and bindings the
// real API server would hold in rbac.authorization.k8s.io objects, and the
// groups each user belongs to beyond the implicit ones (see InGroup).
type Policy struct {
	ClusterRoles        []ClusterRole
	Roles               []Role
	ClusterRoleBindings []ClusterRoleBinding
	RoleBindings        []RoleBinding
	// Groups lists, per user, the groups its credentials carry, as an
	// authenticator reports them (a client certificate's organizations, a
	// token's groups).
	Groups map[string][]string
}

// Attributes are what the authorizer decides on, as
// k8s.io/apiserver's authorizer.Attributes of a resource request: the RBAC
// verb (get, list, watch, create, update, patch, delete), the API group,
// resource and subresource, the namespace ("" for a cluster-scoped
// resource or an all-namespace list) and the name ("" for list, watch and
// create: a POST names a collection, not an object).
type Attributes struct {
	User        string
	Verb        string
	APIGroup    string
	Resource    string
	Subresource string
	Namespace   string
	Name        string
}

// User is the subject of one user.
func User(name string) Subject { return Subject{Kind: KindUser, Name: name} }

// Group is the subject of every user in a group.
func Group(name string) Subject { return Subject{Kind: KindGroup, Name: name} }

// ServiceAccount is the subject of a service account; its user name is
// ServiceAccountUser(namespace, name).
func ServiceAccount(namespace, name string) Subject {
	return Subject{Kind: KindServiceAccount, Namespace: namespace, Name: name}
}

// ServiceAccountPrefix starts every service account's user name.
const ServiceAccountPrefix = "system:serviceaccount:"

// ServiceAccountUser is the user name a service account's token
// authenticates as: "system:serviceaccount:<namespace>:<name>"
// (k8s.io/apiserver, pkg/authentication/serviceaccount, MakeUsername).
func ServiceAccountUser(namespace, name string) string {
	return ServiceAccountPrefix + namespace + ":" + name
}

// The groups the authenticators add implicitly.
const (
	// GroupAuthenticated holds every authenticated user.
	GroupAuthenticated = "system:authenticated"
	// GroupServiceAccounts holds every service account; a namespace's are
	// also in GroupServiceAccounts + ":" + namespace.
	GroupServiceAccounts = "system:serviceaccounts"
	// GroupNodes holds every kubelet ("system:node:<name>").
	GroupNodes = "system:nodes"
	// NodeUserPrefix starts every kubelet's user name.
	NodeUserPrefix = "system:node:"
)

// InGroup reports whether user belongs to group: every user to
// GroupAuthenticated; a service account to GroupServiceAccounts and to its
// namespace's "system:serviceaccounts:<ns>" (pkg/authentication/
// serviceaccount, MakeGroupNames); a kubelet to GroupNodes; and any user
// to the groups Policy.Groups lists for it.
func (p *Policy) InGroup(user, group string) bool {
	switch {
	case group == GroupAuthenticated:
		return true
	case strings.HasPrefix(user, ServiceAccountPrefix):
		ns, _, _ := strings.Cut(strings.TrimPrefix(user, ServiceAccountPrefix), ":")
		if group == GroupServiceAccounts || group == GroupServiceAccounts+":"+ns {
			return true
		}
	case strings.HasPrefix(user, NodeUserPrefix):
		if group == GroupNodes {
			return true
		}
	}
	for _, g := range p.Groups[user] {
		if g == group {
			return true
		}
	}
	return false
}
