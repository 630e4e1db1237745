package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Spoke test traces: kubelet "node-<i>" runs on host i; events are built
// with their host so that the checks can map kernel faults to nodes.

// sev is one event of a spoke test trace.
type sev struct {
	ms   int64
	host sim.HostID
	kind sim.Kind
	name string
	data sim.Data
}

// hostOf is the host of a kubelet's node ("node-2" -> 2), NoHost for others.
func hostOf(node string) sim.HostID {
	if n, ok := strings.CutPrefix(node, "node-"); ok && len(n) == 1 {
		return sim.HostID(n[0] - '0')
	}
	return sim.NoHost
}

// kev is an event emitted by node's kubelet at ms.
func kev(ms int64, node string, d sim.Data) sev { return sev{ms, hostOf(node), sim.KindNode, "", d} }

// oev is an event emitted by another process (scheduler, API server, reporter).
func oev(ms int64, d sim.Data) sev { return sev{ms, 9, sim.KindNode, "", d} }

// fev is a kernel fault event named name on node's host.
func fev(ms int64, node, name string) sev { return sev{ms, hostOf(node), sim.KindFault, name, nil} }

// start, stop and ready are the runtime events of pod "default/<pod>"
// (uid "<pod>-uid", owner "<owner>-uid") on node.
func start(ms int64, node, pod, owner string) sev {
	return kev(ms, node, &spoketrace.ContainerStart{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Owner: owner + "-uid", Container: "app"})
}

func stop(ms int64, node, pod, reason string, healthy bool) sev {
	return kev(ms, node, &spoketrace.ContainerStop{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Container: "app", Reason: reason, Healthy: healthy})
}

func ready(ms int64, node, pod string, r bool) sev {
	return kev(ms, node, &spoketrace.PodReady{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Ready: r})
}

// feedSpoke feeds the trace to c, numbering it, and returns its verdict.
func feedSpoke(c Check, evs ...sev) Result {
	for i, s := range evs {
		c.Observe(&sim.Event{Seq: uint64(i), At: sim.Time(s.ms * int64(time.Millisecond)), Kind: s.kind,
			Host: s.host, Peer: sim.NoHost, Name: s.name, Data: s.data})
	}
	return c.Finish()
}

func secs(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }

func secsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// apiPod is pod "default/<name>" of owner "<owner>-uid" as the API stores
// it: Running and Ready on node.
func apiPod(name, owner, node string) spoketrace.PodState {
	return spoketrace.PodState{Key: "default/" + name, UID: name + "-uid", Owner: owner + "-uid", Node: node, Phase: "Running", Ready: true}
}

// clusterState builds a state with nodes node-1..node-3 Ready, ReplicaSet
// "web" (2 replicas) of a complete Deployment, and the pods given; mod
// adjusts it.
func clusterState(pods []spoketrace.PodState, mod func(*spoketrace.ClusterState)) *spoketrace.ClusterState {
	cs := &spoketrace.ClusterState{RV: "100", Pods: pods,
		Nodes:       []spoketrace.NodeState{{Name: "node-1", Ready: "True"}, {Name: "node-2", Ready: "True"}, {Name: "node-3", Ready: "True"}},
		ReplicaSets: []spoketrace.ReplicaSetState{{Key: "default/web", UID: "web-uid", Owner: "dep-uid", Replicas: 2}},
		Deployments: []spoketrace.DeploymentState{{Key: "default/dep", UID: "dep-uid", Replicas: 2, Generation: 2, ObservedGeneration: 2,
			UpdatedReplicas: 2, AvailableReplicas: 2, StatusReplicas: 2, Progressing: "NewReplicaSetAvailable"}},
	}
	if mod != nil {
		mod(cs)
	}
	return cs
}

// healthy is two pods of "web" running and ready on node-1 and node-2.
func healthy() []sev {
	return []sev{start(1000, "node-1", "a", "web"), start(1200, "node-2", "b", "web"),
		ready(3000, "node-1", "a", true), ready(4000, "node-2", "b", true)}
}

func TestConvergence(t *testing.T) {
	twoPods := []spoketrace.PodState{apiPod("a", "web", "node-1"), apiPod("b", "web", "node-2")}
	cases := []struct {
		name string
		evs  []sev
		ok   bool
		want string // in the detail
	}{
		{"desired equals actual", append(healthy(), oev(60000, clusterState(twoPods, nil))), true, "agree"},
		{"no cluster state", healthy(), false, "no cluster state was reported"},
		{"only the last cluster state counts", append(healthy(),
			oev(50000, clusterState(twoPods[:1], nil)), oev(60000, clusterState(twoPods, nil))), true, "agree"},
		{"a replicaset short of a pod", append(healthy(), oev(60000, clusterState(
			[]spoketrace.PodState{twoPods[0], {Key: "default/b", UID: "b-uid", Owner: "web-uid", Phase: "Pending"}}, nil))),
			false, "wants 2 pods: 1 run and are ready, of 2 active (1 in phase Pending)"},
		{"a replicaset with an extra pod", append(healthy(), start(5000, "node-3", "c", "web"), ready(6000, "node-3", "c", true),
			oev(60000, clusterState(append(twoPods, apiPod("c", "web", "node-3")), nil))), false, "wants 2 pods: 3 run"},
		{"an extra active pod that is not running", append(healthy(), oev(60000, clusterState(
			append(twoPods, spoketrace.PodState{Key: "default/c", UID: "c-uid", Owner: "web-uid", Phase: "Pending"}), nil))),
			false, "2 run and are ready, of 3 active"},
		{"a deleting pod does not count", append(healthy(), start(5000, "node-3", "c", "web"), oev(60000, clusterState(
			append(twoPods, spoketrace.PodState{Key: "default/c", UID: "c-uid", Owner: "web-uid", Node: "node-3", Phase: "Running", Deleting: true}), nil))),
			true, "agree"},
		{"a replicaset being deleted is not judged", append(healthy(), oev(60000, clusterState(twoPods, func(cs *spoketrace.ClusterState) {
			cs.ReplicaSets = append(cs.ReplicaSets, spoketrace.ReplicaSetState{Key: "default/old", UID: "old-uid", Replicas: 3, Deleting: true})
		}))), true, "agree"},
		{"the API says ready but the kubelet does not", append(healthy(), ready(5000, "node-2", "b", false),
			oev(60000, clusterState(twoPods, nil))), false, "1 not ready per its kubelet"},
		{"the API says running but the container stopped", append(healthy(), stop(5000, "node-2", "b", spoketrace.StopExited, true),
			oev(60000, clusterState(twoPods, nil))), false, "pod default/b is Running on node node-2 in the API, but no container of it runs there"},
		{"the API says running but the host crashed", append(healthy(), fev(5000, "node-2", "crash"),
			oev(60000, clusterState(twoPods, nil))), false, "1 on a node whose host is down"},
		{"a crashed host that restarted and runs its pod again", append(healthy(), fev(5000, "node-2", "crash"),
			fev(8000, "node-2", "restart"), start(9000, "node-2", "b", "web"), ready(11000, "node-2", "b", true),
			oev(60000, clusterState(twoPods, nil))), true, "agree"},
		{"a restarted container without its readiness back", append(healthy(), fev(5000, "node-2", "crash"),
			fev(8000, "node-2", "restart"), start(9000, "node-2", "b", "web"),
			oev(60000, clusterState(twoPods, nil))), false, "not ready per its kubelet"},
		{"a paused host runs nothing", append(healthy(), fev(5000, "node-2", "pause"),
			oev(60000, clusterState(twoPods, nil))), false, "on a node whose host is down"},
		{"a paused host that resumed", append(healthy(), fev(5000, "node-2", "pause"), fev(7000, "node-2", "resume"),
			oev(60000, clusterState(twoPods, nil))), true, "agree"},
		{"a pod on a node that is not ready in the API", append(healthy(), oev(60000, clusterState(twoPods, func(cs *spoketrace.ClusterState) {
			cs.Nodes[1].Ready = "Unknown"
		}))), false, "1 on a node whose Ready is Unknown"},
		{"a pod bound to a missing node", append(healthy(), oev(60000, clusterState(
			append(twoPods, spoketrace.PodState{Key: "default/x", UID: "x-uid", Node: "node-7", Phase: "Pending"}), nil))),
			false, "pod default/x is bound to node node-7, which does not exist"},
		{"a lost node's evicted pod and its replacement", append(healthy(), start(2000, "node-3", "c", "web"), ready(3000, "node-3", "c", true),
			fev(5000, "node-2", "crash"),
			oev(60000, clusterState([]spoketrace.PodState{twoPods[0],
				{Key: "default/b", UID: "b-uid", Owner: "web-uid", Node: "node-2", Phase: "Running", Deleting: true},
				apiPod("c", "web", "node-3")}, func(cs *spoketrace.ClusterState) { cs.Nodes[1].Ready = "Unknown" }))),
			true, "agree"},
		{"a container the API does not know", append(healthy(), start(5000, "node-3", "ghost", "web"),
			oev(60000, clusterState(twoPods, nil))), false, "a container of pod default/ghost (uid ghost-uid) runs on node node-3, but the API has no such pod"},
		{"a container on another node than the API's", append(healthy(), start(5000, "node-3", "b", "web"),
			oev(60000, clusterState(twoPods, nil))), false, `runs on node node-3, but the API binds it to "node-2"`},
		{"a deployment with an old observed generation", append(healthy(), oev(60000, clusterState(twoPods, func(cs *spoketrace.ClusterState) {
			cs.Deployments[0].ObservedGeneration = 1
		}))), false, "observedGeneration 1 < generation 2"},
		{"a deployment still rolling out", append(healthy(), oev(60000, clusterState(twoPods, func(cs *spoketrace.ClusterState) {
			cs.Deployments[0].UpdatedReplicas, cs.Deployments[0].Progressing = 1, "ReplicaSetUpdated"
		}))), false, `updated replicas 1, Progressing reason "ReplicaSetUpdated"`},
		{"a deployment short of available replicas", append(healthy(), oev(60000, clusterState(twoPods, func(cs *spoketrace.ClusterState) {
			cs.Deployments[0].AvailableReplicas = 1
		}))), false, "available replicas 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewConvergence(ConvergenceOptions{}), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
		})
	}
}

func TestConvergenceLearnsHosts(t *testing.T) {
	// A crash of a host whose kubelet has not spoken yet counts once it
	// does; a fault on a host that is no kubelet's changes nothing.
	r := feedSpoke(NewConvergence(ConvergenceOptions{}), start(1000, "node-1", "a", "web"), ready(1100, "node-1", "a", true),
		fev(2000, "node-2", "crash"), sev{2100, 9, sim.KindFault, "crash", nil},
		start(2500, "node-2", "b", "web"), ready(2600, "node-2", "b", true),
		oev(60000, clusterState([]spoketrace.PodState{apiPod("a", "web", "node-1"), apiPod("b", "web", "node-2")}, nil)))
	require.False(t, r.OK)
	require.Contains(t, r.String(), "1 on a node whose host is down")
	require.NotContains(t, r.String(), "node-1")
}

func TestConvergenceMeasure(t *testing.T) {
	twoPods := []spoketrace.PodState{apiPod("a", "web", "node-1"), apiPod("b", "web", "node-2")}
	cases := []struct {
		name     string
		faultEnd float64
		evs      []sev
		want     float64
	}{
		{"converged before the faults ended", 10, append(healthy(), oev(60000, clusterState(twoPods, nil))), 0},
		{"converged when the last pod became ready again", 10, append(healthy(), fev(12000, "node-2", "crash"),
			fev(15000, "node-2", "restart"), start(20000, "node-2", "b", "web"), ready(25000, "node-2", "b", true),
			oev(60000, clusterState(twoPods, nil))), 15},
		{"a pod that flapped after the state was taken", 10, append(healthy(), oev(60000, clusterState(twoPods, nil)),
			ready(61000, "node-1", "a", false), ready(62000, "node-1", "a", true), kev(70000, "node-1", &spoketrace.NodeHeartbeat{Node: "node-1"})), 52},
		{"never converged", 10, append(healthy(), ready(30000, "node-1", "a", false), oev(60000, clusterState(twoPods, nil))), -1},
		{"no cluster state", 10, healthy(), -1},
		{"a ReplicaSet of zero replicas converges at once", 10, []sev{oev(60000, clusterState(nil, func(cs *spoketrace.ClusterState) {
			cs.ReplicaSets[0].Replicas = 0
		}))}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConvergence(ConvergenceOptions{FaultEnd: secs(tc.faultEnd)})
			feedSpoke(c, tc.evs...)
			require.InDelta(t, tc.want, c.Measures()["converge_s"], 1e-9)
		})
	}
}

// TestCrashEndsPause: a host paused and then crashed restarts running,
// though the kernel never reports the pause's end (a resume only thaws a
// host that is still paused).
func TestCrashEndsPause(t *testing.T) {
	rt := newRuntimeTruth()
	for i, s := range []sev{start(1000, "node-2", "a", "web"), fev(2000, "node-2", "pause"), fev(3000, "node-2", "crash"), fev(9000, "node-2", "restart")} {
		rt.observe(&sim.Event{Seq: uint64(i), At: secs(float64(s.ms) / 1000), Kind: s.kind, Host: s.host, Name: s.name, Data: s.data})
	}
	require.True(t, rt.nodeUp("node-2"), "a restarted host is up, whatever pause it had before it crashed")

	var fw FaultWindows
	for _, s := range []sev{fev(2000, "node-2", "pause"), fev(3000, "node-2", "crash"), fev(9000, "node-2", "restart")} {
		fw.Observe(&sim.Event{At: secs(float64(s.ms) / 1000), Kind: s.kind, Host: s.host, Name: s.name})
	}
	require.False(t, fw.Active(), "no fault stays active after the restart")
}
