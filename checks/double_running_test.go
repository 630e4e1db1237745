package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

const testRSInformer = "observer/replicasets"

// rsEv is the observer informer's event on ReplicaSet "default/<name>".
func rsEv(ms int64, typ, name, value string) sev {
	return oev(ms, &apitrace.InformerEvent{Informer: testRSInformer, Resource: "replicasets", Type: typ, Key: "default/" + name, RV: "1", Value: value})
}

// webRunning is ReplicaSet "web" wanting 2 pods and running a on node-1
// and b on node-2.
func webRunning() []sev {
	return []sev{rsEv(0, "add", "web", "web-uid/2"), start(1000, "node-1", "a", "web"), start(1000, "node-2", "b", "web")}
}

func seq(parts ...[]sev) []sev {
	var out []sev
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDoubleRunning(t *testing.T) {
	end := kev(300000, "node-1", nil) // a late event: the run lasts 300 s
	end.kind = sim.KindTimer
	partition := func(ms int64, name string) []sev {
		return []sev{fev(ms, "node-2", name), {ms, 5, sim.KindFault, name, nil}} // node-2 | the control plane
	}
	cases := []struct {
		name     string
		evs      []sev
		ok       bool
		want     string
		excessS  float64
		maxExtra float64
	}{
		{"desired equals running", seq(webRunning(), []sev{end}), true, "0.0 replica-seconds", 0, 0},
		{"a scaled-down pod terminating within its grace", seq(webRunning(), []sev{rsEv(500, "update", "web", "web-uid/3"),
			start(1000, "node-3", "c", "web"), rsEv(100000, "update", "web", "web-uid/2"),
			stop(130000, "node-3", "c", "Deleted", true), end}), true, "30.0 replica-seconds", 30, 1},
		{"a scaled-down pod running on with no fault", seq(webRunning(), []sev{rsEv(500, "update", "web", "web-uid/3"),
			start(1000, "node-3", "c", "web"), rsEv(100000, "update", "web", "web-uid/2"),
			stop(160000, "node-3", "c", "Deleted", true), end}),
			false, "replicaset default/web (uid web-uid) ran 3 pod(s) where 2 desired from 100.000000s until past 145.000000s with no fault active (no fault in the run)", 60, 1},
		{"an excess lasting to the end of the run", seq(webRunning(), []sev{rsEv(250000, "update", "web", "web-uid/1"), end}),
			false, "ran 2 pod(s) where 1 desired from 250.000000s", 50, 1},
		{"the lost node's pod and its replacement while partitioned", seq(webRunning(), partition(100000, "partition"),
			[]sev{start(400000, "node-3", "c", "web")}, partition(600000, "partition-healed"),
			[]sev{stop(610000, "node-2", "b", "Deleted", true)}), true, "210.0 replica-seconds", 210, 1},
		{"the lost node's pod running on long after the heal", seq(webRunning(), partition(100000, "partition"),
			[]sev{start(400000, "node-3", "c", "web")}, partition(600000, "partition-healed"),
			[]sev{stop(720000, "node-2", "b", "Deleted", true)}), false, "until past 705.000000s with no fault active (the last fault ended at 600.000000s)", 320, 1},
		{"the lost node's kubelet learns of the deletion within its recovery", seq(webRunning(), partition(100000, "partition"),
			[]sev{start(400000, "node-3", "c", "web")}, partition(600000, "partition-healed"),
			[]sev{stop(690000, "node-2", "b", "Deleted", true)}), true, "290.0 replica-seconds", 290, 1},
		{"a heal ends every partition", seq(webRunning(), partition(100000, "isolate"),
			[]sev{start(400000, "node-3", "c", "web"), {600000, sim.NoHost, sim.KindFault, "heal", nil},
				stop(720000, "node-2", "b", "Deleted", true)}), false, "the last fault ended at 600.000000s", 320, 1},
		{"a fault elsewhere suspends the judgement", seq(webRunning(), partition(100000, "partition"),
			[]sev{start(400000, "node-3", "c", "web"), {500000, 7, sim.KindFault, "pause", nil}},
			partition(600000, "partition-healed"), []sev{stop(700000, "node-2", "b", "Deleted", true),
				{720000, 7, sim.KindFault, "resume", nil}}), true, "300.0 replica-seconds", 300, 1},
		{"a crashed host runs nothing", seq(webRunning(), []sev{fev(100000, "node-2", "crash"), start(110000, "node-3", "c", "web"),
			fev(150000, "node-2", "restart"), end}), true, "0.0 replica-seconds", 0, 0},
		{"a restarted host runs an evicted pod again", seq(webRunning(), []sev{fev(100000, "node-2", "crash"), start(110000, "node-3", "c", "web"),
			fev(150000, "node-2", "restart"), start(160000, "node-2", "b", "web"), end}),
			false, "from 160.000000s until past 255.000000s with no fault active (the last fault ended at 150.000000s)", 140, 1},
		{"a released pod no longer counts for its ReplicaSet", seq(webRunning(), []sev{rsEv(500, "update", "web", "web-uid/2"),
			podCommit(50000, 10, "a", ""), start(51000, "node-3", "c", "web"), end}),
			true, "0.0 replica-seconds", 0, 0},
		{"an adopted orphan counts for its ReplicaSet", seq(webRunning(), []sev{start(1000, "node-3", "o", ""),
			podCommit(50000, 10, "o", "web-uid"), end}),
			false, "ran 3 pod(s) where 2 desired from 50.000000s until past 95.000000s", 250, 1},
		{"an API server's late report of an earlier write changes no owner", seq(webRunning(), []sev{rsEv(500, "update", "web", "web-uid/2"),
			podCommit(49000, 10, "a", "web-uid"), podCommit(50000, 11, "a", ""),
			ownCommit(50100, "update", "pods", "a", "ReplicaSet/web-uid*", "ReplicaSet/web-uid*", "app=debug", ""),
			start(51000, "node-3", "c", "web"), end}),
			true, "0.0 replica-seconds", 0, 0},
		{"a paused host is frozen until it resumes", seq(webRunning(), []sev{fev(100000, "node-2", "pause"), start(110000, "node-3", "c", "web"),
			fev(150000, "node-2", "resume"), stop(180000, "node-2", "b", "Deleted", true), end}), true, "30.0 replica-seconds", 30, 1},
		{"a pod running on two nodes counts twice", seq(webRunning(), []sev{start(100000, "node-3", "b", "web"), end}),
			false, "ran 3 pod(s) where 2 desired", 200, 1},
		{"a deleted ReplicaSet is no longer measured", seq(webRunning(), []sev{rsEv(100000, "delete", "web", "web-uid/2"),
			start(110000, "node-3", "c", "web"), end}), true, "0.0 replica-seconds", 0, 0},
		{"a recreated ReplicaSet of the same name", seq(webRunning(), []sev{rsEv(100000, "update", "web", "web2-uid/1"),
			start(110000, "node-3", "c", "web"), end}), true, "0.0 replica-seconds", 0, 0},
		{"pods of a ReplicaSet the informer has not reported", seq([]sev{rsEv(0, "add", "other", "other-uid/1")},
			webRunning()[1:], []sev{end}), true, "0.0 replica-seconds", 0, 0},
		{"an informer that reported nothing", seq(webRunning()[1:], []sev{end}), false, "informer observer/replicasets reported no ReplicaSet", 0, 0},
		{"an informer tracing other values", seq([]sev{rsEv(0, "add", "web", "3")}, webRunning()[1:], []sev{end}),
			false, `not <uid>/<replicas> (use checks.ReplicaSetValue): default/web="3"`, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewDoubleRunning(DoubleRunningOptions{ReplicaSetInformer: testRSInformer})
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.InDelta(t, tc.excessS, c.Measures()["double_running_s"], 1e-9)
			require.Equal(t, tc.maxExtra, c.Measures()["double_running_max"])
		})
	}
	t.Run("no informer named", func(t *testing.T) {
		r := feedSpoke(NewDoubleRunning(DoubleRunningOptions{}), webRunning()...)
		require.False(t, r.OK)
		require.Contains(t, r.Detail, "no ReplicaSet informer named")
	})
	t.Run("a shorter grace", func(t *testing.T) {
		evs := seq(webRunning(), []sev{rsEv(500, "update", "web", "web-uid/3"), start(1000, "node-3", "c", "web"),
			rsEv(100000, "update", "web", "web-uid/2"), stop(130000, "node-3", "c", "Deleted", true)})
		r := feedSpoke(NewDoubleRunning(DoubleRunningOptions{ReplicaSetInformer: testRSInformer, Grace: secsDur(20)}), evs...)
		require.False(t, r.OK, r.String())
	})
}

func TestReplicaSetValue(t *testing.T) {
	rs := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{UID: "abc-123"}, Spec: model.ReplicaSetSpec{Replicas: model.Ptr(int32(4))}}
	require.Equal(t, "abc-123/4", ReplicaSetValue(rs))
	rs.Spec.Replicas = nil
	require.Equal(t, "abc-123/1", ReplicaSetValue(rs))
	require.Equal(t, "", ReplicaSetValue(&model.Pod{}))
	uid, n, ok := parseReplicaSetValue(ReplicaSetValue(rs))
	require.True(t, ok)
	require.Equal(t, "abc-123", uid)
	require.Equal(t, 1, n)
	for _, bad := range []string{"", "3", "/3", "a/b", "a/-1"} {
		_, _, ok := parseReplicaSetValue(bad)
		require.False(t, ok, bad)
	}
}

// TestDoubleRunningOwnerFromEtcd: a pod released by a write whose answer
// was lost (no apitrace.Owners event) leaves its owner all the same: the
// committed pod in etcd names no controller, and its owner's running count
// drops.
func TestDoubleRunningOwnerFromEtcd(t *testing.T) {
	released := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"a-uid","labels":{"debug":"true"}}}`
	owned := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"a-uid","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"rs-uid","controller":true}]}}`
	rt := newRuntimeTruth()
	rt.observe(&sim.Event{Kind: sim.KindNode, Host: 7, Data: &spoketrace.ContainerStart{Node: "node-1", Pod: "default/a", UID: "a-uid", Owner: "rs-uid", Container: "app"}})
	require.Equal(t, "rs-uid", rt.pods["a-uid"].owner)
	got := rt.observe(&sim.Event{Kind: sim.KindNode, Data: &etcdtrace.Apply{Member: "etcd-1", Rev: 5,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/a", Value: released, ModRev: 5}}}})
	require.Len(t, got, 1)
	require.Equal(t, "", rt.pods["a-uid"].owner, "released: no controller in the committed pod")
	require.Empty(t, rt.observe(&sim.Event{Kind: sim.KindNode, Data: &etcdtrace.Apply{Member: "etcd-2", Rev: 5,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/a", Value: owned, ModRev: 5}}}}),
		"another member's apply of a revision already read changes nothing")
	require.Equal(t, "a-uid", firstUID(owned))
	require.Equal(t, "rs-uid", controllerUID(owned))
}

// podCommit is etcd's commit, at revision rev, of pod name ("<name>-uid")
// controlled by the ReplicaSet owner (a UID; "" for none).
func podCommit(ms, rev int64, name, owner string) sev {
	refs := ""
	if owner != "" {
		refs = `,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"` + owner + `","controller":true}]`
	}
	value := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"default","uid":"` + name + `-uid"` + refs + `}}`
	return sev{ms, sim.NoHost, sim.KindNode, "", &etcdtrace.Apply{Member: "etcd-1", Rev: rev,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/" + name, Value: value, ModRev: rev}}}}
}
