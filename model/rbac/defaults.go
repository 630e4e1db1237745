package rbac

import (
	"fmt"
	"maps"
	"slices"
)

// The default policy's identities.
const (
	// UserAdmin is the cluster administrator: the operator's scripts and
	// the scenarios' workloads act as it.
	UserAdmin = "admin"
	// UserScheduler is kube-scheduler's identity.
	UserScheduler = "system:kube-scheduler"
	// UserControllerManager is kube-controller-manager's identity.
	UserControllerManager = "system:kube-controller-manager"
	// UserKubeProxy is kube-proxy's identity, the user of kubeadm's
	// kube-proxy credentials, bound to the ClusterRole system:node-proxier.
	UserKubeProxy = "system:kube-proxy"
	// SystemNamespace is where the control plane's leader-election Leases
	// live.
	SystemNamespace = "kube-system"
)

// Verbs of read access: get, list, watch.
var readVerbs = []string{"get", "list", "watch"}

// gcVerbs are the garbage collector's verbs on every resource, as the
// bootstrap ClusterRole system:controller:generic-garbage-collector grants
// them (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
// controller_policy.go): it must read and watch every kind that can be an
// owner or a dependent, custom kinds included, and update or delete the
// dependents.
var gcVerbs = []string{"get", "list", "watch", "patch", "update", "delete"}

// Default is the policy of every scenario, a fresh copy each call: the
// identities of the control plane and what they may do, modelled on the
// real bootstrap policy (k8s.io/kubernetes, plugin/pkg/auth/authorizer/
// rbac/bootstrappolicy/policy.go and namespace_policy.go) but granting
// exactly what kubesim's components need:
//   - "admin": the ClusterRole cluster-admin, everything;
//   - "system:kube-scheduler": ClusterRole system:kube-scheduler (read
//     everything, create pods/binding, update pods/status) and, in
//     kube-system, Role system::leader-locking-kube-scheduler (create and
//     update leases);
//   - "system:kube-controller-manager": ClusterRole
//     system:kube-controller-manager (every verb on pods, replicasets,
//     deployments and leases, their status and binding subresources; read,
//     update, patch and delete of nodes, update of nodes/status; and the
//     garbage collector's read, update, patch and delete of every
//     resource, custom ones included; and the EndpointSlice controller's
//     create, delete, get, list, update and watch of endpointslices, as
//     system:controller:endpointslice-controller grants them);
//   - "system:kube-proxy": ClusterRole system:node-proxier (list and watch
//     services, endpoints and endpointslices; get, list and watch nodes;
//     create, patch and update events).
//
// Kubelets ("system:node:<n>") get nothing from it: the Node authorizer
// and NodeRestriction, which are code, authorize them.
func Default() *Policy {
	all := []string{All}
	return &Policy{
		ClusterRoles: []ClusterRole{
			{Name: "cluster-admin", Rules: []Rule{{Verbs: all, APIGroups: all, Resources: all}}},
			{Name: "system:kube-scheduler", Rules: []Rule{
				{Verbs: readVerbs, APIGroups: all, Resources: all},
				{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"pods/binding"}},
				{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}},
			}},
			{Name: "system:kube-controller-manager", Rules: []Rule{
				{Verbs: all, APIGroups: []string{""}, Resources: []string{"pods", "pods/status", "pods/binding"}},
				{Verbs: all, APIGroups: []string{"apps"}, Resources: []string{"replicasets", "deployments", "*/status", "*/binding"}},
				{Verbs: all, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases", "*/status", "*/binding"}},
				{Verbs: []string{"get", "list", "watch", "update", "patch", "delete"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
				{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"nodes/status"}},
				{Verbs: gcVerbs, APIGroups: all, Resources: all},
				{Verbs: []string{"create", "delete", "get", "list", "update", "watch"}, APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}},
			}},
			{Name: "system:node-proxier", Rules: []Rule{
				{Verbs: []string{"list", "watch"}, APIGroups: []string{""}, Resources: []string{"endpoints", "services"}},
				{Verbs: readVerbs, APIGroups: []string{""}, Resources: []string{"nodes"}},
				{Verbs: []string{"create", "patch", "update"}, APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}},
				{Verbs: []string{"list", "watch"}, APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}},
			}},
		},
		Roles: []Role{
			{Namespace: SystemNamespace, Name: "system::leader-locking-kube-scheduler", Rules: []Rule{
				{Verbs: []string{"create", "update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}},
			}},
		},
		ClusterRoleBindings: []ClusterRoleBinding{
			{Name: "cluster-admin", ClusterRole: "cluster-admin", Subjects: []Subject{User(UserAdmin)}},
			{Name: "system:kube-scheduler", ClusterRole: "system:kube-scheduler", Subjects: []Subject{User(UserScheduler)}},
			{Name: "system:kube-controller-manager", ClusterRole: "system:kube-controller-manager", Subjects: []Subject{User(UserControllerManager)}},
			{Name: "system:node-proxier", ClusterRole: "system:node-proxier", Subjects: []Subject{User(UserKubeProxy)}},
		},
		RoleBindings: []RoleBinding{
			{Namespace: SystemNamespace, Name: "system::leader-locking-kube-scheduler",
				RoleRef:  RoleRef{Kind: KindRole, Name: "system::leader-locking-kube-scheduler"},
				Subjects: []Subject{User(UserScheduler)}},
		},
	}
}

// Clone is a deep copy, so that a test may extend a policy without
// changing one that API servers already hold.
func (p *Policy) Clone() *Policy {
	c := &Policy{
		ClusterRoles:        slices.Clone(p.ClusterRoles),
		Roles:               slices.Clone(p.Roles),
		ClusterRoleBindings: slices.Clone(p.ClusterRoleBindings),
		RoleBindings:        slices.Clone(p.RoleBindings),
	}
	for i := range c.ClusterRoles {
		c.ClusterRoles[i].Rules = cloneRules(c.ClusterRoles[i].Rules)
	}
	for i := range c.Roles {
		c.Roles[i].Rules = cloneRules(c.Roles[i].Rules)
	}
	for i := range c.ClusterRoleBindings {
		c.ClusterRoleBindings[i].Subjects = slices.Clone(c.ClusterRoleBindings[i].Subjects)
	}
	for i := range c.RoleBindings {
		c.RoleBindings[i].Subjects = slices.Clone(c.RoleBindings[i].Subjects)
	}
	if p.Groups != nil {
		c.Groups = maps.Clone(p.Groups)
		// determinism: each entry is copied on its own; order is irrelevant
		for u, gs := range c.Groups {
			c.Groups[u] = slices.Clone(gs)
		}
	}
	return c
}

func cloneRules(rs []Rule) []Rule {
	out := slices.Clone(rs)
	for i := range out {
		r := &out[i]
		r.Verbs, r.APIGroups = slices.Clone(r.Verbs), slices.Clone(r.APIGroups)
		r.Resources, r.ResourceNames = slices.Clone(r.Resources), slices.Clone(r.ResourceNames)
	}
	return out
}

// AddClusterRole adds a ClusterRole and returns p, for chaining.
func (p *Policy) AddClusterRole(name string, rules ...Rule) *Policy {
	p.ClusterRoles = append(p.ClusterRoles, ClusterRole{Name: name, Rules: rules})
	return p
}

// AddRole adds a Role of a namespace and returns p.
func (p *Policy) AddRole(namespace, name string, rules ...Rule) *Policy {
	p.Roles = append(p.Roles, Role{Namespace: namespace, Name: name, Rules: rules})
	return p
}

// BindClusterRole grants a ClusterRole to subjects everywhere, with a
// ClusterRoleBinding of the role's name, and returns p.
func (p *Policy) BindClusterRole(clusterRole string, subjects ...Subject) *Policy {
	p.ClusterRoleBindings = append(p.ClusterRoleBindings,
		ClusterRoleBinding{Name: clusterRole, ClusterRole: clusterRole, Subjects: subjects})
	return p
}

// BindRole grants a role (KindRole of the namespace, or KindClusterRole)
// to subjects within namespace, with a RoleBinding of the role's name, and
// returns p.
func (p *Policy) BindRole(namespace string, ref RoleRef, subjects ...Subject) *Policy {
	p.RoleBindings = append(p.RoleBindings,
		RoleBinding{Namespace: namespace, Name: ref.Name, RoleRef: ref, Subjects: subjects})
	return p
}

// Allow is the shortest way to grant a subject rules: within namespace, a
// Role and its RoleBinding; with namespace "", a ClusterRole and its
// ClusterRoleBinding. The role is named after the subject (e.g.
// "kubesim:allow:ServiceAccount:default/my-operator"). It returns p.
func (p *Policy) Allow(s Subject, namespace string, rules ...Rule) *Policy {
	name := "kubesim:allow:" + s.Kind + ":" + s.Name
	if s.Namespace != "" {
		name = "kubesim:allow:" + s.Kind + ":" + s.Namespace + "/" + s.Name
	}
	name += fmt.Sprintf(":%d", len(p.ClusterRoles)+len(p.Roles))
	if namespace == "" {
		return p.AddClusterRole(name, rules...).BindClusterRole(name, s)
	}
	return p.AddRole(namespace, name, rules...).BindRole(namespace, RoleRef{Kind: KindRole, Name: name}, s)
}
