package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// restored is a restore from the snapshot at point into a cluster at rev.
func restored(point, rev int64) *etcdtrace.Restore {
	return &etcdtrace.Restore{Member: "etcd-1", ClusterID: 0xc1, SnapshotRev: point, Rev: rev, CompactRev: rev}
}

func TestTimeTravel(t *testing.T) {
	// The informer lists at 3, then sees a@4 and b deleted at 5.
	base := func() []step {
		return []step{
			at(10, relist("initial", "3", 2)),
			at(10, ievent("add", "default/a", "2")),
			at(10, ievent("add", "default/b", "3")),
			at(12, ievent("update", "default/a", "4")),
			at(14, ievent("delete", "default/b", "5")),
		}
	}
	with := func(extra ...step) []step { return append(base(), extra...) }
	cases := []struct {
		name  string
		steps []step
		ok    bool
		want  string
	}{
		{"view moves forward", with(
			at(20, relist("watch-error", "7", 1)),
			at(20, ievent("update", "default/a", "6")),
			at(21, ievent("add", "default/c", "8")),
			at(50, store("8", item("default/a", "6"), item("default/c", "8"))),
		), true, "1 informer(s): no view went back over 2 relists and 6 events"},
		{"relist with an unchanged store", with(at(20, relist("gone", "5", 1))), true, "2 relists"},
		{"re-creation after a delete", with(
			at(20, relist("gone", "9", 2)),
			at(20, ievent("add", "default/b", "8")),
		), true, "no view went back"},
		{"a restarted informer starts afresh", with(
			at(30, relist("initial", "2", 1)),
			at(30, ievent("update", "default/a", "2")),
		), true, "no view went back"},

		{"relist behind the view (issue 59848)", with(
			at(20, relist("gone", "3", 2)),
			at(20, ievent("update", "default/a", "2")),
			at(20, ievent("add", "default/b", "3")),
		), false, "relisted (gone) at resourceVersion 3, behind its view at 5"},
		{"relist takes a key back", with(
			at(20, relist("gone", "6", 1)),
			at(20, ievent("update", "default/a", "2")),
		), false, `took "default/a" back from resourceVersion 4 to 2`},
		{"relist resurrects a deleted key", with(
			at(20, relist("gone", "6", 2)),
			at(20, ievent("add", "default/b", "3")),
		), false, `resurrected "default/b" at resourceVersion 3, after seeing its deletion at 5`},
		{"watch event behind the view", with(
			at(20, ievent("add", "default/c", "4")),
		), false, `got a add event on "default/c" at resourceVersion 4, behind its view at 5`},
		{"store behind the view", with(at(50, store("3", item("default/a", "4")))), false, "store is at resourceVersion 3, behind its view at 5"},

		// A restore from the snapshot at rev 3 (a@2, b@3) into a cluster
		// bumped to 1003 lost a@4 and b's deletion at 5.
		{"a restore with a bump loses the writes after its point", with(
			at(30, restored(3, 1003)),
			at(40, relist("gone", "1005", 2)),
			at(40, ievent("update", "default/a", "2")),
			at(40, ievent("add", "default/b", "3")),
		), true, "no view went back"},
		{"a restore without a bump: the relist is behind the view", with(
			at(30, restored(3, 3)),
			at(40, relist("gone", "4", 2)),
			at(40, ievent("update", "default/a", "2")),
			at(40, ievent("add", "default/b", "3")),
		), false, "relisted (gone) at resourceVersion 4, behind its view at 5"},
		{"a restore excuses only what it lost", []step{
			at(10, relist("initial", "3", 2)),
			at(10, ievent("add", "default/a", "2")),
			at(10, ievent("add", "default/b", "3")),
			at(30, restored(3, 1003)),
			at(40, relist("gone", "1005", 1)),
			at(40, ievent("update", "default/b", "1")),
		}, false, `took "default/b" back from resourceVersion 3 to 1`},
		{"a stale relist of the old cluster is not excused by a later restore", with(
			at(20, relist("gone", "6", 1)),
			at(20, ievent("update", "default/a", "2")),
			at(30, restored(3, 1003)),
		), false, `took "default/a" back from resourceVersion 4 to 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := NewTimeTravel()
			r := feed(chk, c.steps...)
			require.Equal(t, c.ok, r.OK, r.String())
			require.Contains(t, r.Detail, c.want)
			require.Equal(t, "time-travel", chk.Name())
		})
	}
}
