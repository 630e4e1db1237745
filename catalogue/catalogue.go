package catalogue

import (
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// specs returns the catalogue's scenarios, in the order `kubesim scenarios`
// lists them and init registers them.
func specs() []scenarios.Spec {
	specs := []scenarios.Spec{
		{
			Name:        "etcd-leader-crash",
			Description: "the etcd leader crashes every 30 s and restarts 10 s later; a new leader takes over within the election timeout",
			Topology:    scenarios.CompactEvery(20 * time.Second),
			Faults:      nemesis.Periodic(20*time.Second, 30*time.Second, sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"etcd-leader"}}, For: 10 * time.Second}),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 6, Members: 3, Seed: 1, Reaches: "leader crashes: elections, restarts from the WAL, watch resume at the asked revision"},
			},
		},
		{
			Name:        "etcd-leader-partition",
			Description: "the etcd leader is cut off from everyone for 15 s, every 40 s: the majority elects a new leader, the old one steps down",
			Topology:    scenarios.CompactEvery(20 * time.Second),
			Faults:      nemesis.Periodic(20*time.Second, 40*time.Second, sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{"etcd-leader"}}, For: 15 * time.Second}),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 4, Members: 5, Seed: 1, Reaches: "an isolated leader: CheckQuorum step-down, PreVote, client failover"},
				{Rank: 5, Members: 5, Seed: 16, Reaches: "an isolated leader serving reads: ReadIndex for linearizable reads (this seed catches etcd-local-reads)"},
			},
		},
		{
			Name:        "etcd-minority-partition",
			Description: "a minority of members is partitioned from the rest (and from clients) for 20 s, every 40 s: the majority side keeps serving",
			Topology:    scenarios.CompactEvery(15 * time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				minority, rest := nemesis.Split(c, (len(c.Members)-1)/2)
				if len(minority) == 0 {
					return nil
				}
				return nemesis.Every(20*time.Second, 40*time.Second, end, rng, func(at time.Duration) sim.Fault {
					return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{minority, rest}, For: 20 * time.Second}
				})
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 9, Members: 5, Seed: 2, Reaches: "a partitioned minority: term bumps held back by PreVote, catch-up after heal"},
			},
		},
		{
			Name:        "etcd-majority-down",
			Description: "a quorum of members crashes for 30 s: writes must stop completely, and safety must hold throughout",
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return sim.Schedule{{At: 30 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-quorum"}}, For: 30 * time.Second}}
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 8, Members: 4, Seed: 1, Reaches: "a quorum of four down: no write without quorum, even member counts"},
			},
		},
		{
			Name:        "etcd-flaky-network",
			Description: "every link loses 5%, duplicates 5% and reorders 10% of messages, with up to 10 ms extra delay, for most of the run",
			Topology:    scenarios.CompactEvery(20 * time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"*"}}, For: end - 5*time.Second,
					Loss: 0.05, Dup: 0.05, Reorder: 0.1, Delay: 10 * time.Millisecond}}
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 7, Members: 3, Seed: 2, Reaches: "loss, duplicates and reordering: apply de-duplication, Txn compares, retransmission"},
			},
		},
		{
			Name:        "etcd-rolling-restart",
			Description: "each member in turn is stopped for 10 s and restarted, 20 s apart, as in an upgrade",
			Topology:    scenarios.CompactEvery(30 * time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				var s sim.Schedule
				at := 15 * time.Second
				for i := 0; at+10*time.Second <= end; i++ {
					s = append(s, sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{c.Members[i%len(c.Members)]}}, For: 10 * time.Second})
					at += 20 * time.Second
				}
				return s
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 10, Members: 3, Seed: 1, Reaches: "each member restarted in turn: snapshots, log compaction, catch-up by snapshot"},
			},
		},
		{
			Name:        "etcd-pause",
			Description: "the etcd leader freezes for 3 s (a GC pause or SIGSTOP, longer than the election timeout) every 20 s",
			Topology:    scenarios.CompactEvery(20 * time.Second),
			Faults:      nemesis.Periodic(15*time.Second, 20*time.Second, sim.Fault{Kind: sim.FaultPause, Targets: [][]string{{"etcd-leader"}}, For: 3 * time.Second}),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 11, Members: 5, Seed: 1, Reaches: "a paused leader: stale leader, elections while it sleeps, lease-free reads"},
			},
		},
		{
			Name:        "etcd-power-loss",
			Description: "every member loses power at once every 15 s and comes back 5 s later: only what was fsynced survives",
			Topology:    scenarios.CompactEvery(15 * time.Second),
			Faults:      nemesis.Periodic(10*time.Second, 15*time.Second, sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"etcd"}}, For: 5 * time.Second}),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 1, Members: 3, Seed: 4, Reaches: "power loss of every member: only fsynced WAL and hard state survive; WAL replay, torn tails"},
				{Rank: 2, Members: 3, Seed: 1, Reaches: "power loss: raft persists before it acks (this seed catches raft-ack-before-fsync)"},
			},
		},
		{
			Name:        "etcd-profile",
			Description: "faults drawn from a fault profile (sweeps pass --faults); by default crash-restart with MTTF 60 s and MTTR 20 s per member",
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				p, _ := nemesis.ParseProfile(scenarios.DefaultProfile)
				return p.Schedule(c, rng, end)
			},
		},
		{
			Name:        "raft-figure-8",
			Description: "a nemesis steers the cluster through the Raft paper's Figure 8: old-term entries on a minority, a leader that appends and dies, the old leader back; safe Raft never loses a committed entry here",
			Duration:    90 * time.Second,
			Driver:      nemesis.Figure8Driver,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 3, Members: 5, Seed: 2, Reaches: "the Figure 8 nemesis: old-term entries, the current-term commit rule, log conflict backtracking"},
			},
		},
		{
			Name:        "etcd-chaos",
			Description: "a random schedule drawn from the seed: crashes, torn writes, partitions, one-way cuts, pauses, flaky links, drifting clocks and slow disks",
			Topology:    scenarios.CompactEvery(20 * time.Second),
			Faults:      nemesis.ChaosSchedule,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 12, Members: 5, Seed: 5, Reaches: "random crashes, torn writes, partitions, one-way cuts, pauses, flaky links"},
				{Rank: 13, Members: 3, Seed: 3, Reaches: "random faults at three members"},
			},
		},
		{
			Name: "etcd-compaction",
			Description: "the compactor runs every 10 s (kube-apiserver's --etcd-compaction-interval set low, as an operator can) and the watchers lose the cluster for 20 to 30 s, every 40 s: " +
				"their watches resume below the compact revision and are canceled with it, and they relist; historical reads below it fail as compacted, and every member applies every compaction",
			Topology: scenarios.CompactEvery(10 * time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				var watchers []string
				for _, h := range c.Clients {
					if strings.HasPrefix(h, "watcher-") {
						watchers = append(watchers, h)
					}
				}
				return nemesis.Every(15*time.Second, 40*time.Second, end, rng, func(at time.Duration) sim.Fault {
					d := 20*time.Second + time.Duration(rng.Int64N(int64(10*time.Second))).Truncate(time.Millisecond)
					return sim.Fault{At: at, Kind: sim.FaultIsolate, Targets: [][]string{watchers}, For: d}
				})
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 14, Members: 3, Seed: 1, Reaches: "compaction every 10 s under cut-off watchers: compacted watches canceled with the compact revision, relists, reads below it"},
			},
		},
		{
			Name: "etcd-slow-disk",
			Description: "a member's disk turns slow (every fsync takes 200 to 800 ms) for 15 s, every 25 s, and 5 s into it the other members lose it for 4 s; the second time it is the leader's, which the followers outrun: " +
				"each client talks to one member only (as kubeadm's stacked control plane points each API server at its local member), so clients read linearizably through a member that applies behind the quorum's commits; each read waits until the member has applied its read index, so none is stale",
			Topology: func(members int) scenarios.Topology {
				t := scenarios.CompactEvery(20 * time.Second)(members)
				t.Clients, t.Think, t.PinClients = 4, 60*time.Millisecond, true
				return t
			},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				var s sim.Schedule
				n := 0
				for at := 10 * time.Second; at+15*time.Second <= end; at += 25*time.Second + time.Duration(rng.Int64N(int64(2*time.Second))).Truncate(time.Millisecond) {
					n++
					fsync := 200*time.Millisecond + time.Duration(rng.Int64N(int64(600*time.Millisecond))).Truncate(time.Millisecond)
					if n == 2 {
						s = append(s, sim.Fault{At: at, Kind: sim.FaultSlowDisk, Targets: [][]string{{"etcd-leader"}}, For: 15 * time.Second, Fsync: fsync})
						continue
					}
					m, others := nemesis.PickMember(c, rng)
					s = append(s, sim.Fault{At: at, Kind: sim.FaultSlowDisk, Targets: [][]string{{m}}, For: 15 * time.Second, Fsync: fsync})
					if len(others) > 0 {
						s = append(s, sim.Fault{At: at + 5*time.Second, Kind: sim.FaultPartition, Targets: [][]string{{m}, others}, For: 4 * time.Second})
					}
				}
				return s
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 17, Members: 4, Seed: 1, Reaches: "slow fsyncs on a member: the leader sends before its own fsync, reads wait for apply"},
			},
		},
		{
			Name: "etcd-long-pause",
			Description: "the etcd leader freezes for 5 to 15 s (a stop-the-world pause, a VM stall), every 35 s, far past its election timeout: the others elect a new leader, and the old one's connections from its peers stay broken until 0.5 to 1.5 s after it resumes, so it resumes believing it leads while its clients (each talks to one member only) keep calling it: " +
				"it must commit nothing and serve no stale linearizable read until CheckQuorum makes it step down",
			Topology: func(members int) scenarios.Topology {
				t := scenarios.CompactEvery(20 * time.Second)(members)
				t.PinClients = true
				return t
			},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				var s sim.Schedule
				for at := 10 * time.Second; ; at += 35*time.Second + time.Duration(rng.Int64N(int64(3*time.Second))).Truncate(time.Millisecond) {
					pause := 5*time.Second + time.Duration(rng.Int64N(int64(10*time.Second))).Truncate(time.Millisecond)
					cut := pause + 500*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second))).Truncate(time.Millisecond)
					if at+cut > end {
						return s
					}
					s = append(s,
						sim.Fault{At: at, Kind: sim.FaultOneWay, Targets: [][]string{{"etcd-followers"}, {"etcd-leader"}}, For: cut},
						sim.Fault{At: at, Kind: sim.FaultPause, Targets: [][]string{{"etcd-leader"}}, For: pause})
				}
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 15, Members: 3, Seed: 2, Reaches: "a leader frozen past its election timeout: ReadIndex after a pause (this seed catches raft-lease-reads)"},
			},
		},
		{
			Name: "etcd-backup",
			Description: "the operator's backup job saves a snapshot (etcdctl snapshot save) from a random member every 20 s and uploads it to a backup store, a host of its own, while members crash and are partitioned away and the store is cut off now and then; " +
				"every snapshot and every stored backup must be the committed state at its revision",
			Topology: scenarios.CompactEvery(20 * time.Second),
			Faults:   backupFaults,
			Build:    buildBackup(20 * time.Second),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 16, Members: 3, Seed: 1, Reaches: "snapshots saved from members under faults and uploaded to a store that is cut off: point-in-time reads (this seed catches snapshot-not-point-in-time)"},
			},
		},
		{
			Name: "etcd-swarm",
			Description: "swarm testing of etcd-chaos: each seed switches each of etcd-chaos's kinds of fault on with probability 1/2 (at least one) and draws about as many faults of those kinds only, and each of the KV clients' kinds of operation likewise (gets, range reads, historical reads, puts, compare-and-swaps, deletes, txns), and three more: etcd-backup's backup job (a snapshot from a random member every 20 s, judged by backup-consistency), etcd-strict-reconfig's incident operator (a member command every 1 to 3 s: learners added and promoted, voters added and removed, judged by membership-safety and reconfig-safety) and etcd-compaction's watcher outages (every watcher cut off for 20 to 30 s every 40 s or so, so that watches resume below the compact revision and must be canceled with it, judged by watch-guarantees), so that rare mixes happen: partitions and drifting clocks with no crash to mask them, a workload of deletes and txns alone; " +
				"the run prints and records which kinds were on",
			Topology: func(members int) scenarios.Topology {
				t := scenarios.CompactEvery(20 * time.Second)(members)
				t.SwarmOps = true
				return t
			},
			Faults: nemesis.EtcdChaos.Swarm,
			Build:  swarmOperators,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 67, Members: 3, Seed: 8, Reaches: "partitions and a flaky network under the KV workload, the backup job and the incident operator at once: snapshots and member changes while the leader is cut off"},
			},
		},
	}
	specs = append(specs, membershipCatalogue()...)
	specs = append(specs, apiCatalogue()...)
	specs = append(specs, apiMembershipCatalogue()...)
	specs = append(specs, stackCatalogue()...)
	specs = append(specs, recoveryCatalogue()...)
	return specs
}
