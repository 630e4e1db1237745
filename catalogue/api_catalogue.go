package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// apiCatalogue returns the API scenarios: an etcd cluster, three API
// server replicas on it, and API clients (counter writers, CRUD clients,
// informers and a misbehaving client) under faults aimed at the API layer.
func apiCatalogue() []scenarios.Spec {
	base := scenarios.APITopology{Counters: 2, CRUD: 2, Informers: 2, Rogue: true, Think: 200 * time.Millisecond}
	return []scenarios.Spec{
		{Name: "api-conflict-storm",
			Description: "six writers increment one counter with RetryOnConflict (409s galore), five more write one ReplicaSet, three its status (update-status) and two its spec (update), and three merge-patch one Lease, each its own annotation, a third of the time with a resourceVersion precondition, beside CRUD clients and informers, with mildly flaky links to the API servers and an API server crash every 40 s; no acknowledged write is lost, the spec and status writes never touch each other's half, and the patches merge",
			API: &scenarios.APITopology{Counters: 6, CRUD: 1, Informers: 1, Rogue: true, StatusWriters: 3, SpecWriters: 2, Patchers: 3,
				Think: 150 * time.Millisecond, CompactionInterval: 30 * time.Second},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				s := sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"apiservers"}}, For: end - 5*time.Second,
					Loss: 0.02, Dup: 0.02, Reorder: 0.05, Delay: 5 * time.Millisecond}}
				return append(s, nemesis.Every(20*time.Second, 40*time.Second, end, rng, func(at time.Duration) sim.Fault {
					return sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{nemesis.PickServer(c, rng)}}, For: 5 * time.Second}
				})...)
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 20, Members: 3, Seed: 2, Reaches: "RetryOnConflict writers: 409s through the Txn on mod_revision, client-go's retry"},
				{Rank: 29, Members: 3, Seed: 1, Reaches: "status and spec writers, merge patches with and without a resourceVersion precondition"},
			},
		},
		{Name: "api-watch-disconnects",
			Description: "an API server loses its clients for 46 to 50 s (at 7 s), longer than their connections' HTTP/2 health check (a PING after 30 s without a frame, given up 15 s later), so their connections to it close, and they fail over to the next replica, which has lost etcd meanwhile and stays cut from it for 10 s more; the informers' watches end with client-go's \"http2: client connection lost\" error, so they relist from their resourceVersions on that replica, whose cache lags behind them (the lists wait for it, time out, and the informers list afresh); the informers' links lose 3% of messages throughout",
			API:         compacting(base, 20*time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				s := sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"api-informers"}}, For: end - 5*time.Second,
					Loss: 0.03, Reorder: 0.05, Delay: 2 * time.Millisecond}}
				n := len(c.Servers)
				// The cut outlasts client.DefaultReadIdleTimeout +
				// DefaultPingTimeout (45 s) from the clients' last frame
				// read, just before it; the next replica stays cut
				// from etcd 10 s past the cut (so past the fault
				// window's end by up to 7 s), long enough after the
				// failover for a reflector's watch, its backoff and a
				// list at its resourceVersion (3 s, then 504 Too large
				// resource version) to end in a list afresh.
				for at := 5 * time.Second; ; at += 60 * time.Second {
					d := 46*time.Second + time.Duration(rng.Int64N(int64(4*time.Second)))
					if at+2*time.Second+d > end {
						break
					}
					i := rng.IntN(n)
					cut, lag := c.Servers[i], c.Servers[(i+1)%n]
					s = append(s,
						sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{lag}, {"etcd"}}, For: d + 12*time.Second},
						sim.Fault{At: at + 2*time.Second, Kind: sim.FaultPartition, Targets: [][]string{{cut}, {"api-clients"}}, For: d})
				}
				return s
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 21, Members: 3, Seed: 1, Reaches: "broken watches that fail over to a lagging replica: reflector resume from the last resourceVersion"},
				{Rank: 22, Members: 3, Seed: 3, Reaches: "a relist against a lagging replica: quorum relists, no time travel (this seed catches reflector-relist-rv0 and consistent-list-from-stale-cache)"},
				{Rank: 28, Members: 3, Seed: 10, Reaches: "a read at a resourceVersion the cache has not seen waits for it (this run catches cache-ignores-min-rv)"},
			},
		},
		{Name: "api-compaction-410",
			Description: "the API servers' watch caches size their rings for only 5 s of events (100 at least), and every 20 s the informers lose the API servers for 8 to 15 s: their resumed watches get 410 Gone and they relist; one informer pages its lists (client-go's WatchListPageSize, 2), so its relist from its last resourceVersion reads etcd at exactly that revision, page by page, again and again (its watch from there gets 410 from the cache) until the API servers' compaction every 20 s makes that revision 410 too and it lists afresh",
			API: &scenarios.APITopology{Counters: 2, CRUD: 2, Informers: 2, Rogue: true, Think: 200 * time.Millisecond, EventFreshDuration: 5 * time.Second, CompactionInterval: 20 * time.Second,
				InformerPageSize: 2, PagedInformers: 1},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return nemesis.Every(10*time.Second, 20*time.Second, end, rng, func(at time.Duration) sim.Fault {
					d := 8*time.Second + time.Duration(rng.Int64N(int64(7*time.Second)))
					return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{"api-informers"}, {"apiservers"}}, For: d}
				})
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 23, Members: 3, Seed: 2, Reaches: "watch cache window and etcd compaction: 410 Gone, informer relists"},
				{Rank: 30, Members: 3, Seed: 1, Reaches: "paged informer lists and continue tokens"},
			},
		},
		{Name: "apiserver-crash",
			Description: "every 15 s an API server replica crashes (losing its watch cache and every request in flight) and restarts 5 to 15 s later; sometimes two are down at once",
			API:         compacting(base, 25*time.Second),
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return nemesis.Every(10*time.Second, 15*time.Second, end, rng, func(at time.Duration) sim.Fault {
					d := 5*time.Second + time.Duration(rng.Int64N(int64(10*time.Second)))
					return sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{nemesis.PickServer(c, rng)}}, For: d}
				})
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 24, Members: 4, Seed: 2, Reaches: "API server crashes: watch cache rebuild, requests in flight lost, client endpoint failover, the compactor's lease after a restart (this seed catches compactor-no-learn)"},
			},
		},
		{Name: "etcd-leader-partition-under-api",
			Description: "the etcd leader is cut off from everyone (API servers included) for 15 s, every 40 s, under API load: the API servers fail over to the new leader",
			API:         compacting(base, 30*time.Second),
			Faults:      nemesis.Periodic(20*time.Second, 40*time.Second, sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{"etcd-leader"}}, For: 15 * time.Second}),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 25, Members: 5, Seed: 1, Reaches: "etcd leader changes under the API servers: etcd client failover, unknown outcomes"},
				{Rank: 31, Members: 3, Seed: 1, Reaches: "an update refused against a lagging cache copy reads etcd"},
				{Rank: 32, Members: 3, Seed: 3, Reaches: "an update against a lagging cache copy (this seed catches update-trusts-stale-cache)"},
			},
		},
		{Name: "api-chaos",
			Description: "a random mix drawn from the seed: etcd-chaos's faults, plus API server crashes, API servers cut off from their clients or from etcd, informers cut off from the API servers, and flaky client links, under every API workload (status and spec writers of a ReplicaSet and patchers of a Lease too, and CRUD clients of a custom kind, Widgets, which the informers watch)",
			API:         withWidgets(compacting(moreWriters(base, 2, 1, 2), 20*time.Second)),
			Faults:      nemesis.APIChaosSchedule,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 26, Members: 3, Seed: 1, Reaches: "random API and etcd faults: authorization and the node restriction (access)"},
				{Rank: 27, Members: 5, Seed: 2, Reaches: "random API and etcd faults at five members"},
				{Rank: 60, Members: 3, Seed: 57, Buggify: true, Reaches: "BUGGIFY's rare paths, all five points active at this seed: a lagging apply, a slow peer stream, early 429s, held watch streams, a watch cache behind etcd"},
			},
		},
		{Name: "api-etcd-compaction",
			Description: "the API servers compact etcd every 10 s (--etcd-compaction-interval=10s), and every 28 s one API server is cut off from etcd for 18 to 25 s: when it is back, the revision its watch cache resumes from has been compacted, so etcd cancels the cache's watch; the cache goes unready, closes its watches and relists a second later, and the informers that were on it resume, get 410 Gone and relist; they page their lists (WatchListPageSize 2), so the relist from their last resourceVersion reads etcd at exactly that revision, compacted by then: 410 again, and they list afresh, page by page; their stores must still replay etcd's history",
			API: &scenarios.APITopology{Counters: 2, CRUD: 2, Informers: 3, Rogue: true, Think: 200 * time.Millisecond, CompactionInterval: 10 * time.Second,
				InformerPageSize: 2},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return nemesis.Every(3*time.Second, 28*time.Second, end, rng, func(at time.Duration) sim.Fault {
					d := 18*time.Second + time.Duration(rng.Int64N(int64(7*time.Second)))
					return sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{nemesis.PickServer(c, rng)}, {"etcd"}}, For: d}
				})
			},
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 35, Members: 3, Seed: 1, Reaches: "API servers compact etcd: the watch cache reinitializes, exact-RV lists, 410 after an etcd compaction"},
			},
		},
		{Name: "api-swarm",
			Description: "swarm testing of api-chaos: each seed switches each of api-chaos's kinds of fault (etcd-chaos's and the API layer's) on with probability 1/2 (at least one) and draws about as many faults of those kinds only (when only one layer's kinds are on, they come twice as often), under api-chaos's workload (Widgets included), and each of three settings of the API layer likewise: paging (one informer host lists in pages of 2), short-cache (the watch caches keep 5 s of history) and fast-compaction (etcd compacted every 10 s); the run prints and records which kinds and settings were on",
			API:         withKnobs(withWidgets(compacting(moreWriters(base, 2, 1, 2), 20*time.Second))),
			Faults:      nemesis.APIChaos.Swarm,
		},
	}
}

// withKnobs gives the API swarm its settings to switch on per seed:
// paging (one informer host lists in pages of 2, as
// Reflector.WatchListPageSize does: exact-revision relists, continue
// tokens), short-cache (the watch caches keep 5 s of history, so resumed
// watches fall out of them and get 410 Gone), fast-compaction (the API
// servers compact etcd every 10 s, so relists and cache resumptions meet
// compacted revisions): api-compaction-410's and api-etcd-compaction's
// settings, under any mix of faults.
func withKnobs(top *scenarios.APITopology) *scenarios.APITopology {
	top.Knobs = []scenarios.APIKnob{
		{Name: "paging", Apply: func(t *scenarios.APITopology) { t.InformerPageSize, t.PagedInformers = 2, 1 }},
		{Name: "short-cache", Apply: func(t *scenarios.APITopology) { t.EventFreshDuration = 5 * time.Second }},
		{Name: "fast-compaction", Apply: func(t *scenarios.APITopology) { t.CompactionInterval = 10 * time.Second }},
	}
	return top
}

// moreWriters returns a copy of top with the status workload's writers
// and patchers.
func moreWriters(top scenarios.APITopology, status, spec, patchers int) scenarios.APITopology {
	top.StatusWriters, top.SpecWriters, top.Patchers = status, spec, patchers
	return top
}

// compacting returns a copy of top whose API servers compact etcd every
// interval (kube-apiserver's --etcd-compaction-interval, set lower than its
// 5 min default so that a run compacts several times).
func compacting(top scenarios.APITopology, interval time.Duration) *scenarios.APITopology {
	top.CompactionInterval = interval
	return &top
}

// withWidgets returns top serving the custom kind Widgets beside the
// built-in kinds, with two CRUD clients on Widgets besides its Lease
// workload; the informers watch Widgets and the state reporter lists them.
func withWidgets(top *scenarios.APITopology) *scenarios.APITopology {
	top.Custom, top.CustomCRUD = &Widgets, 2
	return top
}
