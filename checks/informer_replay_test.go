package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

const inf1 = "kubelet-1/pods"

// commit is an etcd member applying one change to a pod at rev.
func commit(member string, rev int64, typ, key string) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: member, Rev: rev, Changes: []etcdtrace.Change{{Type: typ, Key: "/registry/pods/" + key, ModRev: rev}}}
}

func ievent(typ, key, rv string) *apitrace.InformerEvent {
	return &apitrace.InformerEvent{Informer: inf1, Resource: "pods", Type: typ, Key: key, RV: rv}
}

func relist(reason, rv string, items int) *apitrace.Relist {
	return &apitrace.Relist{Informer: inf1, Resource: "pods", Reason: reason, RV: rv, Items: items}
}

func store(rv string, items ...apitrace.Item) *apitrace.Store {
	return &apitrace.Store{Informer: inf1, Resource: "pods", RV: rv, Items: items}
}

func server(rv string, items ...apitrace.Item) *apitrace.ServerState {
	return &apitrace.ServerState{Resource: "pods", RV: rv, Items: items}
}

func item(key, rv string) apitrace.Item { return apitrace.Item{Key: key, RV: rv} }

// replayBase is a clean run: two pods committed, an initial relist, an
// update and a delete seen through the watch, matching final states.
func replayBase() []step {
	return []step{
		at(1, commit("etcd-1", 2, "put", "default/a")),
		at(1, commit("etcd-2", 2, "put", "default/a")), // the same entry on another member
		at(2, commit("etcd-1", 3, "put", "default/b")),
		at(10, relist("initial", "3", 2)),
		at(10, ievent("add", "default/a", "2")),
		at(10, ievent("add", "default/b", "3")),
		at(11, commit("etcd-1", 4, "put", "default/a")),
		at(12, ievent("update", "default/a", "4")),
		at(13, commit("etcd-1", 5, "delete", "default/b")),
		at(14, ievent("delete", "default/b", "5")),
	}
}

func replayEnd(storeItems, serverItems []apitrace.Item) []step {
	return []step{at(50, store("5", storeItems...)), at(50, server("5", serverItems...))}
}

func TestInformerReplay(t *testing.T) {
	a4 := []apitrace.Item{item("default/a", "4")}
	join := func(parts ...[]step) []step {
		var out []step
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	drop := func(steps []step, i int) []step {
		return append(append([]step(nil), steps[:i]...), steps[i+1:]...)
	}
	cases := []struct {
		name  string
		steps []step
		ok    bool
		want  string
	}{
		{"clean replay", join(replayBase(), replayEnd(a4, a4)), true, "1 informer(s): 4 events and 1 relists replay etcd's history (4 committed changes covered), 1 final store(s) match the server"},
		{"a gap covered by a 410 relist", join(drop(drop(replayBase(), 9), 7), []step{
			at(20, relist("gone", "5", 1)),
			at(20, ievent("update", "default/a", "4")),
			at(20, ievent("delete", "default/b", "5")), // a tombstone at the list's revision
		}, replayEnd(a4, a4)), true, "2 relists"},
		{"other namespaces are not watched", join([]step{at(0, commit("etcd-1", 1, "put", "other/x"))}, replayBase(), replayEnd(a4, a4)), true, "1 final store(s) match"},
		{"commits beyond the view are not due", join(replayBase(), []step{at(40, commit("etcd-1", 6, "put", "default/c"))}, replayEnd(a4, a4)), true, "4 committed changes covered"},

		{"missed event (watch resumed from now)", join(drop(replayBase(), 7), []step{
			at(20, commit("etcd-1", 6, "put", "default/a")),
			at(21, ievent("update", "default/a", "6")),
			at(50, store("6", item("default/a", "6"))),
			at(50, server("6", item("default/a", "6"))),
		}), false, `informer kubelet-1/pods missed an event: the update of pods "default/a" committed at revision 4`},
		{"missed delete", join(drop(replayBase(), 9), []step{
			at(50, store("5", item("default/a", "4"), item("default/b", "3"))),
			at(50, server("5", a4...)),
		}), false, `the delete of pods "default/b" committed at revision 5`},
		{"duplicate event", join(replayBase(), []step{at(15, ievent("update", "default/a", "4"))}, replayEnd(a4, a4)), false, `duplicate event: update "default/a" at resourceVersion 4 after resourceVersion 4`},
		{"reordered event", join(replayBase(), []step{at(15, ievent("update", "default/a", "3"))}), false, "reordered event"},
		{"relist store is not the list", join(drop(replayBase(), 5), replayEnd(a4, a4)), false, "listed 2 items but its store holds 1"},
		{"410 relist that does not recover", join(replayBase(), []step{
			at(20, relist("gone", "5", 2)),
			at(20, ievent("add", "default/b", "3")), // b came back, though deleted at 5
		}), false, `store after relist (gone) at resourceVersion 5 is not etcd's state there: 1 key(s) differ: "default/b"@3 not in etcd`},
		{"final store differs from the server", join(replayBase(), replayEnd(a4, []apitrace.Item{item("default/a", "4"), item("default/c", "7")})), false,
			`final store (resourceVersion 5) differs from the server state of pods (resourceVersion 5): 1 key(s) differ: "default/c" missing (the server has @7)`},
		{"store snapshot differs from its events", join(replayBase(), replayEnd([]apitrace.Item{item("default/a", "2")}, []apitrace.Item{item("default/a", "2")})), false,
			"store snapshot differs from what its events built"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := NewInformerReplay()
			r := feed(chk, c.steps...)
			require.Equal(t, c.ok, r.OK, r.String())
			require.Contains(t, r.Detail, c.want)
		})
	}
}

func TestInformerReplayOptions(t *testing.T) {
	// An all-namespace informer that only saw default/ misses other/x.
	steps := append([]step{at(0, commit("etcd-1", 1, "put", "other/x"))}, replayBase()...)
	r := feed(NewInformerReplay(InformerReplayOptions{Namespace: func(string) string { return "" }}), steps...)
	require.False(t, r.OK, r.String())
	require.Contains(t, r.Detail, `"other/x"`)
	// A filtered informer is only checked for order.
	steps = drop1(replayBase(), 7)
	r = feed(NewInformerReplay(InformerReplayOptions{Filtered: func(string) bool { return true }}), steps...)
	require.True(t, r.OK, r.String())
}

func drop1(steps []step, i int) []step {
	return append(append([]step(nil), steps[:i]...), steps[i+1:]...)
}
