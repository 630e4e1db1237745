package conformance

import "testing"

// snapshotSequences save a snapshot of each side and restore it into a new
// single-member cluster, then compare what a client sees there.
var snapshotSequences = []struct {
	name string
	ops  []Op
}{
	{"restore-plain-then-bumped", []Op{
		{Kind: KPut, Key: "a", Value: "1"}, // 2
		{Kind: KPut, Key: "b", Value: "2"}, // 3
		{Kind: KPut, Key: "a", Value: "3"}, // 4
		{Kind: KDelete, Key: "b"},          // 5
		{Kind: KPut, Key: "c", Value: "4"}, // 6
		{Kind: KTxn, Txn: &Txn{Then: []Op{{Kind: KPut, Key: "d", Value: "5"}, {Kind: KPut, Key: "e", Value: "6"}}}}, // 7
		{Kind: KCompact, Rev: 4},
		{Kind: KPut, Key: "c", Value: "7"}, // 8
		{Kind: KSnapshot},
		{Kind: KPut, Key: "a", Value: "after-snapshot"}, // 9, not in the snapshot
		{Kind: KRestore},
		{Kind: KGet, Key: "a", End: "z"},
		{Kind: KGet, Key: "a", End: "z", Rev: 8},
		// HISTORY
		{Kind: KGet, Key: "a", End: "z", Rev: 3}, // compacted
		{Kind: KGet, Key: "a", End: "z", Rev: 9}, // future
		{Kind: KMemberList},
		{Kind: KPut, Key: "a", Value: "new", PrevKV: true},
		{Kind: KGet, Key: "a", End: "z"},
		{Kind: KRestore, Bump: 1000, MarkCompacted: true},
		{Kind: KGet, Key: "a", End: "z"},
		{Kind: KGet, Key: "a", End: "z", Rev: 8},
		{Kind: KGet, Key: "a", End: "z", Rev: 1008},
		{Kind: KPut, Key: "b", Value: "new"},
		{Kind: KGet, Key: "a", End: "z"},
		{Kind: KCompact, Rev: 1008},
		{Kind: KCompact, Rev: 1009},
		{Kind: KWatch, Key: "a", End: "z", Rev: 1},
	}},
}

func TestSnapshotSequences(t *testing.T) {
	for i, r := range snapshotSequences {
		t.Run(r.name, func(t *testing.T) {
			d, err := RunMemberSequence(uint64(3_000_000+i), r.ops)
			if err != nil {
				t.Fatal(err)
			}
			if d != nil {
				t.Errorf("%s", d)
			}
		})
	}
}
