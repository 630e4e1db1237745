package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

func TestBoundOnce(t *testing.T) {
	bound := func(ms int64, sched, pod, node string) sev {
		return oev(ms, &spoketrace.Bound{Scheduler: sched, Pod: "default/" + pod, UID: pod + "-uid", Node: node})
	}
	cases := []struct {
		name string
		evs  []sev
		ok   bool
		want string
	}{
		{"each pod bound once and run there", []sev{bound(1, "s1", "a", "node-1"), bound(2, "s2", "b", "node-2"),
			start(3, "node-1", "a", "web"), start(4, "node-2", "b", "web"),
			// a restart and a second container on the same node
			stop(5, "node-1", "a", spoketrace.StopLiveness, false), start(6, "node-1", "a", "web")}, true, "2 binding(s) of 2 pod(s)"},
		{"the first binding of a pod reaches etcd", []sev{oev(1, &apitrace.Admit{Server: "apiserver-1", User: "system:kube-scheduler", Verb: "bind",
			Resource: "pods", Key: "default/a", NodeName: "node-1"})}, true, "0 binding(s)"},
		{"a binding of a bound pod reaches etcd", []sev{oev(1, &apitrace.Admit{Server: "apiserver-1", User: "system:kube-scheduler", Verb: "bind",
			Resource: "pods", Key: "default/a", NodeName: "node-2", OldNode: "node-1"})}, false,
			"apiserver-1 sent a binding of pod default/a to node-2 to etcd, but the pod was already bound to node-1"},
		{"a pod run without a traced binding", []sev{start(3, "node-1", "a", "web")}, true, "1 pod(s) started"},
		{"two schedulers bind one pod", []sev{bound(1, "s1", "a", "node-1"), bound(2, "s2", "a", "node-2")},
			false, "pod default/a (uid a-uid) bound twice: to node-1, then by s2 to node-2"},
		{"a pod bound twice to the same node", []sev{bound(1, "s1", "a", "node-1"), bound(2, "s1", "a", "node-1")},
			false, "bound twice"},
		{"containers of one pod on two nodes", []sev{start(3, "node-1", "a", "web"), start(4, "node-2", "a", "web")},
			false, "runs on two nodes: container app started on node-2 after one started on node-1"},
		{"a container on another node than the binding", []sev{bound(1, "s1", "a", "node-1"), start(3, "node-2", "a", "web")},
			false, "bound to node-1, but container app started on node-2"},
		{"a binding after the pod started elsewhere", []sev{start(3, "node-2", "a", "web"), bound(4, "s1", "a", "node-1")},
			false, "bound to node-1 by s1 after it started on node-2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewBoundOnce(), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
		})
	}
}
