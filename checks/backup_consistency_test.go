package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestBackupConsistency feeds hand-built traces: two puts at revisions 2
// and 3, then snapshots and stored backups that are, or are not, the
// committed state at their revision.
func TestBackupConsistency(t *testing.T) {
	a2 := etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "a", Value: "1", ModRev: 2, CreateRev: 2, Version: 1}
	b3 := etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "b", Value: "2", ModRev: 3, CreateRev: 3, Version: 1}
	a4 := etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "a", Value: "9", ModRev: 4, CreateRev: 2, Version: 2}
	del4 := etcdtrace.Change{Type: etcdtrace.ChangeDelete, Key: "a", ModRev: 4}
	history := []step{
		at(1, &etcdtrace.Apply{Member: "etcd-1", Index: 1, Rev: 2, Changes: []etcdtrace.Change{a2}}),
		at(2, &etcdtrace.Apply{Member: "etcd-1", Index: 2, Rev: 3, Changes: []etcdtrace.Change{b3}}),
	}
	hash := func(cs ...etcdtrace.Change) uint64 { return etcdtrace.StateHash(cs) }
	save := func(rev int64, keys int, h uint64) sim.Data {
		return &etcdtrace.SnapshotSave{Member: "etcd-1", Rev: rev, Keys: keys, Hash: h}
	}
	stored := func(rev int64, keys int, h uint64) sim.Data {
		return &etcdtrace.BackupStored{Store: "backup-store", Name: "x.db", Member: "etcd-1", Rev: rev, Keys: keys, Hash: h}
	}
	for _, tc := range []struct {
		name  string
		extra []step
		ok    bool
	}{
		{"no snapshot", nil, true},
		{"snapshot at rev 3", []step{at(3, save(3, 2, hash(a2, b3)))}, true},
		{"snapshot at rev 2, after rev 3 was applied", []step{at(3, save(2, 1, hash(a2)))}, true},
		{"stored backup at rev 3", []step{at(3, stored(3, 2, hash(a2, b3)))}, true},
		{"snapshot at rev 4 after a delete", []step{at(3, &etcdtrace.Apply{Member: "etcd-1", Index: 3, Rev: 4, Changes: []etcdtrace.Change{del4}}), at(4, save(4, 1, hash(b3)))}, true},
		{"later value under an older revision", []step{at(3, &etcdtrace.Apply{Member: "etcd-1", Index: 3, Rev: 4, Changes: []etcdtrace.Change{a4}}), at(4, save(3, 2, hash(a4, b3)))}, false},
		{"a key missing", []step{at(3, save(3, 1, hash(b3)))}, false},
		{"right count, wrong value", []step{at(3, stored(3, 2, hash(a2, etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "b", Value: "X", ModRev: 3, CreateRev: 3, Version: 1})))}, false},
		{"a revision no member applied", []step{at(3, save(5, 2, hash(a2, b3)))}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := feed(NewBackupConsistency(), append(append([]step(nil), history...), tc.extra...)...)
			require.Equal(t, tc.ok, res.OK, res.String())
			if !tc.ok {
				require.NotEmpty(t, res.Offenses)
			}
		})
	}
}
