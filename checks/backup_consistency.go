package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// BackupConsistency checks that every snapshot is the committed state of
// the KV store at its revision: each etcdtrace.SnapshotSave a member
// traced (`etcdctl snapshot save`) and each etcdtrace.BackupStored a
// backup store traced (`snapshot status` of the object it accepted) has
// the key count and the etcdtrace.StateHash of the committed state at its
// revision, rebuilt from the etcdtrace.Apply events. etcd's snapshot is
// one read transaction on the backend (backend.Snapshot,
// server/storage/backend/backend.go), so it is a point-in-time copy.
// A snapshot whose revision no member has applied yet is an offense too.
// A restore (etcdtrace.Restore) starts the committed history of a new
// cluster from the restored keys: its members' applies, snapshots and
// backups are judged against it.
type BackupConsistency struct {
	hist     committedHistory // the cluster the world was built with
	restored map[uint64]*committedHistory
	member   map[string]uint64 // member -> the restored cluster it belongs to (0: none)
	rec      Recorder
	saves    int
	stored   int
}

// NewBackupConsistency returns the "backup-consistency" check.
func NewBackupConsistency() *BackupConsistency {
	return &BackupConsistency{hist: newCommittedHistory(), restored: map[uint64]*committedHistory{}, member: map[string]uint64{}}
}

// Name implements Check.
func (c *BackupConsistency) Name() string { return "backup-consistency" }

// Observe implements Check.
func (c *BackupConsistency) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.histOf(d.Member).apply(d)
	case *etcdtrace.SnapshotSave:
		c.saves++
		c.judge(e, c.histOf(d.Member), fmt.Sprintf("snapshot of %s", d.Member), d.Rev, d.Keys, d.Hash)
	case *etcdtrace.BackupStored:
		c.stored++
		c.judge(e, c.histOf(d.Member), fmt.Sprintf("backup %s on %s (from %s)", d.Name, d.Store, d.Member), d.Rev, d.Keys, d.Hash)
	case *etcdtrace.Restore:
		c.member[d.Member] = d.ClusterID
		if c.restored[d.ClusterID] == nil {
			h := restoredHistory(d)
			c.restored[d.ClusterID] = &h
		}
	}
}

// histOf returns the committed history of the cluster member belongs to.
func (c *BackupConsistency) histOf(member string) *committedHistory {
	if id := c.member[member]; id != 0 {
		return c.restored[id]
	}
	return &c.hist
}

// restoredHistory is the committed history of a cluster restored from a
// snapshot: the restored keys, each at its mod revision, and the restored
// revision as the highest one reached.
func restoredHistory(d *etcdtrace.Restore) committedHistory {
	h := newCommittedHistory()
	byRev := map[int64][]etcdtrace.Change{}
	for _, kv := range d.KVs {
		byRev[kv.ModRev] = append(byRev[kv.ModRev], kv)
	}
	for _, r := range sim.SortedKeys(byRev) {
		h.record(r, byRev[r])
	}
	h.maxRev = d.Rev
	h.compact[d.Member] = d.CompactRev
	return h
}

// judge compares one snapshot's count and hash with the committed state
// at rev.
func (c *BackupConsistency) judge(e *sim.Event, hist *committedHistory, what string, rev int64, keys int, hash uint64) {
	if rev > hist.maxRev {
		c.rec.Add(e, "%s at rev %d: no member has applied that revision (the highest: %d)", what, rev, hist.maxRev)
		return
	}
	state := hist.rangeAt(keyRange{key: "", end: "\x00"}, rev)
	want := etcdtrace.StateHash(state)
	if keys != len(state) || hash != want {
		c.rec.Add(e, "%s at rev %d: %d keys, hash %016x; the committed state at rev %d has %d keys, hash %016x",
			what, rev, keys, hash, rev, len(state), want)
	}
}

// Finish implements Check.
func (c *BackupConsistency) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d snapshots and %d stored backups equal the committed state at their revision", c.saves, c.stored))
}
