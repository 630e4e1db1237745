package catalogue

import (
	"strconv"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/etcd/backup"
	"github.com/kubesim/kubesim/scenarios"
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

// recoveryManifests are the workload's manifests as the operator keeps
// them in version control: what the script creates first.
func recoveryManifests() []model.Object {
	return []model.Object{web(4), scenarios.NewService("web", 80), scenarios.NewReplicaSet("batch", 2, scenarios.AppSpec{})}
}

// recoveryScript declares the workload and changes it over time, so that
// some changes land after the newest backup.
func recoveryScript(*scenarios.StackLayer) []apiload.Step {
	m := recoveryManifests()
	return []apiload.Step{scenarios.CreateStep(15*time.Second, m[0]), scenarios.CreateStep(15*time.Second, m[1]), scenarios.CreateStep(45*time.Second, m[2]),
		scenarios.ScaleReplicaSet(75*time.Second, scenarios.WorkloadNamespace, "web", 6),
		scenarios.ScaleReplicaSet(95*time.Second, scenarios.WorkloadNamespace, "batch", 1)}
}

// recoveryLoss draws the loss time in [recoveryLossFrom,
// recoveryLossFrom+recoveryLossSpan).
func recoveryLoss(rng *sim.Stream) time.Duration {
	return recoveryLossFrom + time.Duration(rng.Int64N(int64(recoveryLossSpan))).Truncate(time.Millisecond)
}

// recoveryCatalogue returns the disaster-recovery scenarios.
func recoveryCatalogue() []scenarios.Spec {
	dr := DisasterRecoveryEvery(recoveryBackupInterval)
	dr.BugHunt = []scenarios.BugHuntRun{
		{Rank: 34, Members: 3, Seed: 4, Reaches: "a quorum lost for good under the full stack: periodic backups, restore with --bump-revision and --mark-compacted onto fresh hosts, informers' 410 and relists (this seed catches restore-without-bump, restore-last-by-name and restore-drops-keys-range)"},
	}
	return []scenarios.Spec{dr, {
		Name: "etcd-amnesia",
		Description: "there is no backup: between 80 and 110 s every etcd member loses its disk; at 130 s the operator starts etcd as a new, empty cluster, restarts the API servers and every kubelet (a kubelet registers its Node only when it starts) and re-applies the workload's manifests from version control: " +
			"the cluster forgets every object and every change made since the manifests (rpo_keys_lost, rpo_revisions_lost: everything), the kubelets keep running their pods through the outage (pods_kept_through_outage) and stop them once the empty state tells them the pods are gone (pods_stopped_after_restore), and the re-applied workload converges with new pods (rto_s)",
		Duration: 420 * time.Second, Settle: 420*time.Second - recoveryStart,
		Stack: &scenarios.StackTopology{Nodes: 4, Script: recoveryScript},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			return sim.Schedule{{At: recoveryLoss(rng), Kind: sim.FaultWipe, Targets: [][]string{{"etcd"}}}}
		},
		Build: buildAmnesia(recoveryStart),
	}}
}

// buildAmnesia returns a Build hook that adds the counter writer and the
// recovery operator without a backup (RecoveryConfig.NoBackup), who
// re-applies recoveryManifests; its check is
// no-lost-acknowledged-writes-beyond-RPO, which measures what is lost.
func buildAmnesia(start time.Duration) func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	return func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		cfg := RecoveryConfig{Start: start, Token: "kubesim-amnesia", NoBackup: true, Manifests: recoveryManifests()}
		if err := addRecoveryHosts(c, env, cfg, sim.NoHost); err != nil {
			return nil, err
		}
		return []checks.Check{checks.NewRPO(c.MemberIDs())}, nil
	}
}

// addRecoveryHosts adds the recovery operator (with the backup store
// store, or sim.NoHost) and the counter writer.
func addRecoveryHosts(c *scenarios.Cluster, env scenarios.Env, cfg RecoveryConfig, store sim.HostID) error {
	w := c.World
	servers := c.Stack.ServerIDs
	if _, err := w.AddHost(sim.HostSpec{Name: RecoveryOperatorHost, Role: scenarios.RoleOperator, Boot: bootRecovery(cfg, c.Members, store, servers)}); err != nil {
		return err
	}
	counter := apiload.CounterConfig{WorkloadConfig: apiload.WorkloadConfig{Name: "counter", Servers: servers, Think: recoveryCounterThink, Until: env.End - scenarios.QuietWindow}}
	if _, err := w.AddHost(sim.HostSpec{Name: "counter", Role: scenarios.RoleAPIClient, Boot: apiload.BootCounter(counter)}); err != nil {
		return err
	}
	c.Stack.Clients = append(c.Stack.Clients, "counter")
	return nil
}

// buildRecovery returns a Build hook that adds the backup store and job
// (as buildBackup, the job with etcd's client certificates: role
// RoleEtcdOperator), a fresh host for each member to restore onto
// (addSpareMembers), a counter writer whose acknowledged increments
// measure the writes lost, and the recovery operator starting at start; its checks
// are backup-consistency, no-lost-acknowledged-writes-beyond-RPO,
// restored-reads (the fresh hosts' members trace what they serve),
// time-travel (on the observer informer) and api-recovers. With the restore-without-bump
// ablation the operator restores without --bump-revision and
// --mark-compacted; with restore-last-by-name it restores the backup
// whose name sorts last instead of the newest.
func buildRecovery(interval, start time.Duration) func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	return func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		w := c.World
		st, err := w.AddHost(sim.HostSpec{Name: BackupStoreHost, Role: "backup-store", Boot: backup.BootStore()})
		if err != nil {
			return nil, err
		}
		job := backup.JobConfig{Members: c.MemberIDs(), Store: st.ID(), Interval: interval}
		if _, err := w.AddHost(sim.HostSpec{Name: BackupJobHost, Role: scenarios.RoleEtcdOperator, Boot: backup.BootJob(job)}); err != nil {
			return nil, err
		}
		fresh, err := addSpareMembers(c, env.Ablations)
		if err != nil {
			return nil, err
		}
		cfg := RecoveryConfig{Start: start, NoBump: env.Ablations.Has(ablation.RestoreWithoutBump),
			LastByName: env.Ablations.Has(ablation.RestoreLastByName), Token: "kubesim-restored", Hosts: fresh,
			StaticEtcdServers: env.Ablations.Has(ablation.APIServerStaticEtcdServers), Ablations: env.Ablations}
		if err := addRecoveryHosts(c, env, cfg, st.ID()); err != nil {
			return nil, err
		}
		return []checks.Check{checks.NewBackupConsistency(), checks.NewRPO(c.MemberIDs()), checks.NewRestoredReads(), checks.NewTimeTravel(),
			checks.NewAPIRecovers(checks.DefaultAPIRecoversBound)}, nil
	}
}

// DisasterRecoveryEvery is etcd-disaster-recovery with a backup every
// interval (the catalogue's takes one every 20 s), named
// etcd-disaster-recovery-every-<interval> for any other interval: what a
// sweep over the backup interval runs (reports.RecoveryClaims judges it).
func DisasterRecoveryEvery(interval time.Duration) scenarios.Spec {
	name := "etcd-disaster-recovery"
	if interval != recoveryBackupInterval {
		name += "-every-" + interval.String()
	}
	return scenarios.WithDefaults(scenarios.Spec{
		Name: name,
		Description: "the backup job saves a snapshot every " + strconv.FormatFloat(interval.Seconds(), 'g', -1, 64) + " s; between 80 and 110 s a quorum of etcd members loses its disks for good and the rest lose power; at 130 s the operator points the API servers' --etcd-servers at fresh hosts and stops the API servers, fetches the newest backup from the backup store, restores it with etcdutl snapshot restore --bump-revision --mark-compacted into a new cluster on the fresh hosts (new member and cluster IDs; the lost members stay down for good) and starts etcd there and then the API servers: " +
			"the restored state is the committed state at the backup's revision and only the writes acknowledged after it are lost (rpo_writes_lost, rpo_revisions_lost), every informer gets 410 and relists without going back in time, controllers reconcile, kubelets stop the pods that the restored state does not know, and the cluster converges (rto_s)",
		Duration: 420 * time.Second, Settle: 420*time.Second - recoveryStart,
		Stack: &scenarios.StackTopology{Nodes: 4, Script: recoveryScript},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			at := recoveryLoss(rng)
			q := len(c.Members)/2 + 1
			s := sim.Schedule{{At: at, Kind: sim.FaultWipe, Targets: [][]string{c.Members[:q]}}}
			if q < len(c.Members) {
				// The rest lose power with them, their disks intact: no
				// backup can be taken after the loss.
				s = append(s, sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{c.Members[q:]}})
			}
			return s
		},
		Build:       buildRecovery(interval, recoveryStart),
		EtcdClients: []string{BackupJobHost},
	})
}
