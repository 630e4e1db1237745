package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRuleAllows follows k8s.io/kubernetes plugin/pkg/auth/authorizer/
// rbac/rbac.go (RuleAllows) and pkg/apis/rbac/v1/evaluation_helpers.go
// (VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches).
func TestRuleAllows(t *testing.T) {
	pods := Attributes{Verb: "get", APIGroup: "", Resource: "pods", Namespace: "default", Name: "p"}
	with := func(f func(*Attributes)) Attributes { a := pods; f(&a); return a }
	rule := func(verbs, groups, resources []string, names ...string) Rule {
		return Rule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	s := func(v ...string) []string { return v }
	cases := []struct {
		name string
		rule Rule
		a    Attributes
		want bool
	}{
		{"exact match", rule(s("get"), s(""), s("pods")), pods, true},
		{"verb all", rule(s(All), s(""), s("pods")), pods, true},
		{"other verb", rule(s("list"), s(""), s("pods")), pods, false},
		{"no verbs", rule(nil, s(""), s("pods")), pods, false},
		{"group all", rule(s("get"), s(All), s("pods")), pods, true},
		{"other group", rule(s("get"), s("apps"), s("pods")), pods, false},
		{"no groups: not even the core group", rule(s("get"), nil, s("pods")), pods, false},
		{"resource all", rule(s("get"), s(""), s(All)), pods, true},
		{"other resource", rule(s("get"), s(""), s("nodes")), pods, false},
		{"resource does not cover its subresource",
			rule(s("update"), s(""), s("pods")), with(func(a *Attributes) { a.Verb, a.Subresource = "update", "status" }), false},
		{"combined subresource",
			rule(s("update"), s(""), s("pods/status")), with(func(a *Attributes) { a.Verb, a.Subresource = "update", "status" }), true},
		{"*/subresource",
			rule(s("update"), s(""), s("*/status")), with(func(a *Attributes) { a.Verb, a.Subresource = "update", "status" }), true},
		{"*/subresource is not the resource", rule(s("get"), s(""), s("*/status")), pods, false},
		{"*/other subresource",
			rule(s("create"), s(""), s("*/status")), with(func(a *Attributes) { a.Verb, a.Subresource = "create", "binding" }), false},
		{"resource all covers subresources",
			rule(s("create"), s(""), s(All)), with(func(a *Attributes) { a.Verb, a.Subresource = "create", "binding" }), true},
		{"resource name listed", rule(s("get"), s(""), s("pods"), "q", "p"), pods, true},
		{"resource name not listed", rule(s("get"), s(""), s("pods"), "q"), pods, false},
		{"resource names never allow a nameless create",
			rule(s("create"), s(""), s("pods"), "p"), with(func(a *Attributes) { a.Verb, a.Name = "create", "" }), false},
		{"resource names never allow list",
			rule(s("list"), s(""), s("pods"), "p"), with(func(a *Attributes) { a.Verb, a.Name = "list", "" }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, RuleAllows(c.a, &c.rule))
		})
	}
}

// TestAllows follows the rule resolver (k8s.io/kubernetes,
// pkg/registry/rbac/validation/rule.go, VisitRulesFor and appliesToUser):
// ClusterRoleBindings apply everywhere, RoleBindings in their namespace
// only, and subjects match by user, group or service account.
func TestAllows(t *testing.T) {
	get := []Rule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}
	sa := ServiceAccountUser("team", "op")
	p := &Policy{
		ClusterRoles: []ClusterRole{{Name: "pod-reader", Rules: get}},
		Roles: []Role{{Namespace: "team", Name: "pod-reader", Rules: get},
			{Namespace: "other", Name: "local", Rules: get}},
		ClusterRoleBindings: []ClusterRoleBinding{
			{Name: "carol", ClusterRole: "pod-reader", Subjects: []Subject{User("carol")}},
			{Name: "auditors", ClusterRole: "pod-reader", Subjects: []Subject{Group("auditors")}},
			{Name: "dangling", ClusterRole: "missing", Subjects: []Subject{User("dave")}},
			{Name: "sa-no-ns", ClusterRole: "pod-reader", Subjects: []Subject{{Kind: KindServiceAccount, Name: "ghost"}}},
		},
		RoleBindings: []RoleBinding{
			{Namespace: "team", Name: "op", RoleRef: RoleRef{Kind: KindRole, Name: "pod-reader"},
				Subjects: []Subject{{Kind: KindServiceAccount, Name: "op"}}}, // the binding's namespace
			{Namespace: "team", Name: "bob", RoleRef: RoleRef{Kind: KindClusterRole, Name: "pod-reader"},
				Subjects: []Subject{User("bob")}},
			{Namespace: "team", Name: "crossref", RoleRef: RoleRef{Kind: KindRole, Name: "local"},
				Subjects: []Subject{User("erin")}}, // Role "local" is in "other", not "team"
			{Namespace: "team", Name: "all-sas", RoleRef: RoleRef{Kind: KindClusterRole, Name: "pod-reader"},
				Subjects: []Subject{Group("system:serviceaccounts:robots")}},
		},
		Groups: map[string][]string{"frank": {"auditors"}},
	}
	in := func(user, ns string) Attributes {
		return Attributes{User: user, Verb: "get", Resource: "pods", Namespace: ns, Name: "p"}
	}
	cases := []struct {
		name string
		a    Attributes
		want bool
		by   string
	}{
		{"ClusterRoleBinding to a user, any namespace", in("carol", "x"), true, `ClusterRoleBinding "carol" of ClusterRole "pod-reader"`},
		{"ClusterRoleBinding covers the cluster scope", in("carol", ""), true, ""},
		{"group membership from Policy.Groups", in("frank", "x"), true, `ClusterRoleBinding "auditors"`},
		{"no group", in("gina", "x"), false, ""},
		{"a missing ClusterRole grants nothing", in("dave", "x"), false, ""},
		{"a ClusterRoleBinding's service account needs a namespace", in(ServiceAccountUser("", "ghost"), "x"), false, ""},
		{"service account in the RoleBinding's namespace", in(sa, "team"), true, `RoleBinding "team/op" of Role "pod-reader"`},
		{"RoleBinding only in its namespace", in(sa, "x"), false, ""},
		{"RoleBinding not at the cluster scope", in(sa, ""), false, ""},
		{"same name, other namespace's service account", in(ServiceAccountUser("x", "op"), "team"), false, ""},
		{"RoleBinding of a ClusterRole", in("bob", "team"), true, `RoleBinding "team/bob" of ClusterRole "pod-reader"`},
		{"RoleBinding of a ClusterRole stays in its namespace", in("bob", "x"), false, ""},
		{"a Role of another namespace grants nothing", in("erin", "team"), false, ""},
		{"implicit service-account namespace group", in(ServiceAccountUser("robots", "r2"), "team"), true, `RoleBinding "team/all-sas"`},
		{"other namespace's service accounts are not in it", in(ServiceAccountUser("humans", "h"), "team"), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, by := p.Allows(c.a)
			assert.Equal(t, c.want, ok)
			assert.Contains(t, by, c.by)
			if !ok {
				assert.Empty(t, by)
			}
		})
	}
	var nilPolicy *Policy
	ok, _ := nilPolicy.Allows(in("carol", "x"))
	assert.False(t, ok, "a nil policy allows nothing")
}

func TestInGroup(t *testing.T) {
	p := &Policy{Groups: map[string][]string{"alice": {"devs"}}}
	assert.True(t, p.InGroup("anyone", GroupAuthenticated))
	assert.True(t, p.InGroup("alice", "devs"))
	assert.False(t, p.InGroup("bob", "devs"))
	sa := ServiceAccountUser("ns1", "x")
	assert.Equal(t, "system:serviceaccount:ns1:x", sa)
	assert.True(t, p.InGroup(sa, "system:serviceaccounts"))
	assert.True(t, p.InGroup(sa, "system:serviceaccounts:ns1"))
	assert.False(t, p.InGroup(sa, "system:serviceaccounts:ns2"))
	assert.True(t, p.InGroup("system:node:n1", GroupNodes))
	assert.False(t, p.InGroup("admin", GroupNodes))
}

// TestDefault pins the default policy to the control plane's needs: what
// the hard-coded authorizer allowed before the policy became data.
func TestDefault(t *testing.T) {
	p := Default()
	type req struct {
		user, verb, group, resource, sub, ns string
	}
	cases := []struct {
		r    req
		want bool
	}{
		{req{UserAdmin, "delete", "apps", "deployments", "", "x"}, true},
		{req{UserAdmin, "create", "example.com", "widgets", "", ""}, true},
		{req{UserScheduler, "list", "", "nodes", "", ""}, true},
		{req{UserScheduler, "watch", "example.com", "widgets", "", "x"}, true},
		{req{UserScheduler, "create", "", "pods", "binding", "x"}, true},
		{req{UserScheduler, "update", "", "pods", "status", "x"}, true},
		{req{UserScheduler, "create", "", "pods", "", "x"}, false},
		{req{UserScheduler, "update", "", "pods", "", "x"}, false},
		{req{UserScheduler, "create", "coordination.k8s.io", "leases", "", SystemNamespace}, true},
		{req{UserScheduler, "update", "coordination.k8s.io", "leases", "", SystemNamespace}, true},
		{req{UserScheduler, "delete", "coordination.k8s.io", "leases", "", SystemNamespace}, false},
		{req{UserScheduler, "create", "coordination.k8s.io", "leases", "", "default"}, false},
		{req{UserControllerManager, "create", "", "pods", "", "x"}, true},
		{req{UserControllerManager, "update", "", "pods", "status", "x"}, true},
		{req{UserControllerManager, "deletecollection", "apps", "replicasets", "", "x"}, true},
		{req{UserControllerManager, "update", "apps", "deployments", "status", "x"}, true},
		{req{UserControllerManager, "update", "coordination.k8s.io", "leases", "", SystemNamespace}, true},
		{req{UserControllerManager, "patch", "", "nodes", "", ""}, true},
		{req{UserControllerManager, "update", "", "nodes", "status", ""}, true},
		{req{UserControllerManager, "delete", "", "nodes", "", ""}, true},
		{req{UserControllerManager, "create", "", "nodes", "", ""}, false},
		{req{UserControllerManager, "create", "", "nodes", "binding", ""}, false},
		// The garbage collector's rule (generic-garbage-collector's): it
		// reads and deletes every kind, custom ones too, and creates none.
		{req{UserControllerManager, "get", "example.com", "widgets", "", "x"}, true},
		{req{UserControllerManager, "watch", "example.com", "widgets", "", ""}, true},
		{req{UserControllerManager, "delete", "example.com", "widgets", "", "x"}, true},
		{req{UserControllerManager, "create", "example.com", "widgets", "", "x"}, false},
		// The EndpointSlice controller's: it reads services and pods
		// (the collector's rule) and writes endpointslices.
		{req{UserControllerManager, "watch", "", "services", "", ""}, true},
		{req{UserControllerManager, "create", "discovery.k8s.io", "endpointslices", "", "x"}, true},
		{req{UserControllerManager, "update", "discovery.k8s.io", "endpointslices", "", "x"}, true},
		{req{UserControllerManager, "delete", "discovery.k8s.io", "endpointslices", "", "x"}, true},
		{req{UserControllerManager, "create", "", "services", "", "x"}, false},
		// kube-proxy's system:node-proxier: it watches Services, slices
		// and nodes, and writes none of them.
		{req{UserKubeProxy, "list", "", "services", "", ""}, true},
		{req{UserKubeProxy, "watch", "discovery.k8s.io", "endpointslices", "", ""}, true},
		{req{UserKubeProxy, "get", "", "nodes", "", ""}, true},
		{req{UserKubeProxy, "create", "", "events", "", "x"}, true},
		{req{UserKubeProxy, "update", "discovery.k8s.io", "endpointslices", "", "x"}, false},
		{req{UserKubeProxy, "get", "", "services", "", "x"}, false},
		{req{UserKubeProxy, "list", "", "pods", "", ""}, false},
		{req{"system:node:n1", "get", "", "pods", "", "x"}, false}, // the Node authorizer's, not the policy's
		{req{"bob", "get", "", "pods", "", "x"}, false},
	}
	for _, c := range cases {
		r := c.r
		ok, _ := p.Allows(Attributes{User: r.user, Verb: r.verb, APIGroup: r.group, Resource: r.resource, Subresource: r.sub, Namespace: r.ns})
		assert.Equal(t, c.want, ok, "%+v", r)
	}
}

func TestBuilders(t *testing.T) {
	base := Default()
	p := base.Clone().
		Allow(ServiceAccount("team", "op"), "team",
			Rule{Verbs: []string{"get", "list", "watch", "create", "update"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}}).
		Allow(User("viewer"), "", Rule{Verbs: []string{"list"}, APIGroups: []string{All}, Resources: []string{All}})
	sa := ServiceAccountUser("team", "op")
	ok, by := p.Allows(Attributes{User: sa, Verb: "create", APIGroup: "apps", Resource: "deployments", Namespace: "team"})
	require.True(t, ok)
	assert.Contains(t, by, "kubesim:allow:ServiceAccount:team/op")
	ok, _ = p.Allows(Attributes{User: sa, Verb: "create", APIGroup: "apps", Resource: "deployments", Namespace: "default"})
	assert.False(t, ok, "a Role allows only in its namespace")
	ok, _ = p.Allows(Attributes{User: sa, Verb: "delete", APIGroup: "apps", Resource: "deployments", Namespace: "team"})
	assert.False(t, ok)
	ok, _ = p.Allows(Attributes{User: "viewer", Verb: "list", Resource: "nodes"})
	assert.True(t, ok)
	ok, _ = base.Allows(Attributes{User: "viewer", Verb: "list", Resource: "nodes"})
	assert.False(t, ok, "Clone leaves the original alone")
	assert.Len(t, base.ClusterRoles, len(Default().ClusterRoles))

	// Clone is deep: changing a clone's rule leaves the original's alone.
	c := base.Clone()
	c.ClusterRoles[0].Rules[0].Verbs[0] = "get"
	assert.Equal(t, All, base.ClusterRoles[0].Rules[0].Verbs[0])

	p2 := (&Policy{}).AddClusterRole("r", Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}).
		BindRole("ns", RoleRef{Kind: KindClusterRole, Name: "r"}, Group("devs"))
	p2.Groups = map[string][]string{"alice": {"devs"}}
	ok, _ = p2.Allows(Attributes{User: "alice", Verb: "get", Resource: "pods", Namespace: "ns"})
	assert.True(t, ok)
	ok, _ = p2.Allows(Attributes{User: "alice", Verb: "get", Resource: "pods", Namespace: "other"})
	assert.False(t, ok)
}
