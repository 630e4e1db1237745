package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/apiserver/apitrace"
	"github.com/kubesim/kubesim/sim"
)

var accessHosts = []string{"etcd-1", "apiserver-1", "kubelet-n1", "scheduler"}

func accessOpts() AccessOptions {
	return AccessOptions{
		AllowedSenders: func(name string) bool { return strings.HasPrefix(name, "apiserver-") },
		HostName:       func(id sim.HostID) string { return accessHosts[id] },
	}
}

func admit(user, verb, resource, key string, nodes ...string) sim.Event {
	d := &apitrace.Admit{Server: "apiserver-1", User: user, Verb: verb, Resource: resource, Key: key}
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
		{"scheduler creates a pod", admit("system:kube-scheduler", "create", "pods", "default/p"), "the scheduler may only bind pods"},
		{"scheduler lease outside kube-system", admit("system:kube-scheduler", "update", "leases", "default/x"), "leases in kube-system"},
		{"controller manager creates a node", admit("system:kube-controller-manager", "create", "nodes", "n2", "n2"), "may not create nodes"},
		{"kubelet updates another node", admit("system:node:n1", "update", "nodes", "n2", "n2", "n2"), `may write only its own Node, not "n2"`},
		{"kubelet updates status of a pod on another node", admit("system:node:n1", "update-status", "pods", "default/p", "n2", "n2"), "node restriction"},
		{"kubelet moves a pod to itself", admit("system:node:n1", "update-status", "pods", "default/p", "n1", "n2"), "node restriction"},
		{"kubelet deletes an unbound pod", admit("system:node:n1", "delete", "pods", "default/p"), "node restriction"},
		{"kubelet creates a pod", admit("system:node:n1", "create", "pods", "default/p", "n1"), "may only update the status of or delete pods"},
		{"kubelet renews another lease", admit("system:node:n1", "update", "leases", "kube-node-lease/n2"), "its own Lease"},
		{"anonymous write", admit("bob", "update", "deployments", "default/d"), `user "bob": user has no role`},
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
