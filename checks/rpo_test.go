package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// kvPut is a put of key=value at rev (created at create, version v).
func kvPut(key, value string, rev, create, v int64) etcdtrace.Change {
	return etcdtrace.Change{Type: etcdtrace.ChangePut, Key: key, Value: value, ModRev: rev, CreateRev: create, Version: v}
}

// applied is member m applying index i, which made the changes at rev.
func applied(m string, i uint64, rev int64, cs ...etcdtrace.Change) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: m, Index: i, Term: 1, Rev: rev, Changes: cs}
}

// restoreOf is member m restored into cluster 0xc1 from a snapshot at
// rev holding kvs, bumped by 1000.
func restoreOf(m string, rev int64, kvs ...etcdtrace.Change) *etcdtrace.Restore {
	return &etcdtrace.Restore{Member: m, ClusterID: 0xc1, SnapshotRev: rev, Rev: rev + 1000, CompactRev: rev + 1000,
		Keys: len(kvs), Hash: etcdtrace.StateHash(kvs), KVs: kvs}
}

// rpoTrace: the lost cluster commits a=1 (rev 2), b=1 (rev 3) and a=2
// (rev 4), each acknowledged to a traced API client; a backup at rev 3 is
// stored; the members' disks are wiped at 5 s (the loss); both members
// are restored from the rev-3 snapshot (the operator started at 40 s);
// the operator sees the cluster converged at 50 s. Pod u1 runs from before
// the loss until after the restore (48 s); pod u2 stops before the loss.
func rpoTrace(restore ...step) []sim.Event {
	steps := []step{
		at(500, &spoketrace.ContainerStart{Node: "n1", UID: "u1", Container: "c"}),
		at(600, &spoketrace.ContainerStart{Node: "n2", UID: "u2", Container: "c"}),
		at(1000, &apitrace.Call{Client: "op", Op: 1, Verb: "create"}),
		at(1000, applied("m1", 1, 2, kvPut("a", "1", 2, 2, 1))),
		at(1001, &apitrace.Return{Client: "op", Op: 1, Code: 201, RV: "2"}),
		at(2000, &apitrace.Call{Client: "op", Op: 2, Verb: "create"}),
		at(2000, applied("m1", 2, 3, kvPut("b", "1", 3, 3, 1))),
		at(2001, &apitrace.Return{Client: "op", Op: 2, Code: 201, RV: "3"}),
		at(2500, &etcdtrace.BackupStored{Store: "s", Name: "m1-rev3.db", Member: "m1", Rev: 3}),
		at(3000, &apitrace.Call{Client: "op", Op: 3, Verb: "update"}),
		at(3000, applied("m1", 3, 4, kvPut("a", "2", 4, 2, 2))),
		at(3001, &apitrace.Return{Client: "op", Op: 3, Code: 200, RV: "4"}),
		at(3500, &apitrace.Call{Client: "op", Op: 4, Verb: "get"}),
		at(3501, &apitrace.Return{Client: "op", Op: 4, Code: 200, RV: "4"}),
		at(4000, &spoketrace.ContainerStop{Node: "n2", UID: "u2", Container: "c"}),
	}
	steps = append(steps, at(40000, &etcdtrace.RecoveryStep{Operator: "dr", Step: "stop-apiservers"}))
	steps = append(steps, restore...)
	steps = append(steps, at(48000, &spoketrace.ContainerStop{Node: "n1", UID: "u1", Container: "c"}))
	steps = append(steps, at(50000, &etcdtrace.RecoveryStep{Operator: "dr", Step: "converged"}))
	var evs []sim.Event
	for i, s := range steps {
		evs = append(evs, sim.Event{Seq: uint64(i), At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Host: sim.NoHost, Data: s.data})
		if s.ms == 4000 {
			evs = append(evs, sim.Event{At: sim.Time(5 * time.Second), Kind: sim.KindFault, Host: 0, Name: string(sim.FaultWipe)})
		}
	}
	return evs
}

// TestRPOValid: restoring the newest backup loses exactly the write
// acknowledged after its revision: one revision, one API write, committed
// 1 s after the recovery point; the recovery took 45 s from the loss, 10 s
// from the operator's start; one key (a) is older than it was; pod u1 ran
// through the outage and stopped after the restore.
func TestRPOValid(t *testing.T) {
	snap := []etcdtrace.Change{kvPut("a", "1", 2, 2, 1), kvPut("b", "1", 3, 3, 1)}
	c := NewRPO([]sim.HostID{0})
	r := feedEvents(c, rpoTrace(at(45000, restoreOf("m1", 3, snap...)), at(45000, restoreOf("m2", 3, snap...))))
	require.True(t, r.OK, r.String())
	require.Equal(t, map[string]float64{"rpo_revisions_lost": 1, "rpo_writes_lost": 1, "rpo_s": 1, "rto_s": 45, "rto_procedure_s": 10,
		"rpo_keys_lost": 1, "pods_running_at_loss": 1, "pods_kept_through_outage": 1, "pods_stopped_after_restore": 1}, c.Measures())
}

// TestRPOViolations: hand-built restores that lose more than the recovery
// point allows, or invent state, are caught.
func TestRPOViolations(t *testing.T) {
	tests := []struct {
		name    string
		restore *etcdtrace.Restore
		want    string
	}{
		{"an acknowledged write below the point is missing", restoreOf("m1", 3, kvPut("a", "1", 2, 2, 1)), "lost or invented"},
		{"a write that was never committed appears", restoreOf("m1", 3, kvPut("a", "1", 2, 2, 1), kvPut("b", "1", 3, 3, 1), kvPut("c", "x", 3, 3, 1)), "lost or invented"},
		{"an older backup than the newest is restored", restoreOf("m1", 2, kvPut("a", "1", 2, 2, 1)), "beyond the recovery point"},
		{"a revision the cluster never reached", restoreOf("m1", 9), "never reached"},
	}
	for _, tt := range tests {
		r := feedEvents(NewRPO([]sim.HostID{0}), rpoTrace(at(45000, tt.restore)))
		require.False(t, r.OK, tt.name)
		require.Contains(t, r.Detail, tt.want, tt.name)
	}
}

// TestRPONoRestore: without a restore nothing is judged and the measures
// are -1.
func TestRPONoRestore(t *testing.T) {
	c := NewRPO(nil)
	r := feedEvents(c, rpoTrace())
	require.True(t, r.OK)
	require.Equal(t, -1.0, c.Measures()["rto_s"])
}
