package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

func allocOf(ms int64, node string, cpu, mem, pods int64) sev {
	return kev(ms, node, &spoketrace.NodeAllocatable{Node: node, CPU: cpu, Memory: mem, Pods: pods})
}

// bindBy is scheduler s binding pod "default/<pod>" (uid "<pod>-uid") to
// node; schedulers s1 and s2 run on hosts 8 and 9.
func bindBy(ms int64, s, pod, node string, cpu, mem int64) sev {
	host := sim.HostID(8)
	if s == "s2" {
		host = 9
	}
	return sev{ms, host, sim.KindNode, "", &spoketrace.Bound{Scheduler: s, Pod: "default/" + pod, UID: pod + "-uid", Node: node, CPU: cpu, Memory: mem}}
}

func admitOn(ms int64, node, pod string, cpu int64, reason string) sev {
	return kev(ms, node, &spoketrace.PodAdmit{Node: node, Pod: "default/" + pod, UID: pod + "-uid", CPU: cpu, Admitted: reason == "", Reason: reason})
}

func leads(ms int64, s string, on bool) sev {
	return oev(ms, &spoketrace.Leading{Component: "kube-scheduler", Identity: s, Leading: on})
}

func podDeleteAdmitted(ms int64, pod string) sev {
	return oev(ms, &apitrace.Admit{Server: "apiserver-1", User: "admin", Verb: "delete", Resource: "pods", Key: "default/" + pod})
}

func TestNodeCapacity(t *testing.T) {
	const gi = 1 << 30
	nodes := []sev{allocOf(0, "node-1", 2000, 4*gi, 3), allocOf(0, "node-2", 2000, 4*gi, 3)}
	with := func(evs ...sev) []sev { return append(append([]sev{}, nodes...), evs...) }
	cases := []struct {
		name string
		evs  []sev
		ok   bool
		want string
	}{
		{"pods that just fit", with(bindBy(1, "s1", "a", "node-1", 1000, gi), bindBy(2, "s1", "b", "node-1", 1000, 3*gi),
			admitOn(3, "node-1", "a", 1000, ""), admitOn(3, "node-1", "b", 1000, ""),
			start(4, "node-1", "a", "rs"), start(5, "node-1", "b", "rs")), true, "2 binding(s)"},
		{"a deleted pod frees its place", with(bindBy(1, "s1", "a", "node-1", 1500, gi), podDeleteAdmitted(2, "a"),
			bindBy(3, "s1", "b", "node-1", 1500, gi)), true, "2 binding(s)"},
		{"a rejected pod frees its place", with(bindBy(1, "s1", "a", "node-1", 1500, gi), admitOn(2, "node-1", "a", 1500, spoketrace.RejectOutOfCPU),
			bindBy(3, "s1", "b", "node-1", 1500, gi)), true, "1 rejected map[OutOfcpu:1]"},
		{"two schedulers overcommit between them, the kubelet rejects one", with(bindBy(1, "s1", "a", "node-1", 1500, gi),
			bindBy(1, "s2", "b", "node-1", 1500, gi), admitOn(2, "node-1", "a", 1500, ""), admitOn(2, "node-1", "b", 1500, spoketrace.RejectOutOfCPU),
			start(3, "node-1", "a", "rs")), true, "2 binding(s)"},
		{"a new term starts from what the scheduler lists", with(bindBy(1, "s1", "a", "node-1", 1500, gi), leads(2, "s1", false),
			leads(3, "s1", true), bindBy(4, "s1", "b", "node-1", 1500, gi)), true, "2 binding(s)"},
		{"a crash stops what ran", with(admitOn(1, "node-1", "a", 1500, ""), start(2, "node-1", "a", "rs"), fev(3, "node-1", "crash"),
			admitOn(4, "node-1", "b", 1500, ""), start(5, "node-1", "b", "rs")), true, "running pods never exceeded"},
		{"a stopped pod frees its place", with(admitOn(1, "node-1", "a", 1500, ""), start(2, "node-1", "a", "rs"),
			stop(3, "node-1", "a", spoketrace.StopDeleted, true), admitOn(4, "node-1", "b", 1500, ""), start(5, "node-1", "b", "rs")), true, "2 admission(s)"},

		{"a scheduler binds past the node's cpu", with(bindBy(1, "s1", "a", "node-1", 1500, gi), bindBy(2, "s1", "b", "node-2", 1000, gi),
			bindBy(3, "s1", "c", "node-1", 1000, gi)), false, "s1 bound pod default/c to node-1, where the pods it bound itself now request cpu 2500m of 2000m allocatable"},
		{"a scheduler binds past the node's memory", with(bindBy(1, "s1", "a", "node-1", 100, 3*gi), bindBy(2, "s1", "b", "node-1", 100, 2*gi)),
			false, "request memory 5368709120 of 4294967296 bytes allocatable"},
		{"a scheduler binds past the node's pods limit", with(bindBy(1, "s1", "a", "node-1", 0, 0), bindBy(2, "s1", "b", "node-1", 0, 0),
			bindBy(3, "s1", "c", "node-1", 0, 0), bindBy(4, "s1", "d", "node-1", 0, 0)), false, "request 4 pods of 3 allowed"},
		{"pods running past the node's cpu", with(admitOn(1, "node-1", "a", 1500, ""), admitOn(1, "node-1", "b", 1000, ""),
			start(2, "node-1", "a", "rs"), start(3, "node-1", "b", "rs")), false, "the pods running on node-1 request cpu 2500m of 2000m allocatable: [default/a default/b]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewNodeCapacity(), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			if !tc.ok {
				require.NotEmpty(t, r.Offenses)
			}
		})
	}
}
