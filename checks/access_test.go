package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

var accessHosts = []string{"etcd-1", "apiserver-1", "kubelet-n1", "scheduler"}

func accessOpts() AccessOptions {
	return AccessOptions{
		AllowedSenders: func(name string) bool { return strings.HasPrefix(name, "apiserver-") },
		HostName:       func(id sim.HostID) string { return accessHosts[id] },
	}
}

// accessGroups are the API groups of the resources the tests write.
var accessGroups = map[string]string{"replicasets": "apps", "deployments": "apps", "leases": "coordination.k8s.io"}

func admit(user, verb, resource, key string, nodes ...string) sim.Event {
	d := &apitrace.Admit{Server: "apiserver-1", User: user, Verb: verb, Resource: resource, Key: key, Group: accessGroups[resource]}
	if ns, _, ok := strings.Cut(key, "/"); ok {
		d.Namespace = ns
	}
	if len(nodes) > 0 {
		d.NodeName = nodes[0]
	}
	if len(nodes) > 1 {
		d.OldNode = nodes[1]
	}
	return sim.Event{Kind: sim.KindNode, Host: 1, Data: d}
}

func TestAccess(t *testing.T) {
	allowed := []sim.Event{
		{Kind: sim.KindDeliver, Host: 0, Peer: 1, Port: "client"},
		{Kind: sim.KindDeliver, Host: 1, Peer: 2, Port: "api"}, // a kubelet talking to the API server
		admit("admin", "create", "pods", "default/p"),
		admit("system:kube-scheduler", "bind", "pods", "default/p", "n1"),
		admit("system:kube-scheduler", "update", "leases", "kube-system/kube-scheduler"),
		admit("system:kube-controller-manager", "create", "replicasets", "default/rs"),
		admit("system:kube-controller-manager", "patch", "nodes", "n1", "n1", "n1"),
		admit("system:node:n1", "create", "nodes", "n1", "n1"),
		admit("system:node:n1", "update-status", "pods", "default/p", "n1", "n1"),
		admit("system:node:n1", "delete", "pods", "default/p", "n1"),
		admit("system:node:n1", "update", "leases", "kube-node-lease/n1"),
	}
	cases := []struct {
		name string
		ev   sim.Event
		want string
	}{
		{"the fabric refused a message", sim.Event{Kind: sim.KindRefuse, Host: 2, Peer: 0, Port: "client"},
			`kubelet-n1 sent to etcd-1 on restricted port "client" and was refused`},
		{"a kubelet reached etcd", sim.Event{Kind: sim.KindDeliver, Host: 0, Peer: 2, Port: "client"},
			"kubelet-n1 reached etcd's client port on etcd-1"},
		{"scheduler creates a pod", admit("system:kube-scheduler", "create", "pods", "default/p"), "no rule of the policy allows it"},
		{"scheduler lease outside kube-system", admit("system:kube-scheduler", "update", "leases", "default/x"), "no rule of the policy allows it"},
		{"controller manager creates a node", admit("system:kube-controller-manager", "create", "nodes", "n2", "n2"), "no rule of the policy allows it"},
		{"controller manager binds a node", admit("system:kube-controller-manager", "bind", "nodes", "n2", "n2"), "no rule of the policy allows it"},
		{"the group decides: replicasets in the core group", func() sim.Event {
			e := admit("system:kube-controller-manager", "create", "replicasets", "default/rs")
			e.Data.(*apitrace.Admit).Group = ""
			return e
		}(), "no rule of the policy allows it"},
		{"kubelet updates another node", admit("system:node:n1", "update", "nodes", "n2", "n2", "n2"), `may write only its own Node, not "n2"`},
		{"kubelet updates status of a pod on another node", admit("system:node:n1", "update-status", "pods", "default/p", "n2", "n2"), "node restriction"},
		{"kubelet moves a pod to itself", admit("system:node:n1", "update-status", "pods", "default/p", "n1", "n2"), "node restriction"},
		{"kubelet deletes an unbound pod", admit("system:node:n1", "delete", "pods", "default/p"), "node restriction"},
		{"kubelet creates a pod", admit("system:node:n1", "create", "pods", "default/p", "n1"), "may only update the status of or delete pods"},
		{"kubelet renews another lease", admit("system:node:n1", "update", "leases", "kube-node-lease/n2"), "its own Lease"},
		{"anonymous write", admit("bob", "update", "deployments", "default/d"), `user "bob": no rule of the policy allows it`},
	}
	t.Run("allowed", func(t *testing.T) {
		r := feedEvents(NewAccess(accessOpts()), allowed)
		require.True(t, r.OK, r.String())
		require.Contains(t, r.Detail, "9 admitted writes")
		require.Contains(t, r.Detail, "1 deliveries to etcd's client port, all from API servers")
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := append(append([]sim.Event(nil), allowed...), c.ev)
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			chk := NewAccess(accessOpts())
			r := feedEvents(chk, evs)
			require.False(t, r.OK, r.String())
			require.Equal(t, 1, len(r.Offenses), r.String())
			require.Contains(t, r.Detail, c.want)
			require.Equal(t, "access", chk.Name())
		})
	}
	t.Run("without AllowedSenders only refusals count", func(t *testing.T) {
		r := feedEvents(NewAccess(AccessOptions{}), []sim.Event{{Kind: sim.KindDeliver, Host: 0, Peer: 2, Port: "client"}})
		require.True(t, r.OK, r.String())
		r = feedEvents(NewAccess(AccessOptions{}), []sim.Event{{Kind: sim.KindRefuse, Host: 2, Peer: 0, Port: "client"}})
		require.False(t, r.OK)
		require.Contains(t, r.Detail, "host#2 sent to host#0")
	})
}

// accessPolicy is the default policy and a test's own identities: a
// service account that writes Deployments and one named Lease in its
// namespace, and every kubelet allowed to create pods.
func accessPolicy() *rbac.Policy {
	return rbac.Default().
		Allow(rbac.ServiceAccount("team", "op"), "team",
			rbac.Rule{Verbs: []string{"create", "update"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}},
			rbac.Rule{Verbs: []string{"update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"op-lock"}}).
		AddClusterRole("pod-maker", rbac.Rule{Verbs: []string{"create", "update"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/status"}}).
		BindClusterRole("pod-maker", rbac.Group(rbac.GroupNodes))
}

func TestAccessCustomPolicy(t *testing.T) {
	sa := rbac.ServiceAccountUser("team", "op")
	allowed := []sim.Event{
		admit(sa, "create", "deployments", "team/d"),
		admit(sa, "update", "deployments", "team/d"),
		admit(sa, "update", "leases", "team/op-lock"),
		admit("system:node:n1", "create", "pods", "default/p", "n1"), // the policy's, not the Node authorizer's
		admit("admin", "delete", "deployments", "team/d"),
	}
	refused := []struct {
		name string
		ev   sim.Event
		want string
	}{
		{"outside the Role's namespace", admit(sa, "create", "deployments", "default/d"), "no rule of the policy allows it"},
		{"a verb the Role lacks", admit(sa, "delete", "deployments", "team/d"), "no rule of the policy allows it"},
		{"a name the rule does not list", admit(sa, "update", "leases", "team/other"), "no rule of the policy allows it"},
		{"a named rule never allows create", admit(sa, "create", "leases", "team/op-lock"), "no rule of the policy allows it"},
		{"a subresource the Role lacks", admit(sa, "update-status", "deployments", "team/d"), "no rule of the policy allows it"},
		{"node restriction holds whatever the policy grants",
			admit("system:node:n1", "update-status", "pods", "default/p", "n2", "n2"), "node restriction"},
		{"a kubelet's other writes still need a rule", admit("system:node:n1", "delete", "nodes", "n1", "n1"), `node "n1" may not delete its Node`},
	}
	t.Run("allowed", func(t *testing.T) {
		r := feedEvents(NewAccess(AccessOptions{Policy: accessPolicy()}), allowed)
		require.True(t, r.OK, r.String())
	})
	t.Run("the default policy does not know the test's identities", func(t *testing.T) {
		r := feedEvents(NewAccess(AccessOptions{}), allowed)
		require.False(t, r.OK)
		require.Len(t, r.Offenses, 4, r.String())
	})
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			r := feedEvents(NewAccess(AccessOptions{Policy: accessPolicy()}), []sim.Event{c.ev})
			require.False(t, r.OK, r.String())
			require.Len(t, r.Offenses, 1)
			require.Contains(t, r.Detail, c.want)
		})
	}
}

// TestAccessAgreesWithRBAC: the check's own reading of a policy decides as
// package rbac's evaluation (the API servers') does, on every combination
// of a grid of users, verbs, resources, namespaces and names.
func TestAccessAgreesWithRBAC(t *testing.T) {
	p := accessPolicy().
		AddRole("team", "lease-reader", rbac.Rule{Verbs: []string{"get"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}}).
		BindRole("team", rbac.RoleRef{Kind: rbac.KindRole, Name: "lease-reader"}, rbac.Group("system:serviceaccounts:team")).
		BindRole("other", rbac.RoleRef{Kind: rbac.KindClusterRole, Name: "system:kube-controller-manager"}, rbac.ServiceAccount("", "cm"))
	p.Groups = map[string][]string{"carol": {"system:serviceaccounts:team"}}
	chk := NewAccess(AccessOptions{Policy: p})
	users := []string{"admin", "system:kube-scheduler", "system:kube-controller-manager", "carol", "bob",
		rbac.ServiceAccountUser("team", "op"), rbac.ServiceAccountUser("team", "x"), rbac.ServiceAccountUser("other", "cm")}
	verbs := []string{"get", "create", "update", "update-status", "patch", "delete", "bind"}
	resources := []struct{ group, name string }{{"", "pods"}, {"", "nodes"}, {"apps", "deployments"}, {"apps", "replicasets"}, {"coordination.k8s.io", "leases"}}
	namespaces := []string{"", "team", "other", "kube-system"}
	names := []string{"op-lock", "x"}
	checked, allowed := 0, 0
	for _, u := range users {
		for _, v := range verbs {
			for _, r := range resources {
				for _, ns := range namespaces {
					for _, n := range names {
						a := rbac.Attributes{User: u, Verb: v, APIGroup: r.group, Resource: r.name, Namespace: ns, Name: n}
						switch v {
						case "update-status":
							a.Verb, a.Subresource = "update", "status"
						case "bind":
							a.Verb, a.Subresource = "create", "binding"
						case "create":
							a.Name = ""
						}
						want, _ := p.Allows(a)
						got := chk.policyGrants(u, v, r.group, r.name, ns, n)
						require.Equal(t, want, got, "%+v (verb %s)", a, v)
						checked++
						if want {
							allowed++
						}
					}
				}
			}
		}
	}
	require.Positive(t, allowed)
	require.Less(t, allowed, checked)
}
