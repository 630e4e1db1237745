package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// commit is an API server's ownership commit of object key ("<kind>s"
// resource, uid "<name>-uid").
func ownCommit(ms int64, verb, resource, name, oldOwners, owners, labels, selector string, flags ...string) sev {
	d := &apitrace.Owners{Server: "apiserver-1", Verb: verb, Resource: resource, Key: "default/" + name, UID: name + "-uid",
		OldOwners: oldOwners, Owners: owners, Labels: labels, Selector: selector}
	for _, f := range flags {
		switch f {
		case "deleting":
			d.Deleting = true
		case "removed":
			d.Removed = true
		}
	}
	return oev(ms, d)
}

func rsCreated(ms int64, name, selector string) sev {
	return ownCommit(ms, "create", "replicasets", name, "", "", selector, selector)
}

func ctlDelete(ms int64, controller, owner, name string) sev {
	return oev(ms, &spoketrace.ControllerDelete{Controller: controller, Owner: owner, Resource: "pods", Key: "default/" + name, UID: name + "-uid"})
}

// endState is the final cluster state: the ReplicaSets and pods of those
// UIDs (pods are named "p:<name>-uid", or "p:<name>-uid@<owner uid>").
func endState(ms int64, rsUIDs ...string) sev {
	cs := &spoketrace.ClusterState{}
	var rest []string
	for _, u := range rsUIDs {
		if p, ok := strings.CutPrefix(u, "p:"); ok {
			p, owner, _ := strings.Cut(p, "@")
			cs.Pods = append(cs.Pods, spoketrace.PodState{Key: "default/" + p, UID: p, Owner: owner})
		} else {
			rest = append(rest, u)
		}
	}
	rsUIDs = rest
	for _, u := range rsUIDs {
		cs.ReplicaSets = append(cs.ReplicaSets, spoketrace.ReplicaSetState{Key: "default/" + u, UID: u})
	}
	return oev(ms, cs)
}

func TestOwnership(t *testing.T) {
	const web, canary = "ReplicaSet/web-uid*", "ReplicaSet/canary-uid*"
	base := []sev{rsCreated(0, "web", "app=web"), rsCreated(0, "canary", "app=web,track=canary")}
	with := func(evs ...sev) []sev { return append(append([]sev{}, base...), evs...) }
	cases := []struct {
		name string
		evs  []sev
		ok   bool
		want string
	}{
		{"pods created by their ReplicaSets, overlapping selectors", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "create", "pods", "c1", "", canary, "app=web,track=canary", "")), true, "0 adoption(s)"},
		{"an orphan adopted by the one ReplicaSet that matched it first", with(ownCommit(1, "create", "pods", "o1", "", "", "app=web,track=canary", ""),
			ownCommit(2, "update", "pods", "o1", "", canary, "app=web,track=canary", "")), true, "1 adoption(s)"},
		{"a relabelled pod released, then deleted by nobody", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "update", "pods", "w1", web, web, "app=debug", ""), ownCommit(3, "update", "pods", "w1", web, "", "app=debug", ""),
			endState(9, "web-uid")), true, "1 reference(s) dropped"},
		{"a ReplicaSet scales down its own pod", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "delete", "pods", "w1", web, web, "app=web", "", "deleting"), ctlDelete(3, spoketrace.ControllerReplicaSet, "web-uid", "w1")),
			true, "1 replicaset pod deletion(s)"},
		{"the collector deletes the pods of a deleted ReplicaSet", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "delete", "replicasets", "web", "", "", "app=web", "app=web", "removed"),
			ownCommit(3, "delete", "pods", "w1", web, web, "app=web", "", "deleting"), ctlDelete(4, spoketrace.ControllerGarbageCollector, "web-uid", "w1"),
			endState(9, "canary-uid")), true, "1 garbage collection(s)"},
		{"the collector drops the reference to a gone owner and keeps the live one", with(
			ownCommit(1, "create", "pods", "x", "", "ReplicaSet/web-uid,ReplicaSet/canary-uid", "app=x", ""),
			ownCommit(2, "update", "pods", "x", "ReplicaSet/web-uid,ReplicaSet/canary-uid", "ReplicaSet/canary-uid", "app=x", ""),
			endState(9, "canary-uid")), true, "1 reference(s) dropped"},

		{"settled: a released pod that nothing selects stays an orphan", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "update", "pods", "w1", web, web, "app=debug", ""), ownCommit(3, "update", "pods", "w1", web, "", "app=debug", ""),
			endState(9, "web-uid", "canary-uid", "p:w1-uid")), true, "1 reference(s) dropped"},
		{"settled: never released", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "update", "pods", "w1", web, web, "app=debug", ""), endState(9, "web-uid", "canary-uid", "p:w1-uid@web-uid")),
			false, "pod default/w1 (labels \"app=debug\") is still controlled by replicaset default/web (uid web-uid), whose selector \"app=web\" no longer matches it: never released"},
		{"settled: never adopted", with(ownCommit(1, "create", "pods", "o1", "", "", "app=web,track=canary", ""), endState(9, "web-uid", "canary-uid", "p:o1-uid")),
			false, "has no controller, but replicaset default/web (uid web-uid) selects it: never adopted"},
		{"settled: never garbage collected", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""), endState(9, "canary-uid", "p:w1-uid@web-uid")),
			false, "pod default/w1 still references its owner replicaset default/web (uid web-uid), which is gone: it was never garbage collected"},
		{"settled: a view whose last commit was not seen is not judged", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "update", "pods", "w1", web, web, "app=debug", ""), endState(9, "web-uid", "canary-uid", "p:w1-uid")),
			true, "0 reference(s) dropped"},
		{"two controllers", with(ownCommit(1, "update", "pods", "o1", "", web+","+canary, "app=web,track=canary", "")),
			false, "pod default/o1 has 2 controller owners"},
		{"a controller replaced in one write", with(ownCommit(1, "create", "pods", "c1", "", canary, "app=web,track=canary", ""),
			ownCommit(2, "update", "pods", "c1", canary, web, "app=web,track=canary", "")),
			false, "its controller replicaset default/canary (uid canary-uid) was replaced by replicaset default/web (uid web-uid) in one write"},
		{"adopted against the selector", with(ownCommit(1, "create", "pods", "o1", "", "", "app=web", ""),
			ownCommit(2, "update", "pods", "o1", "", canary, "app=web", "")), false, "whose selector \"app=web,track=canary\" does not match it"},
		{"a ReplicaSet deletes a pod it does not control", with(ownCommit(1, "create", "pods", "c1", "", canary, "app=web,track=canary", ""),
			ownCommit(2, "delete", "pods", "c1", canary, canary, "app=web,track=canary", "", "deleting"), ctlDelete(3, spoketrace.ControllerReplicaSet, "web-uid", "c1")),
			false, "replicaset replicaset default/web (uid web-uid) deleted pod default/c1, whose controller was replicaset default/canary"},
		{"the collector deletes a pod whose owner lives", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(3, "delete", "pods", "w1", web, web, "app=web", "", "deleting"), ctlDelete(4, spoketrace.ControllerGarbageCollector, "web-uid", "w1"),
			endState(9, "web-uid")), false, "the garbage collector deleted pod default/w1, whose owner replicaset default/web (uid web-uid) still exists at the end of the run"},
		{"a matching pod released while its owner lives", with(ownCommit(1, "create", "pods", "w1", "", web, "app=web", ""),
			ownCommit(2, "update", "pods", "w1", web, "", "app=web", ""), endState(9, "web-uid")),
			false, "pod default/w1 lost its reference to owner replicaset default/web (uid web-uid) (update) still exists"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewOwnership(), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			if !tc.ok {
				require.NotEmpty(t, r.Offenses)
			}
		})
	}
}
