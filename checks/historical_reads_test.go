package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// putAt is a put change of key at rev, creating it at create.
func putAt(key, value string, rev, create, version int64) etcdtrace.Change {
	return etcdtrace.Change{Type: etcdtrace.ChangePut, Key: key, Value: value, ModRev: rev, CreateRev: create, Version: version}
}

// applyAt is member m applying changes at rev (compacting to compact).
func applyAt(m string, rev, compact int64, cs ...etcdtrace.Change) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: m, Rev: rev, Compact: compact, Changes: cs}
}

// readKV is a key a read returned.
func readKV(key, value string, mod, create, version int64) etcdtrace.ReadKV {
	return etcdtrace.ReadKV{Key: key, Value: value, ModRev: mod, CreateRev: create, Version: version}
}

func TestHistoricalReads(t *testing.T) {
	// History: k=a at 2, j=x at 3, k=b at 4, k deleted at 5; a compaction
	// to 4 at etcd-1 only.
	history := []step{
		at(1, applyAt("etcd-1", 2, 0, putAt("k", "a", 2, 2, 1))),
		at(2, applyAt("etcd-1", 3, 0, putAt("j", "x", 3, 3, 1))),
		at(3, applyAt("etcd-1", 4, 0, putAt("k", "b", 4, 2, 2))),
		at(4, applyAt("etcd-1", 5, 0, etcdtrace.Change{Type: etcdtrace.ChangeDelete, Key: "k", ModRev: 5})),
		at(5, applyAt("etcd-1", 5, 4)),
	}
	get := func(op uint64, key, end string, rev int64) *etcdtrace.Call {
		return &etcdtrace.Call{Client: "c", Op: op, Kind: etcdtrace.OpGet, Key: key, End: end, Rev: rev}
	}
	ok := func(op uint64, rev int64, member string, kvs ...etcdtrace.ReadKV) *etcdtrace.Return {
		return &etcdtrace.Return{Client: "c", Op: op, Outcome: etcdtrace.OutcomeOK, Rev: rev, Member: member, KVs: kvs}
	}
	found := func(op uint64, rev int64, member string, kv etcdtrace.ReadKV) *etcdtrace.Return {
		return &etcdtrace.Return{Client: "c", Op: op, Outcome: etcdtrace.OutcomeOK, Rev: rev, Member: member,
			Found: true, Value: kv.Value, Version: kv.Version, ModRev: kv.ModRev, CreateRev: kv.CreateRev}
	}
	compacted := func(op uint64) *etcdtrace.Return {
		return &etcdtrace.Return{Client: "c", Op: op, Outcome: etcdtrace.OutcomeFail, Err: etcdtrace.ErrCompactedText}
	}
	cases := []struct {
		name  string
		reads []step
		want  string // "" for a pass
	}{
		{name: "past and current reads", reads: []step{
			at(10, get(1, "k", "", 2)), at(11, found(1, 5, "etcd-2", readKV("k", "a", 2, 2, 1))),
			at(12, get(2, "j", "l", 4)), at(13, ok(2, 5, "etcd-2", readKV("j", "x", 3, 3, 1), readKV("k", "b", 4, 2, 2))),
			at(14, get(3, "k", "", 0)), at(15, ok(3, 5, "etcd-1")),
			at(16, get(4, "k", "", 3)), at(17, compacted(4)),
			at(18, &etcdtrace.Call{Client: "w", Op: 1, Kind: etcdtrace.OpList, Key: "a", End: "z"}),
			at(19, &etcdtrace.Return{Client: "w", Op: 1, Outcome: etcdtrace.OutcomeOK, Rev: 5, KVs: []etcdtrace.ReadKV{readKV("j", "x", 3, 3, 1)}}),
		}},
		{name: "a past read served from the present", reads: []step{
			at(10, get(1, "k", "", 2)), at(11, found(1, 5, "etcd-2", readKV("k", "b", 4, 2, 2))),
		}, want: `Revision: c op 1 get("k") at rev 2 returned [#0"k"="b"@4/2/2], but the committed state there is [put "k"="a"@2/2/1]`},
		{name: "a range missing a key", reads: []step{
			at(10, get(1, "j", "l", 4)), at(11, ok(1, 5, "etcd-2", readKV("j", "x", 3, 3, 1))),
		}, want: "Revision: c op 1 get(\"j\"..\"l\") at rev 4"},
		{name: "a deleted key read at the present", reads: []step{
			at(10, get(1, "k", "", 0)), at(11, found(1, 5, "etcd-2", readKV("k", "b", 4, 2, 2))),
		}, want: "Revision: c op 1 get(\"k\") at rev 5"},
		{name: "a current read that does not match its header", reads: []step{
			at(10, get(1, "k", "", 0)), at(11, found(1, 3, "etcd-2", readKV("k", "b", 4, 2, 2))),
		}, want: "Revision: c op 1 get(\"k\") at rev 3"},
		{name: "compacted at the compact revision itself", reads: []step{
			at(10, get(1, "k", "", 4)), at(11, compacted(1)),
		}, want: "Compacted: c op 1 get(\"k\") at rev 4 failed as compacted, but no member had compacted past it (the highest compaction: 4)"},
		{name: "a compacted revision served", reads: []step{
			at(10, get(1, "k", "", 2)), at(11, found(1, 5, "etcd-1", readKV("k", "a", 2, 2, 1))),
		}, want: "Compacted: c op 1 get(\"k\") at rev 2 was answered by etcd-1, which had compacted to 4 before the read was sent"},
		{name: "a wrong version", reads: []step{
			at(10, get(1, "k", "", 4)), at(11, found(1, 5, "etcd-2", readKV("k", "b", 4, 2, 3))),
		}, want: "Revision:"},
		{name: "a list that lost a key", reads: []step{
			at(10, &etcdtrace.Call{Client: "w", Op: 1, Kind: etcdtrace.OpList, Key: "a", End: "z"}),
			at(11, &etcdtrace.Return{Client: "w", Op: 1, Outcome: etcdtrace.OutcomeOK, Rev: 4, KVs: []etcdtrace.ReadKV{readKV("j", "x", 3, 3, 1)}}),
		}, want: "Revision: w op 1 list(\"a\"..\"z\") at rev 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewHistoricalReads(), append(append([]step(nil), history...), tc.reads...)...)
			require.Equal(t, "historical-reads", r.Name)
			if tc.want == "" {
				require.True(t, r.OK, r.String())
				require.Equal(t, "2 reads at a past revision, 1 current reads and 1 lists equal the committed history at their revision; 1 reads below a compaction failed as compacted", r.Detail)
				return
			}
			require.False(t, r.OK, r.String())
			require.NotEmpty(t, r.Offenses)
			require.Contains(t, r.Offenses[0].What, tc.want)
		})
	}
}

// TestHistoricalReadsCompactedAfterServing is the race the check must
// allow: the member answers a read at rev 2, applies a compaction to 4, and
// only then does the answer arrive. Had the compaction come before the
// read was sent, the same answer is an offense.
func TestHistoricalReadsCompactedAfterServing(t *testing.T) {
	get := &etcdtrace.Call{Client: "c", Op: 1, Kind: etcdtrace.OpGet, Key: "k", Rev: 2}
	answer := &etcdtrace.Return{Client: "c", Op: 1, Outcome: etcdtrace.OutcomeOK, Rev: 5, Member: "etcd-1",
		Found: true, Value: "a", Version: 1, ModRev: 2, CreateRev: 2}
	history := []step{
		at(1, applyAt("etcd-1", 2, 0, putAt("k", "a", 2, 2, 1))),
		at(2, applyAt("etcd-1", 3, 0, putAt("j", "x", 3, 3, 1))),
		at(3, applyAt("etcd-1", 4, 0, putAt("k", "b", 4, 2, 2))),
	}
	compact := at(5, applyAt("etcd-1", 4, 4))
	r := feed(NewHistoricalReads(), append(history, at(4, get), compact, at(6, answer))...)
	require.True(t, r.OK, r.String())
	r = feed(NewHistoricalReads(), append(history, compact, at(4, get), at(6, answer))...)
	require.False(t, r.OK)
	require.Contains(t, r.Offenses[0].What, "which had compacted to 4 before the read was sent")
}
