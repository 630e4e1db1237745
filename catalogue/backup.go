package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/nodes/etcd/backup"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// The hosts of the backup scenarios.
const (
	BackupStoreHost = "backup-store"
	BackupJobHost   = "backup-job"
)

// buildBackup returns a Build hook that adds a backup store and the
// operator's backup job, which saves a snapshot from a random member
// every interval, and judges the snapshots with
// backup-consistency.
func buildBackup(interval time.Duration) func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	return func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		st, err := c.World.AddHost(sim.HostSpec{Name: BackupStoreHost, Role: "backup-store", Boot: backup.BootStore()})
		if err != nil {
			return nil, err
		}
		job := backup.JobConfig{Members: c.MemberIDs(), Store: st.ID(), Interval: interval}
		if _, err := c.World.AddHost(sim.HostSpec{Name: BackupJobHost, Role: "operator", Boot: backup.BootJob(job)}); err != nil {
			return nil, err
		}
		return []checks.Check{checks.NewBackupConsistency()}, nil
	}
}

// backupFaults crashes a random member for 5 to 10 s every 25 s or so,
// partitions a random member from the rest for 10 s every 35 s or so, and
// cuts the backup store off for 15 s every 45 s or so, so that some
// uploads fail and some snapshots come from a member that lags.
func backupFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	var s sim.Schedule
	s = append(s, nemesis.Every(10*time.Second, 25*time.Second, end, rng, func(at time.Duration) sim.Fault {
		m := c.Members[rng.IntN(len(c.Members))]
		d := 5*time.Second + time.Duration(rng.Int64N(int64(5*time.Second))).Truncate(time.Millisecond)
		return sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{m}}, For: d}
	})...)
	s = append(s, nemesis.Every(17*time.Second, 35*time.Second, end, rng, func(at time.Duration) sim.Fault {
		i := rng.IntN(len(c.Members))
		others := append(append([]string(nil), c.Members[:i]...), c.Members[i+1:]...)
		return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{c.Members[i]}, others}, For: 10 * time.Second}
	})...)
	s = append(s, nemesis.Every(30*time.Second, 45*time.Second, end, rng, func(at time.Duration) sim.Fault {
		return sim.Fault{At: at, Kind: sim.FaultIsolate, Targets: [][]string{{BackupStoreHost}}, For: 15 * time.Second}
	})...)
	return s
}
