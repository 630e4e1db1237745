package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
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
type BackupConsistency struct {
	hist   committedHistory
	rec    Recorder
	saves  int
	stored int
}

// NewBackupConsistency returns the "backup-consistency" check.
func NewBackupConsistency() *BackupConsistency {
	return &BackupConsistency{hist: newCommittedHistory()}
}

// Name implements Check.
func (c *BackupConsistency) Name() string { return "backup-consistency" }

// Observe implements Check.
func (c *BackupConsistency) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.Apply:
		c.hist.apply(d)
	case *etcdtrace.SnapshotSave:
		c.saves++
		c.judge(e, fmt.Sprintf("snapshot of %s", d.Member), d.Rev, d.Keys, d.Hash)
	case *etcdtrace.BackupStored:
		c.stored++
		c.judge(e, fmt.Sprintf("backup %s on %s (from %s)", d.Name, d.Store, d.Member), d.Rev, d.Keys, d.Hash)
	}
}

// judge compares one snapshot's count and hash with the committed state
// at rev.
func (c *BackupConsistency) judge(e *sim.Event, what string, rev int64, keys int, hash uint64) {
	if rev > c.hist.maxRev {
		c.rec.Add(e, "%s at rev %d: no member has applied that revision (the highest: %d)", what, rev, c.hist.maxRev)
		return
	}
	state := c.hist.rangeAt(keyRange{key: "", end: "\x00"}, rev)
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
