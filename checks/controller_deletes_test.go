package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// cdNodeObj is Node name, Ready or not, tainted out-of-service or not.
func cdNodeObj(name string, ready, outOfService bool) *model.Node {
	n := &model.Node{ObjectMeta: model.ObjectMeta{Name: name}}
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: st}}
	if outOfService {
		n.Spec.Taints = []model.Taint{{Key: taintNodeOutOfService, Effect: model.TaintEffectNoExecute}}
	}
	return n
}

// cdPodObj is pod name on node (unbound for ""), in phase, being deleted
// or not.
func cdPodObj(name, node string, phase model.PodPhase, deleting bool) *model.Pod {
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", UID: model.UID("u-" + name)},
		Spec: model.PodSpec{NodeName: node}, Status: model.PodStatus{Phase: phase}}
	if deleting {
		p.DeletionTimestamp = model.Ptr(model.Time(1))
	}
	return p
}

// cdRemove commits the removal of an object at ms.
func cdRemove(w *epWorld, ms int64, key string) {
	w.rev++
	w.steps = append(w.steps, at(ms, &etcdtrace.Apply{Member: "etcd-1", Rev: w.rev,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangeDelete, Key: key, ModRev: w.rev}}}))
}

// cdGC traces the pod garbage collector sending a deletion of pod name at
// ms and the API server acknowledging it 10 ms later, for reason.
func cdGC(w *epWorld, ms int64, name, reason string) {
	w.steps = append(w.steps, at(ms, &spoketrace.LeaderWrite{Component: controllerManagerComponent, Identity: "cm-1", Verb: "delete", Resource: "pods", Key: "default/" + name}))
	cdRemove(w, ms+5, "/registry/pods/default/"+name)
	w.steps = append(w.steps, at(ms+10, &spoketrace.ControllerDelete{Controller: spoketrace.ControllerPodGC, Resource: "pods", Key: "default/" + name,
		UID: "u-" + name, Reason: reason}))
}

// cdEvict traces the taint eviction controller sending a deletion of pod
// name at ms and the API server acknowledging it 10 ms later.
func cdEvict(w *epWorld, ms int64, name string) {
	w.steps = append(w.steps, at(ms, &spoketrace.LeaderWrite{Component: controllerManagerComponent, Identity: "cm-1", Verb: "delete", Resource: "pods", Key: "default/" + name}))
	w.steps = append(w.steps, at(ms+10, &spoketrace.ControllerDelete{Controller: spoketrace.ControllerTaintEviction, Resource: "pods", Key: "default/" + name,
		UID: "u-" + name}))
}

// cdTainted is Node name, not Ready, with the NoExecute taints keys.
func cdTainted(name string, keys ...string) *model.Node {
	n := cdNodeObj(name, false, false)
	for _, k := range keys {
		n.Spec.Taints = append(n.Spec.Taints, model.Taint{Key: k, Effect: model.TaintEffectNoExecute})
	}
	return n
}

// cdTolerating is pod name on node, tolerating the NoExecute taints keys
// for seconds each (nil: for ever).
func cdTolerating(name, node string, seconds *int64, keys ...string) *model.Pod {
	p := cdPodObj(name, node, model.PodRunning, false)
	for _, k := range keys {
		p.Spec.Tolerations = append(p.Spec.Tolerations, model.Toleration{Key: k, Operator: model.TolerationOpExists,
			Effect: model.TaintEffectNoExecute, TolerationSeconds: seconds})
	}
	return p
}

// cdCleanup traces the Deployment controller deleting ReplicaSet
// api-<hash> of d1 at ms.
func cdCleanup(w *epWorld, ms int64, hash string) {
	key := "default/api-" + hash
	w.steps = append(w.steps, at(ms, &spoketrace.LeaderWrite{Component: controllerManagerComponent, Identity: "cm-1", Verb: "delete", Resource: "replicasets", Key: key}))
	cdRemove(w, ms+5, "/registry/replicasets/"+key)
	w.steps = append(w.steps, at(ms+10, &spoketrace.ControllerDelete{Controller: spoketrace.ControllerDeployment, Owner: "d1", Resource: "replicasets",
		Key: key, UID: "rs-" + hash}))
}

// cdHistory commits api (revisionHistoryLimit 1) and three ReplicaSets of
// it: two old ones without replicas and the new one.
func cdHistory(w *epWorld) {
	d := rbDeployment(4, false)
	d.Spec.RevisionHistoryLimit = model.Ptr(int32(1))
	w.put(1000, d)
	w.put(1000, rbRS("one", 0, 0, 4))
	w.put(1000, rbRS("two", 0, 0, 4))
	w.put(1000, rbRS("three", 4, 4, 4))
}

func TestControllerDeletes(t *testing.T) {
	cases := []struct {
		name  string
		build func(w *epWorld)
		fail  string // the first offense, or "" for a pass
	}{
		{"the pods of a Node gone for the quarantine", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, false))
			cdRemove(w, 10000, "/registry/nodes/n1")
			w.put(55000, cdPodObj("a", "n1", model.PodFailed, false)) // marked Failed first
			cdGC(w, 55100, "a", spoketrace.PodGCOrphaned)
		}, ""},
		{"the pods of a Node gone for less than the quarantine", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, false))
			cdRemove(w, 10000, "/registry/nodes/n1")
			cdGC(w, 30000, "a", spoketrace.PodGCOrphaned)
		}, "the pod garbage collector deleted pod default/a (orphaned), whose node n1 had been gone for 20s when the deletion was sent, less than the 40s quarantine"},
		{"the pods of a Node that exists", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", false, false))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, false))
			cdGC(w, 60000, "a", spoketrace.PodGCOrphaned)
		}, "the pod garbage collector deleted pod default/a (orphaned), whose node n1 existed when the deletion was sent"},
		{"a terminating pod of a node out of service", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, true))
			w.put(3000, cdNodeObj("n1", false, true))
			cdGC(w, 20000, "a", spoketrace.PodGCTerminating)
		}, ""},
		{"a terminating pod of a node only unreachable", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, true))
			w.put(3000, cdNodeObj("n1", false, false))
			cdGC(w, 20000, "a", spoketrace.PodGCTerminating)
		}, "the pod garbage collector deleted pod default/a (terminating), whose node n1 was not both not Ready and tainted node.kubernetes.io/out-of-service (at any commit within 1m0s before the deletion)"},
		{"an out-of-service taint removed long before", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", false, true))
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, true))
			w.put(3000, cdNodeObj("n1", false, false))
			cdGC(w, 90000, "a", spoketrace.PodGCTerminating)
		}, "the pod garbage collector deleted pod default/a (terminating), whose node n1 was not both not Ready and tainted node.kubernetes.io/out-of-service (at any commit within 1m0s before the deletion)"},
		{"a running pod collected as terminated", func(w *epWorld) {
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, false))
			cdGC(w, 20000, "a", spoketrace.PodGCTerminated)
		}, "the pod garbage collector deleted pod default/a (terminated), which was not terminated"},
		{"a terminated pod within the threshold", func(w *epWorld) {
			w.put(2000, cdPodObj("a", "n1", model.PodSucceeded, false))
			cdGC(w, 20000, "a", spoketrace.PodGCTerminated)
		}, "the pod garbage collector deleted pod default/a (terminated) with 1 terminated pod(s) left to collect from, within --terminated-pod-gc-threshold 12500"},
		{"an unbound terminating pod", func(w *epWorld) {
			w.put(2000, cdPodObj("a", "", model.PodPending, true))
			cdGC(w, 20000, "a", spoketrace.PodGCUnscheduledTerminating)
		}, ""},
		{"a bound pod collected as unscheduled", func(w *epWorld) {
			w.put(2000, cdPodObj("a", "n1", model.PodRunning, true))
			cdGC(w, 20000, "a", spoketrace.PodGCUnscheduledTerminating)
		}, "the pod garbage collector deleted pod default/a (unscheduled-terminating), which was not an unbound pod being deleted (node \"n1\", being deleted true)"},
		{"an eviction once the toleration ran out", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(30)), model.TaintNodeUnreachable))
			w.put(10000, cdTainted("n1", model.TaintNodeUnreachable))
			cdEvict(w, 39500, "a")
		}, ""},
		{"an eviction before the toleration ran out", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(30)), model.TaintNodeUnreachable))
			w.put(10000, cdTainted("n1", model.TaintNodeUnreachable))
			cdEvict(w, 15000, "a")
		}, "the taint eviction controller deleted pod default/a 5.000 s after its node n1's NoExecute taints began (at 10.000000s), which it tolerates for 30s"},
		{"a taint swapped for another keeps its stretch", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(30)), model.TaintNodeUnreachable, model.TaintNodeNotReady))
			w.put(10000, cdTainted("n1", model.TaintNodeNotReady))
			w.put(25000, cdTainted("n1", model.TaintNodeUnreachable))
			cdEvict(w, 40000, "a")
		}, ""},
		{"a taint removed and put back starts again", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(30)), model.TaintNodeUnreachable))
			w.put(10000, cdTainted("n1", model.TaintNodeUnreachable))
			w.put(20000, cdNodeObj("n1", true, false))
			w.put(100000, cdTainted("n1", model.TaintNodeUnreachable))
			cdEvict(w, 110000, "a")
		}, "the taint eviction controller deleted pod default/a 10.000 s after its node n1's NoExecute taints began (at 100.000000s), which it tolerates for 30s"},
		{"an untolerated taint evicts at once", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(300)), model.TaintNodeUnreachable))
			w.put(10000, cdTainted("n1", "example.com/drain"))
			cdEvict(w, 10100, "a")
		}, ""},
		{"a toleration for ever", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", true, false))
			w.put(2000, cdTolerating("a", "n1", nil, model.TaintNodeUnreachable))
			w.put(10000, cdTainted("n1", model.TaintNodeUnreachable))
			cdEvict(w, 900000, "a")
		}, "the taint eviction controller deleted pod default/a, which tolerates its node n1's NoExecute taints (since 10.000000s) for ever"},
		{"an eviction from a node without NoExecute taints", func(w *epWorld) {
			w.put(1000, cdNodeObj("n1", false, false))
			w.put(2000, cdTolerating("a", "n1", model.Ptr(int64(30)), model.TaintNodeUnreachable))
			cdEvict(w, 90000, "a")
		}, "the taint eviction controller deleted pod default/a, whose node n1 had no NoExecute taint at any commit within 1m0s before the deletion"},
		{"an old ReplicaSet beyond the history limit", func(w *epWorld) {
			cdHistory(w)
			cdCleanup(w, 5000, "one")
		}, ""},
		{"the last old ReplicaSet the limit keeps", func(w *epWorld) {
			cdHistory(w)
			cdCleanup(w, 5000, "one")
			cdCleanup(w, 5100, "two")
		}, "the Deployment controller deleted replicaset default/api-two, when its Deployment kept 1 old ReplicaSet(s) (revisionHistoryLimit 1)"},
		{"an old ReplicaSet with replicas", func(w *epWorld) {
			cdHistory(w)
			rs := rbRS("one", 0, 0, 4)
			rs.Status.Replicas = 1
			w.put(2000, rs)
			cdCleanup(w, 5000, "one")
		}, "the Deployment controller deleted replicaset default/api-one, which still had replicas (spec 0, status 1)"},
		{"a ReplicaSet the Deployment does not control", func(w *epWorld) {
			cdHistory(w)
			rs := rbRS("one", 0, 0, 4)
			rs.OwnerReferences = nil
			w.put(2000, rs)
			cdCleanup(w, 5000, "one")
		}, "the Deployment controller deleted replicaset default/api-one, whose controller was not its Deployment (uid d1) but \"\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			tc.build(w)
			res := feed(NewControllerDeletes(ControllerDeletesOptions{}), w.end()...)
			require.Equal(t, "controller-deletes", res.Name)
			if tc.fail == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.fail, res.Offenses[0].What)
		})
	}
}
