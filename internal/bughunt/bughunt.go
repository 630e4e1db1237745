// Package bughunt is the bug-hunt set: a small, fixed matrix of catalogue
// scenario runs chosen to reach every mechanism of the node packages, fast
// enough to judge each mutant of a mutation-testing run
// (scripts/mutation.sh, docs/mutation.md).
//
// A run of the matrix passes only when every check of every run passes, so
// a mutant that breaks a checked property fails it. TestBugHunt in
// package scenarios runs it with -bughunt; each node package runs it too,
// from a bughunt_test.go built only with the bughunt build tag, so that a
// mutant of that package is judged by its unit tests and the bug-hunt set
// in one test binary (gremlins runs `go test PKG` per mutant).
package bughunt

import (
	"fmt"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// Run is one entry of the matrix: a catalogue scenario at a member count
// and a seed, and the mechanisms it is there to reach.
type Run struct {
	Scenario string
	Members  int
	Seed     uint64
	// Reaches names the mechanisms this run is in the matrix for.
	Reaches string
}

// Name is the run's subtest name.
func (r Run) Name() string {
	return fmt.Sprintf("%s/members=%d/seed=%d", r.Scenario, r.Members, r.Seed)
}

// Options are the scenarios.Options that run it.
func (r Run) Options() scenarios.Options {
	return scenarios.Options{Scenario: r.Scenario, Members: r.Members, Seed: r.Seed}
}

// Matrix returns the bug-hunt set, in the order it runs: with -failfast, a
// mutant stops at its first failing run.
func Matrix() []Run {
	return append([]Run(nil), matrix...)
}

// matrix is one run of every catalogue scenario that carries a check of
// its own (the scenario that proves the check's ablation), so that each
// check judges the code it is about, plus the runs of the chaos scenarios
// that reach the most code no fixed schedule reaches: a greedy cover of
// the statements of nodes/... reached by 114 candidate runs (every
// scenario at 3 and 5 members, 2 seeds each, 5 for the chaos ones) picked
// the chaos seeds and the member counts. Members vary so that quorums of
// 2, 3 and 3-of-4 all run. Every ablation that a check catches is caught
// by a run of the matrix on its scenario (TestBugHuntCatchesAblations), so
// each check can fail here. The etcd runs come first: they are the
// fastest and judge the most code under the API layer.
var matrix = []Run{
	// etcd layer: raft-safety, linearizability, watch-guarantees,
	// kv-agreement, no-writes-without-quorum.
	{"etcd-power-loss", 3, 4, "power loss of every member: only fsynced WAL and hard state survive; WAL replay, torn tails"},
	{"etcd-power-loss", 3, 1, "power loss: raft persists before it acks (this seed catches raft-ack-before-fsync)"},
	{"raft-figure-8", 5, 2, "the Figure 8 nemesis: old-term entries, the current-term commit rule, log conflict backtracking"},
	{"etcd-leader-partition", 5, 1, "an isolated leader: CheckQuorum step-down, PreVote, client failover"},
	{"etcd-leader-partition", 5, 16, "an isolated leader serving reads: ReadIndex for linearizable reads (this seed catches etcd-local-reads)"},
	{"etcd-leader-crash", 3, 1, "leader crashes: elections, restarts from the WAL, watch resume at the asked revision"},
	{"etcd-flaky-network", 3, 2, "loss, duplicates and reordering: apply de-duplication, Txn compares, retransmission"},
	{"etcd-majority-down", 4, 1, "a quorum of four down: no write without quorum, even member counts"},
	{"etcd-minority-partition", 5, 2, "a partitioned minority: term bumps held back by PreVote, catch-up after heal"},
	{"etcd-rolling-restart", 3, 1, "each member restarted in turn: snapshots, log compaction, catch-up by snapshot"},
	{"etcd-pause", 5, 1, "a paused leader: stale leader, elections while it sleeps, lease-free reads"},
	{"etcd-chaos", 5, 5, "random crashes, torn writes, partitions, one-way cuts, pauses, flaky links"},
	{"etcd-chaos", 3, 3, "random faults at three members"},
	{"etcd-compaction", 3, 1, "compaction every 10 s under cut-off watchers: compacted watches canceled with the compact revision, relists, reads below it"},
	{"etcd-long-pause", 3, 2, "a leader frozen past its election timeout: ReadIndex after a pause (this seed catches raft-lease-reads)"},
	{"etcd-backup", 3, 1, "snapshots saved from members under faults and uploaded to a store that is cut off: point-in-time reads (this seed catches snapshot-not-point-in-time)"},
	{"etcd-slow-disk", 4, 1, "slow fsyncs on a member: the leader sends before its own fsync, reads wait for apply"},
	{"etcd-replace-member", 3, 1, "a wiped member replaced as etcd documents it: member remove, add as a learner caught up by snapshot, promote (this seed catches rejoin-wiped-member)"},
	{"etcd-scale-out-in", 5, 1, "growing and shrinking the membership under crashes and partitions: conf change entries, learners, strict reconfiguration checks, refused and retried member commands"},
	// API layer: api-linearizability, no-lost-updates, informer-replay,
	// time-travel, access.
	{"api-conflict-storm", 3, 2, "RetryOnConflict writers: 409s through the Txn on mod_revision, client-go's retry"},
	{"api-watch-disconnects", 3, 1, "broken watches that fail over to a lagging replica: reflector resume from the last resourceVersion"},
	{"api-watch-disconnects", 3, 3, "a relist against a lagging replica: quorum relists, no time travel (this seed catches reflector-relist-rv0 and consistent-list-from-stale-cache)"},
	{"api-compaction-410", 3, 2, "watch cache window and etcd compaction: 410 Gone, informer relists"},
	{"apiserver-crash", 4, 2, "API server crashes: watch cache rebuild, requests in flight lost, client endpoint failover, the compactor's lease after a restart (this seed catches compactor-no-learn)"},
	{"etcd-leader-partition-under-api", 5, 1, "etcd leader changes under the API servers: etcd client failover, unknown outcomes"},
	{"api-chaos", 3, 1, "random API and etcd faults: authorization and the node restriction (access)"},
	{"api-chaos", 5, 2, "random API and etcd faults at five members"},
	{"api-watch-disconnects", 3, 10, "a read at a resourceVersion the cache has not seen waits for it (this run catches cache-ignores-min-rv)"},
	{"api-conflict-storm", 3, 1, "status and spec writers, merge patches with and without a resourceVersion precondition"},
	{"api-compaction-410", 3, 1, "paged informer lists and continue tokens"},
	{"etcd-leader-partition-under-api", 3, 1, "an update refused against a lagging cache copy reads etcd"},
	{"etcd-leader-partition-under-api", 3, 3, "an update against a lagging cache copy (this seed catches update-trusts-stale-cache)"},
	{"etcd-migrate-under-api", 3, 1, "every member moved to a new host under the API layer: the API servers' --etcd-servers rolled one at a time (this seed catches apiserver-static-etcd-servers)"},
	{"etcd-disaster-recovery", 3, 1, "a quorum lost for good under the full stack: periodic backups, restore with --bump-revision and --mark-compacted onto fresh hosts, informers' 410 and relists (this seed catches restore-without-bump and restore-last-by-name)"},
	{"api-etcd-compaction", 3, 1, "API servers compact etcd: the watch cache reinitializes, exact-RV lists, 410 after an etcd compaction"},
	// The spokes: convergence, bound-once, probe-restarts, double-running,
	// eviction-timing, self-healing, leader-takeover, steady-runtime.
	{"node-death", 3, 2, "a dead node and a deleted Node: pod GC, ReplicaSet replacements, scheduling, kubelet start"},
	{"liveness-under-load", 5, 2, "liveness and readiness probes with timeouts, CrashLoopBackOff, endpoints in and out of service"},
	{"apiserver-down", 3, 1, "every API server down: kubelets keep running, node lifecycle's full-disruption mode"},
	{"controller-manager-failover", 5, 1, "a controller manager cut off: Lease renew deadline, step-down, takeover"},
	{"node-eviction", 5, 1, "node lifecycle: Ready=Unknown after the grace period, NoExecute taint, eviction after toleration"},
	{"scheduler-split-brain", 5, 2, "two schedulers racing: the binding's conflict check, the loser's 409"},
	{"controller-watch-lag", 5, 1, "slow controller links and broken watches: ReplicaSet expectations, scale up and down"},
	{"stack-chaos", 3, 3, "everything at once, with a Deployment rollout: the run that reaches the most code"},
	{"stack-chaos", 3, 2, "everything at once, another schedule"},
	{"stack-chaos", 5, 3, "everything at once at five members"},
	{"probe-flaps", 3, 1, "probes that fail k-1 times then succeed: failureThreshold and successThreshold"},
	{"scheduling-pressure", 3, 1, "nodes filled to the last room: the scheduler's assumed pods, bursts past capacity"},
	{"scheduling-pressure", 3, 2, "two schedulers bind one node's last room: kubelet admission (this seed catches kubelet-no-admission)"},
	{"overlapping-owners", 3, 1, "overlapping selectors, orphans, a Deployment replaced: adoption, owner references by UID, garbage collection"},
	{"controller-manager-failover", 3, 1, "a controller manager that lost its Lease exits"},
	{"controller-manager-zombie", 3, 1, "a controller manager leader frozen past its lease, then resumed"},
	{"scheduler-zombie", 3, 1, "a scheduler leader frozen past its lease, then resumed"},
	{"leader-clock-drift", 3, 1, "a leader's clock running slow: lease expiry on each replica's own clock"},
	{"leader-clock-jumps", 3, 1, "clock steps under leader election: renewals judged on the monotonic clock"},
	// The Service rotation: endpoints-converge, no-traffic-to-unready,
	// service-availability.
	{"rolling-update-traffic", 3, 1, "rollouts under users' traffic: EndpointSlice conditions, kube-proxy's ready routing and min sync, preStop before SIGTERM (this seed catches kube-proxy-ignores-readiness and kubelet-no-prestop)"},
	{"apiserver-down-traffic", 3, 1, "the API servers down under traffic: kube-proxy keeps its rules (this seed catches kube-proxy-flush-on-disconnect)"},
	{"node-death-traffic", 5, 1, "a node dies under traffic: timeouts to its pods until pod GC, slices updated, replacements routed"},
	{"readiness-vs-liveness", 3, 1, "busy pods out of rotation and back, CrashLoopBackOff under traffic, the no-endpoints rejection"},
}

// RunAll runs every entry of the matrix as a subtest, in order, and fails
// a subtest whose run fails any check, printing its failed checks and the
// command that replays it.
func RunAll(t *testing.T) {
	t.Helper()
	for _, r := range matrix {
		t.Run(r.Name(), func(t *testing.T) {
			res, err := scenarios.Run(r.Options())
			if err != nil {
				t.Fatalf("%s: %v", r.Name(), err)
			}
			if !res.OK {
				for _, c := range res.Failed() {
					t.Errorf("%s", c.String())
				}
				t.Fatalf("replay with: %s", scenarios.ReplayCommand(res))
			}
		})
	}
}
