package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func rrPut(key, value string, mod, create, version int64) etcdtrace.Change {
	return etcdtrace.Change{Type: etcdtrace.ChangePut, Key: key, Value: value, ModRev: mod, CreateRev: create, Version: version}
}

var (
	rrA = rrPut("a", "1", 5, 5, 1)
	rrB = rrPut("b", "2", 9, 3, 2)
	rrC = rrPut("c", "3", 111, 111, 1) // the restored cluster's first write (bumped by 100)
)

// rrRestore restores r1 and r2 into cluster 7 from a snapshot at rev 10
// holding a and b, at rev (compacted there: --bump-revision and
// --mark-compacted when rev > 10).
func rrRestore(rev int64) []step {
	var s []step
	for _, m := range []string{"r1", "r2"} {
		s = append(s, at(50, &etcdtrace.Restore{Member: m, ClusterID: 7, SnapshotRev: 10, Rev: rev, CompactRev: rev,
			KVs: []etcdtrace.Change{rrA, rrB}}))
	}
	return s
}

// rrRange is a served range of every key, at (0: current) answered at rev.
func rrRange(member string, at, rev int64, kvs ...etcdtrace.Change) *etcdtrace.ServedRange {
	return &etcdtrace.ServedRange{Member: member, Key: "", End: "\x00", At: at, Rev: rev, Count: int64(len(kvs)), Keys: len(kvs), Hash: etcdtrace.StateHash(kvs)}
}

func rrWatch(member string, rev int64, evs ...etcdtrace.Change) *etcdtrace.ServedWatch {
	return &etcdtrace.ServedWatch{Member: member, Stream: 1, Rev: rev, Events: evs}
}

func rrApply(member string, rev int64, chs ...etcdtrace.Change) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: member, Index: uint64(rev), Term: 2, Rev: rev, Changes: chs}
}

func TestRestoredReads(t *testing.T) {
	lost := []step{at(10, rrApply("n1", 15, rrPut("a", "lost", 15, 5, 2)))} // the lost cluster reached rev 15
	for _, tc := range []struct {
		name  string
		steps []step
		want  string // "" for a pass
	}{
		{"the snapshot's state and the new writes", append(rrRestore(110),
			at(60, rrRange("r1", 0, 110, rrA, rrB)),
			at(61, rrApply("r1", 111, rrC)),
			at(61, rrWatch("r1", 111, rrC)),
			at(62, rrRange("r2", 110, 111, rrA, rrB)), // at a past revision, answered later
			at(63, rrRange("r2", 0, 111, rrA, rrB, rrC))), ""},
		{"a limited range returns the first keys", append(rrRestore(110),
			at(60, &etcdtrace.ServedRange{Member: "r1", Key: "", End: "\x00", Limit: 1, Rev: 110, Count: 2, Keys: 1, Hash: etcdtrace.StateHash([]etcdtrace.Change{rrA})})), ""},
		{"keys the restore lost", append(rrRestore(110),
			at(60, rrRange("r1", 0, 110, rrA))),
			"r1 served range \"\"..\"\\x00\" at rev 110: 1 keys of 1"},
		{"a revision below the restore's compaction", append(rrRestore(110),
			at(60, rrRange("r1", 8, 110, rrA))),
			"r1 served range \"\"..\"\\x00\" at rev 8, below 110, the revision its restore compacted to"},
		{"a watch event below the restore's compaction", append(rrRestore(110),
			at(60, rrWatch("r1", 110, rrB))),
			"at or below 110, the revision its restore compacted to"},
		{"a watch event that was not committed", append(rrRestore(110),
			at(61, rrApply("r1", 111, rrC)),
			at(61, rrWatch("r2", 111, rrPut("c", "other", 111, 111, 1)))),
			"but the restored cluster committed put \"c\"=\"3\"@111/111/1 there"},
		{"a watch event judged once its revision is applied", append(rrRestore(110),
			at(60, rrWatch("r1", 111, rrPut("c", "other", 111, 111, 1))),
			at(61, rrApply("r2", 111, rrC))),
			"r1 served watch event put \"c\"=\"other\"@111/111/1, but the restored cluster committed"},
		{"revisions the lost cluster handed out, without a bump", append(append(lost, rrRestore(10)...),
			at(60, rrRange("r1", 0, 10, rrA, rrB)),
			at(61, rrApply("r1", 11, rrPut("c", "3", 11, 11, 1))),
			at(62, rrWatch("r1", 11, rrPut("c", "3", 11, 11, 1)))),
			"r1 served watch stream 1: revision 11 of restored cluster 7 is one the lost cluster handed out (it reached 15; the snapshot is at 10)"},
		{"revisions above the lost cluster's, with a bump", append(append(lost, rrRestore(110)...),
			at(61, rrApply("r1", 111, rrC)),
			at(62, rrWatch("r1", 111, rrC))), ""},
		{"a cluster bootstrapped empty may reuse revisions", append(lost,
			at(50, &etcdtrace.Restore{Member: "r1", ClusterID: 8, Rev: 1, CompactRev: -1}),
			at(61, rrApply("r1", 2, rrPut("c", "3", 2, 2, 1))),
			at(62, rrWatch("r1", 2, rrPut("c", "3", 2, 2, 1))),
			at(63, rrRange("r1", 0, 2, rrPut("c", "3", 2, 2, 1)))), ""},
		{"the lost cluster's own answers are not judged", append(lost,
			at(20, rrRange("n1", 0, 15))), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewRestoredReads(), tc.steps...)
			require.Equal(t, "restored-reads", r.Name)
			if tc.want == "" {
				require.True(t, r.OK, r.String())
				return
			}
			require.False(t, r.OK)
			require.Contains(t, r.Offenses[0].What, tc.want)
		})
	}
}
