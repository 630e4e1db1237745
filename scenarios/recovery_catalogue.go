package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/etcd/backup"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Timings of the disaster-recovery scenarios.
const (
	// recoveryBackupInterval is the backup job's schedule.
	recoveryBackupInterval = 20 * time.Second
	// recoveryLossFrom and recoveryLossSpan place the loss of the quorum:
	// drawn in [80 s, 110 s), so that the time since the newest backup,
	// and with it the writes lost, varies with the seed.
	recoveryLossFrom = 80 * time.Second
	recoveryLossSpan = 30 * time.Second
	// recoveryStart is when the operator, paged by the outage, starts
	// the procedure.
	recoveryStart = 130 * time.Second
	// recoveryCounterThink is the counter writer's mean pause: the
	// acknowledged writes whose loss rpo_writes_lost counts.
	recoveryCounterThink = 500 * time.Millisecond
)

// recoveryCatalogue returns the disaster-recovery scenarios.
func recoveryCatalogue() []Spec {
	return []Spec{{
		Name: "etcd-disaster-recovery",
		Description: "the backup job saves a snapshot every 20 s; between 80 and 110 s a quorum of etcd members loses its disks for good and the rest lose power; at 130 s the operator stops the API servers and the surviving members, fetches the newest backup from the backup store, restores it with etcdutl snapshot restore --bump-revision --mark-compacted into a new cluster on the same hosts (new member and cluster IDs) and restarts etcd and then the API servers: " +
			"the restored state is the committed state at the backup's revision and only the writes acknowledged after it are lost (rpo_writes_lost, rpo_revisions_lost), every informer gets 410 and relists without going back in time, controllers reconcile, kubelets stop the pods that the restored state does not know, and the cluster converges (rto_s)",
		Duration: 420 * time.Second, Settle: 420*time.Second - recoveryStart,
		Stack: &StackTopology{Nodes: 4, Script: func(*StackLayer) []apiload.Step {
			return []apiload.Step{CreateStep(15*time.Second, web(4)), CreateStep(15*time.Second, NewService("web", 80)),
				CreateStep(45*time.Second, NewReplicaSet("batch", 2, AppSpec{})),
				ScaleReplicaSet(75*time.Second, WorkloadNamespace, "web", 6),
				ScaleReplicaSet(95*time.Second, WorkloadNamespace, "batch", 1)}
		}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			at := recoveryLossFrom + time.Duration(rng.Int64N(int64(recoveryLossSpan))).Truncate(time.Millisecond)
			q := len(c.Members)/2 + 1
			s := sim.Schedule{{At: at, Kind: sim.FaultWipe, Targets: [][]string{c.Members[:q]}}}
			if q < len(c.Members) {
				// The rest lose power with them, their disks intact: no
				// backup can be taken after the loss.
				s = append(s, sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{c.Members[q:]}})
			}
			return s
		},
		Build:       buildRecovery(recoveryBackupInterval, recoveryStart),
		EtcdClients: []string{BackupJobHost},
	}}
}

// buildRecovery returns a Build hook that adds the backup store and job
// (as buildBackup, the job with etcd's client certificates: role
// RoleEtcdOperator), a counter writer whose acknowledged increments measure
// the writes lost, and the recovery operator starting at start; its checks
// are backup-consistency, no-lost-acknowledged-writes-beyond-RPO and
// time-travel (on the observer informer). With the restore-without-bump
// ablation the operator restores without --bump-revision and
// --mark-compacted.
func buildRecovery(interval, start time.Duration) func(c *Cluster, env Env) ([]checks.Check, error) {
	return func(c *Cluster, env Env) ([]checks.Check, error) {
		w := c.World
		st, err := w.AddHost(sim.HostSpec{Name: BackupStoreHost, Role: "backup-store", Boot: backup.BootStore()})
		if err != nil {
			return nil, err
		}
		job := backup.JobConfig{Members: c.MemberIDs(), Store: st.ID(), Interval: interval}
		if _, err := w.AddHost(sim.HostSpec{Name: BackupJobHost, Role: RoleEtcdOperator, Boot: backup.BootJob(job)}); err != nil {
			return nil, err
		}
		servers := c.Stack.ServerIDs
		cfg := RecoveryConfig{Start: start, NoBump: env.Ablations.Has(ablation.RestoreWithoutBump), Token: "kubesim-restored"}
		if _, err := w.AddHost(sim.HostSpec{Name: RecoveryOperatorHost, Role: RoleOperator, Boot: bootRecovery(cfg, c.Members, st.ID(), servers)}); err != nil {
			return nil, err
		}
		counter := apiload.CounterConfig{Name: "counter", Servers: servers, Think: recoveryCounterThink, Until: env.End - QuietWindow}
		if _, err := w.AddHost(sim.HostSpec{Name: "counter", Role: RoleAPIClient, Boot: apiload.BootCounter(counter)}); err != nil {
			return nil, err
		}
		c.Stack.Clients = append(c.Stack.Clients, "counter")
		return []checks.Check{checks.NewBackupConsistency(), checks.NewRPO(c.MemberIDs()), checks.NewTimeTravel()}, nil
	}
}
