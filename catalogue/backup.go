package catalogue

import (
	"strings"
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

// swarmBackup is etcd-swarm's Build hook: it switches etcd-backup's
// backup job on with probability 1/2, from a stream of its own, and
// reports it among the run's kinds of operation ("backup"), so that
// snapshots are saved under whatever mix of faults the seed drew.
func swarmBackup(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	if c.World.Rand("scenario/swarm-op/backup").IntN(2) != 0 {
		return nil, nil
	}
	c.SwarmOps = append(c.SwarmOps, "backup")
	return buildBackup(20*time.Second)(c, env)
}

// swarmWatchOutage switches etcd-compaction's outages of the watchers on
// with probability 1/2, from a stream of its own, and reports them among
// the run's kinds of operation ("watch-outage"): every watcher is cut off
// from the cluster for 20 to 30 s, every 40 s or so, within the faults.
// etcd-swarm compacts every 20 s, so a watch that resumes after an outage
// often resumes below the compact revision, where etcd must cancel it with
// that revision (watch-guarantees): etcd-chaos's faults strike members
// only, and never keep a watcher away that long.
func swarmWatchOutage(c *scenarios.Cluster, env scenarios.Env) {
	rng := c.World.Rand("scenario/swarm-op/watch-outage")
	if rng.IntN(2) != 0 {
		return
	}
	var watchers []string
	for _, h := range c.Clients {
		if strings.HasPrefix(h, "watcher-") {
			watchers = append(watchers, h)
		}
	}
	if len(watchers) == 0 {
		return
	}
	c.SwarmOps = append(c.SwarmOps, "watch-outage")
	outages := nemesis.Every(15*time.Second, 40*time.Second, env.FaultEnd, rng, func(at time.Duration) sim.Fault {
		d := 20*time.Second + time.Duration(rng.Int64N(int64(10*time.Second))).Truncate(time.Millisecond)
		return sim.Fault{At: at, Kind: sim.FaultIsolate, Targets: [][]string{watchers}, For: d}
	})
	for _, f := range outages {
		c.World.At(sim.Time(f.At), "swarm-watch-outage", func() { c.World.Inject(f) })
	}
}

// swarmOperators is etcd-swarm's Build hook: etcd-backup's backup job
// (swarmBackup) and etcd-strict-reconfig's incident operator, who adds,
// promotes and removes members in the middle of the faults
// (buildStrictReconfig, judged by membership-safety and reconfig-safety),
// each on with probability 1/2 from a stream of its own and reported
// among the run's kinds of operation ("backup", "members").
func swarmOperators(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	swarmWatchOutage(c, env)
	out, err := swarmBackup(c, env)
	if err != nil || c.World.Rand("scenario/swarm-op/members").IntN(2) != 0 {
		return out, err
	}
	c.SwarmOps = append(c.SwarmOps, "members")
	more, err := buildStrictReconfig(c, env)
	return append(out, more...), err
}

// backupFaults are memberFaults (a random member crashed for 5 to 10 s
// every 25 s or so, one partitioned from the rest for 10 s every 35 s or
// so), and the backup store cut off for 15 s every 45 s or so, so that
// some uploads fail and some snapshots come from a member that lags.
func backupFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	s := memberFaults(c, rng, end, recurring{10 * time.Second, 25 * time.Second, 5 * time.Second}, recurring{17 * time.Second, 35 * time.Second, 10 * time.Second})
	return append(s, nemesis.Every(30*time.Second, 45*time.Second, end, rng, func(at time.Duration) sim.Fault {
		return sim.Fault{At: at, Kind: sim.FaultIsolate, Targets: [][]string{{BackupStoreHost}}, For: 15 * time.Second}
	})...)
}

// recurring is a fault's schedule: first at first, then period apart
// (with Every's jitter), each lasting down (a crash: down to twice down).
type recurring struct{ first, period, down time.Duration }

// memberFaults are the faults on the members of the backup and membership
// scenarios: a random member crashed as crash says, and a random member
// partitioned from the others as cut says.
func memberFaults(c *nemesis.Cluster, rng *sim.Stream, end time.Duration, crash, cut recurring) sim.Schedule {
	s := nemesis.Every(crash.first, crash.period, end, rng, func(at time.Duration) sim.Fault {
		m, _ := nemesis.PickMember(c, rng)
		d := crash.down + time.Duration(rng.Int64N(int64(crash.down))).Truncate(time.Millisecond)
		return sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{m}}, For: d}
	})
	return append(s, nemesis.Every(cut.first, cut.period, end, rng, func(at time.Duration) sim.Fault {
		m, others := nemesis.PickMember(c, rng)
		return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{m}, others}, For: cut.down}
	})...)
}
