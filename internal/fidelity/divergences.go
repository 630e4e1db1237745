package fidelity

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/raft"
)

// Divergences returns the known differences from the pinned versions. The
// values kubesim uses are read from the code.
func Divergences() []Divergence {
	window, bookmark := Format(apiserver.DefaultWatchCacheWindow), Format(apiserver.DefaultBookmarkInterval)
	progress := apiserver.DefaultCacheProgressInterval
	return []Divergence{
		{
			Name:        "Watch cache size and bookmarks",
			Kubesim:     fmt.Sprintf("keeps every event younger than %s, however many; sends a bookmark every %s to watches that allow them", window, bookmark),
			Real:        "a ring of at least 100 events, grown up to 102,400 while its oldest events are younger than 75 s; a bookmark about once a minute",
			Consequence: "under a heavy write load a watch can resume from further back without 410 Gone than on a real server; clients get bookmarks 60 times as often",
			Where:       "nodes/apiserver DefaultWatchCacheWindow, DefaultBookmarkInterval",
		},
		{
			Name:        "Failed etcd watch of the API server",
			Kubesim:     fmt.Sprintf("when a cache's etcd watch fails or its member stays silent for %s, the cache re-watches on the next member from its revision and the client watches it serves carry on; only a compaction past that revision makes it close them and relist", Format(3*progress)),
			Real:        "the Cacher's reflector returns on any watch error: every client watch of the resource is ended and the cache relists",
			Consequence: "clients see fewer watch closures and relists after an etcd member fails than on a real cluster",
			Where:       "nodes/apiserver cache.rewatchLater, cache.reinit",
		},
		{
			Name:        "Consistent lists, paging and WatchList",
			Kubesim:     "a get or list with resourceVersion \"\" always reads etcd; no resourceVersionMatch; limit and continue are honoured on such lists (410 Gone on a compacted continue), but reflectors page only when PageSize is set (by default a list is one request); no WatchList (sendInitialEvents)",
			Real:        "ConsistentListFromCache (on by default since 1.31) serves them from the watch cache once it has caught up; resourceVersionMatch; client-go's pager lists 500 items a page; WatchList streams the initial state",
			Consequence: "quorum reads and relists load etcd more than on a real 1.34 cluster, and a relist arrives as one response",
			Where:       "nodes/apiserver read.go (get, list); nodes/client/cache ReflectorConfig.PageSize",
		},
		{
			Name:        "Scheduling",
			Kubesim:     "filters, then scores with NodeResourcesFit's LeastAllocated (cpu and memory) only; no preemption",
			Real:        "the default profile's other score plugins (balanced allocation, spreading, affinities, image locality, taint toleration) and DefaultPreemption",
			Consequence: "placements can differ from a real scheduler's, and a pending pod never preempts a lower-priority one",
			Where:       "nodes/scheduler leastAllocatedScore",
		},
		{
			Name:        "Storage conflicts of a read-modify-write",
			Kubesim:     "the server's read-modify-write (an update without a resourceVersion, a patch, a bind) gives up with 409 Conflict after 5 storage conflicts (maxUpdateAttempts); a Lease update without a resourceVersion is refused with 422, as the real Lease strategy does",
			Real:        "GuaranteedUpdate retries storage conflicts without limit",
			Consequence: "under heavy contention an unconditional update, patch or bind can fail with 409 where the real server keeps retrying",
			Where:       "nodes/apiserver update, updateOp.retry",
		},
		{
			Name:        "The API server's etcd request timeout",
			Kubesim:     fmt.Sprintf("the API server gives up on an etcd request after %s", Format(apiserver.DefaultEtcdRequestTimeout)),
			Real:        "not confirmed for 1.34: kube-apiserver bounds a request by --request-timeout (1 min), and no shorter bound on its etcd calls was found",
			Consequence: "during a long etcd election an API request may fail sooner than on a real server",
			Where:       "nodes/apiserver DefaultEtcdRequestTimeout",
		},
		{
			Name:        "Startup probes; releasing a lost lease",
			Kubesim:     "no startup probes; a leader whose renewal fails stops without releasing its Lease, even with ReleaseOnCancel",
			Real:        "a startupProbe holds off liveness and readiness probes until it succeeds; client-go's renew loop releases the Lease when it ends and ReleaseOnCancel is set",
			Consequence: fmt.Sprintf("a slow-starting container can only be modelled with initialDelaySeconds; after a failed renewal the next leader waits out the lease (%s) instead of taking over when the old one gives up", Format(leaderelection.DefaultLeaseDuration)),
			Where:       "model Container; nodes/client/leaderelection LeaderElector",
		},
		{
			Name:        "Watch progress notifications",
			Kubesim:     fmt.Sprintf("etcd sends no periodic progress notification; each API server cache checks its etcd watch every %s, asks its member for progress after %s without a response, and re-watches on another member after %s", Format(progress), Format(progress), Format(3*progress)),
			Real:        "etcd notifies every watch stream of its progress every 10 min (etcdserver/api/v3rpc/watch.go progressReportInterval, --watch-progress-notify-interval); kube-apiserver requests progress to serve consistent reads from its cache",
			Consequence: "kubesim's API server leaves a dead or partitioned etcd member within seconds; other etcd watchers learn an idle watch's progress only when they ask",
			Where:       "nodes/apiserver DefaultCacheProgressInterval, cache.handleTick",
		},
		{
			Name:        "Raft flow control",
			Kubesim:     fmt.Sprintf("at most %d MsgApps in flight to a follower, at most %d entries in one MsgApp", raft.DefaultMaxInflightMsgs, raft.DefaultMaxEntriesPerMsg),
			Real:        "etcd sets maxInflightMsgs = 4096/8 = 512 and limits a MsgApp by size, maxSizePerMsg = 1 MiB (server/etcdserver/raft.go)",
			Consequence: "a follower far behind catches up in more round trips than under etcd",
			Where:       "nodes/raft DefaultMaxInflightMsgs, DefaultMaxEntriesPerMsg",
		},
	}
}
