package fidelity

import (
	"fmt"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/raft"
)

// Divergences returns the known differences from the pinned versions. The
// values kubesim uses are read from the code.
func Divergences() []Divergence {
	progress := apiserver.DefaultCacheProgressInterval
	return []Divergence{
		{
			Name:        "How the API server finds a failed etcd watch",
			Kubesim:     fmt.Sprintf("a cache asks its etcd member for progress after %s without a response; a member without a leader then ends the watch (\"etcdserver: no leader\"), and the cache watches again from its revision on the next member, %s apart, keeping its client watches, until 30 s of such errors make it close them and relist, as the real Cacher does; a member silent for %s is left for the next one, resuming from the cache's revision", Format(progress), Format(apiserver.RewatchBackoff), Format(3*progress)),
			Real:        "etcd's monitorLeader ends the watches that require a leader after 3 election timeouts without one, and a member without a leader refuses new ones at once (server/etcdserver/api/v3rpc/interceptor.go); the Cacher's reflector watches again at once after such an internal error, for up to 30 s (MaxInternalErrorRetryDuration); a silent member is found by the etcd client's gRPC keepalive (30 s, then 10 s for the answer: k8s.io/apiserver pkg/storage/storagebackend/factory/etcd3.go keepaliveTime, keepaliveTimeout), and clientv3 resumes the watch on another member",
			Consequence: "after an etcd leader loss a cache notices a few seconds sooner than on a real cluster, and while no member has a leader it retries ten times a second rather than as fast as round trips allow; an API server leaves a silent etcd member within seconds rather than about 40 s",
			Where:       "nodes/apiserver DefaultCacheProgressInterval, cache.handleResp, cache.handleTick, retry.go",
		},
		{
			Name:        "Lists from the cache's snapshots, and WatchList",
			Kubesim:     "lists follow 1.34's cache delegator (resourceVersion \"\" is a consistent read from the watch cache, resourceVersionMatch, limits and continue tokens from the cache, 429 while it initializes), but a continuation or a list at an exact revision always reads etcd at that revision; no WatchList (sendInitialEvents)",
			Real:        "ListFromCacheSnapshot (beta, on in 1.34) serves continuations and exact-revision lists from snapshots the cache keeps of recent revisions; the server offers WatchList (beta, on), which client-go 1.34 does not use by default (WatchListClient off)",
			Consequence: "paged lists past their first page, and lists at an exact revision, load etcd where a 1.34 API server answers many of them from its cache",
			Where:       "nodes/apiserver list.go (list, listEtcd)",
		},
		{
			Name:        "etcd snapshots",
			Kubesim:     fmt.Sprintf("a snapshot holds each live key's latest version at its revision, with an FNV-1a hash of that content (etcdtrace.StateHash), and reaches the client %s after the member read it", Format(etcd.SnapshotStreamTime)),
			Real:        "Maintenance.Snapshot streams the whole bolt file (history since the last compaction, tombstones, leases, membership) from one read transaction, in 32 KiB chunks, with a SHA-256 of the stream at the end; etcdutl snapshot status reports a CRC-32C of every bucket and the highest revision in the key bucket (server/etcdserver/api/v3rpc/maintenance.go, etcdutl/snapshot/v3_snapshot.go)",
			Consequence: "a snapshot's size does not lengthen its stream, hashes are not comparable with etcd's, and a restore from one can serve no revision below the snapshot's",
			Where:       "nodes/etcd snapshot.go (Snapshot, SnapshotStatus, SnapshotStreamTime)",
		},
		{
			Name:        "etcd snapshot restore",
			Kubesim:     "etcd.Restore writes a Raft snapshot at index N (the member count), term 1, holding the snapshot's keys, a HardState committing it, and the membership (IDs from the peer URLs and the token); the store is compacted at the snapshot's revision, or at the bumped one with --mark-compacted; the recovery scenarios bump by " + fmt.Sprint(catalogue.RecoveryBumpRevision) + " revisions",
			Real:        "etcdutl snapshot restore copies the bolt file (history since the last compaction kept), writes N ConfChange entries at term 1 and a snapshot at their index into a new WAL, and with --mark-compacted schedules a compaction at the bumped revision that the member finishes when it starts (etcdutl/snapshot/v3_snapshot.go, saveWALAndSnap, modifyLatestRevision); Kubernetes' guidance bumps by about a billion",
			Consequence: "a restored member cannot serve a revision below the snapshot's even without --mark-compacted, and refuses a compaction at the snapshot's revision as compacted (the conformance suite shows both against etcd v3.7.3), and its log starts at a snapshot rather than at configuration entries",
			Where:       "nodes/etcd restore.go (Restore, Bootstrap); scenarios RecoveryBumpRevision",
		},
		{
			Name:        "The API servers' --etcd-servers under a membership change",
			Kubesim:     "the flag is a file on the API server's host (apiserver.EtcdServersFile), read at every boot; the operator of etcd-migrate-under-api rewrites it on one API server at a time and restarts that server as a crash and a restart " + Format(catalogue.APIServerPodRestart) + " later, then waits until a quorum list through it succeeds",
			Real:        "kube-apiserver's etcd client knows only --etcd-servers (k8s.io/apiserver pkg/storage/storagebackend/factory/etcd3.go newETCD3Client sets no AutoSyncInterval); on a kubeadm control plane the operator edits /etc/kubernetes/manifests/kube-apiserver.yaml and the kubelet replaces the static pod: the old process gets SIGTERM and drains its requests (--shutdown-delay-duration, the pod's grace period) before the new one starts",
			Consequence: "the requests and watches in flight on the restarted server end at once instead of draining, so its clients retry a little more than on a real control plane",
			Where:       "nodes/apiserver flags.go (SetEtcdServers, etcdServers); scenarios api_membership.go (apiRoll)",
		},
		{
			Name:        "Scheduling",
			Kubesim:     "filters, then scores with NodeResourcesFit's LeastAllocated (cpu and memory) only; no preemption",
			Real:        "the default profile's other score plugins (balanced allocation, spreading, affinities, image locality, taint toleration) and DefaultPreemption",
			Consequence: "placements can differ from a real scheduler's, and a pending pod never preempts a lower-priority one",
			Where:       "nodes/scheduler leastAllocatedScore",
		},
		{
			Name:        "The API server's etcd request timeout",
			Kubesim:     fmt.Sprintf("the API server gives up on an etcd request after %s", Format(apiserver.DefaultEtcdRequestTimeout)),
			Real:        "not confirmed for 1.34: kube-apiserver bounds a request by --request-timeout (1 min), and no shorter bound on its etcd calls was found",
			Consequence: "during a long etcd election an API request may fail sooner than on a real server",
			Where:       "nodes/apiserver DefaultEtcdRequestTimeout",
		},
		{
			Name:        "Watch progress notifications",
			Kubesim:     fmt.Sprintf("etcd notifies a progress_notify watch every 10 min (jittered), and the API server caches ask for it, as the real ones; a cache also asks its member for progress after %s without a response, and every 100 ms while reads wait for it", Format(progress)),
			Real:        "kube-apiserver requests progress only while reads wait for the cache to catch up (pkg/storage/cacher/progress/watch_progress.go)",
			Consequence: "kubesim's API servers send their etcd members about one progress request a second per idle resource that a real one does not",
			Where:       "nodes/apiserver DefaultCacheProgressInterval, cache.handleTick",
		},
		{
			Name:        "Quantity suffix family",
			Kubesim:     "a resource list keeps amounts (millicores, bytes, counts), not the suffix family each was written in: memory that is a whole number of KiB prints in BinarySI, every other amount in DecimalSI; an amount beyond an int64 of its unit (12E bytes, 9.3P cores) is refused; an e-notation exponent above 1000 is refused",
			Real:        "resource.Quantity remembers DecimalSI, BinarySI or DecimalExponent from the string it was parsed from and prints its canonical form in that family (pkg/api/resource/quantity.go CanonicalizeBytes); it stores decimal values beyond int64 exactly",
			Consequence: "memory written as a decimal multiple of 1024 (\"4096\") reads back as \"4Ki\", and \"1e3\" as \"1k\" (real: \"4096\", \"1e3\"); an object with an amount above 2^63-1 of its unit is rejected where a real API server stores it",
			Where:       "model FormatQuantity, quantityFormatFor, ParseQuantity",
		},
		{
			Name:        "Cluster IP allocation",
			Kubesim:     fmt.Sprintf("a Service's cluster IP is drawn as the real allocator draws it (a random offset of the range above its static band, wrapping, then the static band) from %s, and recorded as an IPAddress under /registry/ipaddresses/ in the same etcd Txn that creates the Service (create-if-absent on both keys; a taken address makes the server try the next); its delete releases the address in the Service's delete Txn; only single-stack IPv4 ClusterIP Services (headless ones, \"None\", allocate nothing), no ServiceCIDR objects, and the first address is never handed out though no kubernetes Service holds it", apiserver.DefaultServiceCIDR),
			Real:        "1.34's MultiCIDRServiceAllocator (pkg/registry/core/service/ipallocator/ipallocator.go) creates the IPAddress object first and the Service after, releases the address when the Service's write fails, and repairs leaked or missing addresses in the RepairIPAddress loop; the kubernetes Service holds the first address",
			Consequence: "no address leaks after an API server crash between the two writes, so no repair loop is modelled; Services are stored under /registry/services/<ns>/<name> rather than /registry/services/specs/<ns>/<name>",
			Where:       "nodes/apiserver clusterip.go (ipCandidates, serviceCreateTxn, deleteTxn)",
		},
		{
			Name:        "Raft flow control",
			Kubesim:     fmt.Sprintf("at most %d MsgApps in flight to a follower, at most %d entries in one MsgApp", raft.DefaultMaxInflightMsgs, raft.DefaultMaxEntriesPerMsg),
			Real:        "etcd sets maxInflightMsgs = 4096/8 = 512 and limits a MsgApp by size, maxSizePerMsg = 1 MiB (server/etcdserver/raft.go)",
			Consequence: "a follower far behind catches up in more round trips than under etcd",
			Where:       "nodes/raft DefaultMaxInflightMsgs, DefaultMaxEntriesPerMsg",
		},
		{
			Name:        "etcd membership change",
			Kubesim:     "the initial configuration is Config.Peers, not conf change entries at the head of the log, so a joining member is always caught up by a snapshot (the leader takes one when its latest predates the member: raft WantsSnapshot); the operator chooses a new member's ID; only the leader serves member add, remove and promote (a follower answers \"etcdserver: not leader\" and the client moves on), since a follower hears only from its leader; the strict reconfiguration checks count a voter as started when the leader heard from it within the 5 s health interval (started and connected are one test); MemberAdd takes a name, which the member list shows before the member starts; members refuse to re-add a removed ID; a refused change at apply time reaches raft as a no-op",
			Real:        "etcd's StartNode writes the initial members as ConfChangeAddNode entries 1..n, so a new member can also catch up from the log; MemberAdd derives the ID from the peer URLs, the cluster name and the time (membership.computeMemberID); IsReadyToAddVotingMember counts members that published their attributes, and isConnectedToQuorumAfterAddingNewMemberSince checks connectivity apart (ErrUnhealthy); MemberAddRequest carries only peer URLs, so an unstarted member is listed with an empty name; the leader sends a snapshot of its current state (createMergedSnapshotMessage); any member serves the member calls, judging connectivity by its rafthttp streams to every peer",
			Consequence: "a new member always receives a snapshot, never a log replay from index 1; a change that would lose quorum with the connected members is refused with \"not enough started members\" where etcd may say \"unhealthy cluster\"; a kubesim member list names a member added but not started",
			Where:       "nodes/raft sendAppend, WantsSnapshot; nodes/etcd membership.go (mayAddMember, mayPromoteMember, mayRemoveMember, started)",
		},
		{
			Name:        "kube-proxy's rules",
			Kubesim:     "a sync programs, at once and without failing, one route per ClusterIP Service port to its ready endpoints (or its serving-terminating ones when none is ready), among the node's own alone for internalTrafficPolicy Local, which an unset policy is not (the API server leaves it unset instead of defaulting it to Cluster); a Local port without a usable local endpoint rejects its traffic; the 30 s sync period has nothing to do; a restarted process keeps the table until its first sync",
			Real:        "the iptables proxier writes its chains with iptables-restore, which takes time and can fail (then it retries after the sync period); a canary chain checked every sync period detects rules flushed by someone else; a Local port with endpoints elsewhere but none on the node drops its traffic (no answer) rather than rejecting it; SetDefaults_Service sets internalTrafficPolicy Cluster; NodePort, LoadBalancer, external traffic policies, topology hints and session affinity exist too",
			Consequence: "a node's rules change the instant the sync runs, so the windows measured end a sync's duration sooner than on a large real cluster; a client of a Local Service on a node without its pods is refused at once where a real one times out; stored Services lack the defaulted internalTrafficPolicy field",
			Where:       "nodes/kubeproxy Cache.Routes, Table.Apply, process.sync",
		},
		{
			Name:        "application traffic",
			Kubesim:     "a client reads its entry node's rules when it sends a request, one network hop before the request reaches that node; a Service port without backends rejects at once; every request is a new connection routed anew; every port of a pod reaches its first container; a request to a pod IP no pod has is refused",
			Real:        "the entry node's kernel matches the rules when the packet arrives, and conntrack keeps an established connection on its backend; a REJECT answers after a round trip; a packet to a vanished pod IP is usually dropped or answered with host unreachable after ARP fails",
			Consequence: "a request may be routed by rules one hop older than the real kernel would use, and keep-alive connections that stay on a terminating backend are not shown",
			Where:       "nodes/apptraffic client.request; nodes/kubelet answerApp",
		},
	}
}
