package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestRSExpectations: a ReplicaSet waits out the expectations timeout only
// for a deletion its controller cannot observe: one its pod informer
// reports with a last known version that names no controller (it missed
// the adoption). A deletion reported with the controller known, or seen
// as a graceful deletion first, is observed; a new controller-manager
// process has no expectations; and the wait ends five minutes after the
// deletion.
func TestRSExpectations(t *testing.T) {
	const kcm, other = sim.HostID(7), sim.HostID(8)
	orphan := `{"kind":"Pod","metadata":{"name":"p","uid":"p1"}}`
	adopted := `{"kind":"Pod","metadata":{"name":"p","uid":"p1","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs1","controller":true}]}}`
	deleting := `{"kind":"Pod","metadata":{"name":"p","uid":"p1","deletionTimestamp":5,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs1","controller":true}]}}`
	put := func(rev int64, v string) sim.Data {
		return &etcdtrace.Apply{Member: "etcd-1", Rev: rev, Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/p", Value: v, ModRev: rev}}}
	}
	inf := func(typ, rv string) sim.Data {
		return &apitrace.InformerEvent{Informer: "kcm/pods", Resource: "pods", Type: typ, Key: "default/p", RV: rv}
	}
	del := &spoketrace.ControllerDelete{Controller: spoketrace.ControllerReplicaSet, Owner: "rs1", Resource: "pods", Key: "default/p", UID: "p1"}
	type ev struct {
		host sim.HostID
		d    sim.Data
	}
	for _, tc := range []struct {
		name    string
		evs     []ev
		waiting bool
	}{
		{"the adoption missed: a tombstone with no controller", []ev{
			{0, put(10, orphan)}, {kcm, inf("add", "10")}, {0, put(11, adopted)}, {kcm, del}, {kcm, inf("delete", "20")}}, true},
		{"the deletion never reported", []ev{
			{0, put(10, orphan)}, {kcm, inf("add", "10")}, {0, put(11, adopted)}, {kcm, del}}, true},
		{"the adoption seen", []ev{
			{0, put(10, orphan)}, {kcm, inf("add", "10")}, {0, put(11, adopted)}, {kcm, inf("update", "11")}, {kcm, del}, {kcm, inf("delete", "12")}}, false},
		{"a graceful deletion seen", []ev{
			{0, put(10, orphan)}, {kcm, inf("add", "10")}, {0, put(11, adopted)}, {kcm, del}, {0, put(12, deleting)}, {kcm, inf("update", "12")}}, false},
		{"another host's informer", []ev{
			{0, put(11, adopted)}, {other, inf("add", "11")}, {kcm, del}, {other, inf("delete", "12")}}, true},
		{"a new process", []ev{
			{0, put(10, orphan)}, {kcm, inf("add", "10")}, {kcm, del}, {kcm, inf("delete", "20")},
			{kcm, &spoketrace.Leading{Component: controllerManagerComponent, Identity: "kcm", Leading: true}}}, false},
		{"a member's later apply of the same revision is not a new version", []ev{
			{0, put(10, adopted)}, {0, put(10, orphan)}, {kcm, inf("add", "10")}, {kcm, del}, {kcm, inf("delete", "11")}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newRSExpectations()
			for i, e := range tc.evs {
				x.observe(&sim.Event{Seq: uint64(i), At: sim.Time(time.Second), Host: e.host, Kind: sim.KindNode, Data: e.d})
			}
			require.Equal(t, tc.waiting, x.waiting("rs1", sim.Time(time.Second+rsExpectationsTimeout-time.Millisecond)))
			require.False(t, x.waiting("rs1", sim.Time(time.Second+rsExpectationsTimeout)), "expired")
			require.False(t, x.waiting("rs2", sim.Time(2*time.Second)), "another ReplicaSet")
		})
	}
}

// TestControllerUID: the controller reference's UID is read from a stored
// pod, and a pod with owners but no controller has none.
func TestControllerUID(t *testing.T) {
	require.Equal(t, "rs1", controllerUID(`{"metadata":{"ownerReferences":[{"kind":"X","uid":"x0"},{"kind":"ReplicaSet","uid":"rs1","controller":true}]}}`))
	require.Equal(t, "", controllerUID(`{"metadata":{"ownerReferences":[{"kind":"X","uid":"x0","controller":false}]}}`))
	require.Equal(t, "", controllerUID(`{"metadata":{}}`))

	rs := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-uid-1"}}
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: "default",
		OwnerReferences: []model.OwnerReference{*model.NewControllerRef(rs, model.KindReplicaSet)}}}
	stored, err := model.Encode(pod)
	require.NoError(t, err)
	require.Equal(t, "rs-uid-1", controllerUID(string(stored)), "as the API server stores a pod")
}
