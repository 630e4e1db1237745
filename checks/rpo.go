package checks

import (
	"fmt"
	"strconv"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// RPO checks a disaster recovery from an etcd backup: a cluster restored
// from a snapshot (etcdtrace.Restore, `etcdutl snapshot restore`) may lose
// the writes acknowledged after the snapshot's revision, its recovery
// point, and nothing else. At each member's restore it judges that
//   - the restored keys (their count and etcdtrace.StateHash) are the
//     committed state of the lost cluster at the snapshot's revision,
//     rebuilt from its members' etcdtrace.Apply events: no write
//     committed at or below the recovery point is lost, none is invented;
//   - the snapshot is the newest backup a store accepted
//     (etcdtrace.BackupStored) before the restore: restoring an older one
//     loses what the newest one kept, beyond the recovery point it
//     offered.
//
// It measures the recovery (the first restore's cluster; -1 where there
// was none): rpo_revisions_lost, the revisions the lost cluster committed
// above the recovery point (every write the control plane made there);
// rpo_writes_lost, the API writes traced clients saw acknowledged
// (apitrace.Return 2xx of create, update, update-status, patch, delete
// and bind) with a resourceVersion above it; rpo_s, from the commit of
// the recovery point to the last lost commit (0 when nothing was lost);
// rto_s, from the first loss of a member's disk (a wipe fault on an
// etcd member) to the operator's "converged" etcdtrace.RecoveryStep; and
// rto_procedure_s, from the operator's first step to that one (rto_s less
// the time the operator took to react). It also measures what was
// forgotten and what the data plane kept: rpo_keys_lost, the keys of the
// lost cluster's last committed state that the restored state lacks or
// holds at an older version; pods_running_at_loss, the pods with a
// running container (spoketrace.ContainerStart and ContainerStop) when
// the first member's disk was lost; pods_kept_through_outage, those of
// them still running at the first restore (kubelets keep their pods while
// the control plane is gone); and pods_stopped_after_restore, those of
// them whose containers all stopped after it (kubelets stop the pods the
// restored state does not know, controllers scale down what it holds
// more of).
type RPO struct {
	members   map[sim.HostID]bool
	hist      committedHistory
	revAt     []sim.Time // revAt[r]: when revision r was first applied in the lost cluster
	restored  map[uint64]bool
	member    map[string]bool // members restored: their applies are the new cluster's
	newest    int64           // the newest stored backup's revision, 0 if none
	writes    map[callID]string
	acked     []int64 // revisions of acknowledged API writes before the restore
	rec       Recorder
	restores  int
	point     int64 // the recovery point: the first restore's snapshot revision (0: none)
	lossAt    sim.Time
	lost      bool
	restoreAt sim.Time
	convergAt sim.Time
	converged bool
	startAt   sim.Time // the operator's first recovery step
	started   bool
	lastRev   int64 // highest revision the lost cluster committed before the restore
	keysLost  int
	// running counts each pod's running containers, by pod UID.
	running map[string]int
	// atLoss are the pods running at the loss; kept those of them still
	// running at the first restore.
	atLoss, kept map[string]bool
}

// ackedVerbs are the API verbs that write.
var ackedVerbs = map[string]bool{"create": true, "update": true, "update-status": true, "patch": true, "delete": true, "bind": true}

// NewRPO returns the "no-lost-acknowledged-writes-beyond-RPO" check; members
// are the etcd members' hosts, whose wipe is the loss.
func NewRPO(members []sim.HostID) *RPO {
	c := &RPO{members: map[sim.HostID]bool{}, hist: newCommittedHistory(), restored: map[uint64]bool{},
		member: map[string]bool{}, writes: map[callID]string{}, running: map[string]int{}}
	for _, m := range members {
		c.members[m] = true
	}
	return c
}

// Name implements Check.
func (c *RPO) Name() string { return "no-lost-acknowledged-writes-beyond-RPO" }

// Observe implements Check.
func (c *RPO) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if e.Name == string(sim.FaultWipe) && c.members[e.Host] && !c.lost {
			c.lost, c.lossAt = true, e.At
			c.atLoss = c.runningPods()
		}
		return
	}
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		if c.member[d.Member] || c.restores > 0 {
			return
		}
		c.hist.apply(d)
		for r := int64(len(c.revAt)); r <= d.Rev; r++ {
			c.revAt = append(c.revAt, e.At)
		}
		c.lastRev = max(c.lastRev, d.Rev)
	case *etcdtrace.BackupStored:
		if c.restores == 0 {
			c.newest = max(c.newest, d.Rev)
		}
	case *apitrace.Call:
		if ackedVerbs[d.Verb] && c.restores == 0 {
			c.writes[callID{d.Client, d.Op}] = d.Verb
		}
	case *apitrace.Return:
		if _, ok := takeCall(c.writes, d.Client, d.Op); !ok {
			return
		}
		if rv, err := strconv.ParseInt(d.RV, 10, 64); err == nil && d.Code >= 200 && d.Code < 300 && c.restores == 0 {
			c.acked = append(c.acked, rv)
		}
	case *spoketrace.ContainerStart:
		c.running[d.UID]++
	case *spoketrace.ContainerStop:
		if c.running[d.UID]--; c.running[d.UID] <= 0 {
			delete(c.running, d.UID)
		}
	case *etcdtrace.Restore:
		c.observeRestore(e, d)
	case *etcdtrace.RecoveryStep:
		if !c.started {
			c.started, c.startAt = true, e.At
		}
		if d.Step == "converged" && d.Err == "" && !c.converged && c.restores > 0 {
			c.converged, c.convergAt = true, e.At
		}
	}
}

// observeRestore judges one member's restore.
func (c *RPO) observeRestore(e *sim.Event, d *etcdtrace.Restore) {
	c.member[d.Member] = true
	if c.restores == 0 {
		c.point, c.restoreAt = d.SnapshotRev, e.At
		c.kept = map[string]bool{}
		for _, uid := range sim.SortedKeys(c.atLoss) {
			if c.running[uid] > 0 {
				c.kept[uid] = true
			}
		}
		c.keysLost = keysLost(c.hist.rangeAt(keyRange{key: "", end: "\x00"}, c.hist.maxRev), d.KVs)
	}
	c.restores++
	if c.restored[d.ClusterID] {
		return
	}
	c.restored[d.ClusterID] = true
	what := fmt.Sprintf("restore of %s into cluster %x from the snapshot at rev %d", d.Member, d.ClusterID, d.SnapshotRev)
	if d.SnapshotRev > c.hist.maxRev {
		c.rec.Add(e, "%s: the lost cluster never reached that revision (the highest: %d)", what, c.hist.maxRev)
		return
	}
	state := c.hist.rangeAt(keyRange{key: "", end: "\x00"}, d.SnapshotRev)
	if want := etcdtrace.StateHash(state); d.Keys != len(state) || d.Hash != want {
		c.rec.Add(e, "%s: %d keys, hash %016x; the committed state at rev %d has %d keys, hash %016x: writes at or below the recovery point are lost or invented",
			what, d.Keys, d.Hash, d.SnapshotRev, len(state), want)
	}
	if d.SnapshotRev < c.newest {
		c.rec.Add(e, "%s: a backup at rev %d was stored before it: the writes up to rev %d are lost beyond the recovery point the backups offered",
			what, c.newest, c.newest)
	}
}

// runningPods returns the pods with a running container.
func (c *RPO) runningPods() map[string]bool {
	out := map[string]bool{}
	for _, uid := range sim.SortedKeys(c.running) {
		out[uid] = true
	}
	return out
}

// keysLost counts the keys of last that restored lacks or holds at an
// older mod revision.
func keysLost(last, restored []etcdtrace.Change) int {
	have := make(map[string]int64, len(restored))
	for _, kv := range restored {
		have[kv.Key] = kv.ModRev
	}
	n := 0
	for _, kv := range last {
		if rev, ok := have[kv.Key]; !ok || rev < kv.ModRev {
			n++
		}
	}
	return n
}

// Finish implements Check.
func (c *RPO) Finish() Result {
	if c.restores == 0 {
		return c.rec.Result(c.Name(), "no restore")
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("%d members restored from the snapshot at rev %d, the newest backup (%d); the restored state is the committed state there; %d revisions and %d acknowledged API writes above it lost",
		c.restores, c.point, c.newest, c.revisionsLost(), c.writesLost()))
}

// revisionsLost counts the revisions committed above the recovery point.
func (c *RPO) revisionsLost() int64 { return max(c.lastRev-c.point, 0) }

// writesLost counts the acknowledged API writes above the recovery point.
func (c *RPO) writesLost() int {
	n := 0
	for _, rv := range c.acked {
		if rv > c.point {
			n++
		}
	}
	return n
}

// Measures implements Measurer: rpo_revisions_lost, rpo_writes_lost,
// rpo_s, rto_s, rto_procedure_s, rpo_keys_lost, pods_running_at_loss,
// pods_kept_through_outage and pods_stopped_after_restore.
func (c *RPO) Measures() map[string]float64 {
	if c.restores == 0 {
		return map[string]float64{"rpo_revisions_lost": -1, "rpo_writes_lost": -1, "rpo_s": -1, "rto_s": -1, "rto_procedure_s": -1,
			"rpo_keys_lost": -1, "pods_running_at_loss": -1, "pods_kept_through_outage": -1, "pods_stopped_after_restore": -1}
	}
	rpo := 0.0
	if c.lastRev > c.point && c.point < int64(len(c.revAt)) {
		rpo = c.revAt[c.lastRev].Sub(c.revAt[c.point]).Seconds()
	}
	rto, proc := -1.0, -1.0
	if c.lost && c.converged {
		rto = c.convergAt.Sub(c.lossAt).Seconds()
	}
	if c.converged {
		proc = c.convergAt.Sub(c.startAt).Seconds()
	}
	stopped := 0
	for _, uid := range sim.SortedKeys(c.kept) {
		if c.running[uid] == 0 {
			stopped++
		}
	}
	return map[string]float64{"rpo_revisions_lost": float64(c.revisionsLost()), "rpo_writes_lost": float64(c.writesLost()),
		"rpo_s": rpo, "rto_s": rto, "rto_procedure_s": proc, "rpo_keys_lost": float64(c.keysLost),
		"pods_running_at_loss": float64(len(c.atLoss)), "pods_kept_through_outage": float64(len(c.kept)), "pods_stopped_after_restore": float64(stopped)}
}

var (
	_ Check    = (*RPO)(nil)
	_ Measurer = (*RPO)(nil)
)
