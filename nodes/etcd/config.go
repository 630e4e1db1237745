package etcd

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// The ports a member listens on.
const (
	// PeerPort carries Raft messages between members (the trace's
	// etcdtrace.PeerPort, whose deliveries the checks read).
	PeerPort = etcdtrace.PeerPort
	// ClientPort serves the client RPCs (Range, Put, DeleteRange, Txn,
	// Compact, Status, Snapshot and the watch calls).
	ClientPort = "client"
)

// Defaults, as etcd's.
const (
	// DefaultHeartbeatInterval is etcd's --heartbeat-interval.
	DefaultHeartbeatInterval = 100 * time.Millisecond
	// DefaultElectionTimeout is etcd's --election-timeout.
	DefaultElectionTimeout = 1000 * time.Millisecond
	// DefaultSnapshotCount is etcd's --snapshot-count.
	DefaultSnapshotCount = 10000
	// PreVote is etcd's --pre-vote (on by default since v3.5): members
	// run Raft with PreVote.
	PreVote = true
	// CheckQuorum is etcd's raftConfig: members always run Raft with
	// CheckQuorum.
	CheckQuorum = true
	// DefaultWatchProgressNotifyInterval is how often a watch created
	// with progress_notify gets a progress notification when it had no
	// events: etcd's progressReportInterval
	// (server/etcdserver/api/v3rpc/watch.go), which
	// --watch-progress-notify-interval overrides when set (its zero
	// default keeps 10 min).
	DefaultWatchProgressNotifyInterval = 10 * time.Minute
	// MinWatchProgressNotifyInterval is the least interval etcd accepts;
	// a shorter one is raised to it (v3rpc/watch.go,
	// minWatchProgressInterval).
	MinWatchProgressNotifyInterval = 100 * time.Millisecond
	// readIndexRetry is how often a pending linearizable read asks Raft for
	// a read index again (etcd's readIndexRetryTime).
	readIndexRetry = 500 * time.Millisecond
)

// Peer names one member of the cluster.
type Peer struct {
	// ID is the member's non-zero Raft ID.
	ID uint64
	// Host is the simulated host the member runs on.
	Host sim.HostID
	// Name is the member's name, as it appears in traces; by convention the
	// host's name.
	Name string
}

// Config configures one member.
type Config struct {
	// Name is the member's name; empty means the host's name.
	Name string
	// ID is the member's Raft ID; it must appear in Peers.
	ID uint64
	// Peers lists every member, including this one: the initial cluster.
	// For a member that joins (Join), the members it may first hear from.
	Peers []Peer
	// Join boots the member into an existing cluster (etcd's
	// --initial-cluster-state=existing): it starts with no configuration
	// and learns the membership from the leader's snapshot. The cluster
	// must have added it first (Client.MemberAdd).
	Join bool
	// HeartbeatInterval is the Raft tick: the leader heartbeats once per
	// interval. Default 100 ms.
	HeartbeatInterval time.Duration
	// ElectionTimeout is the election timeout, a whole number of heartbeat
	// intervals; Raft randomizes each timeout within [T, 2T). Default 1 s.
	ElectionTimeout time.Duration
	// SnapshotCount is the number of applied entries between two Raft
	// snapshots (with log compaction and a WAL rewrite). Default 10000.
	SnapshotCount uint64
	// RequestTimeout is how long the member waits for a proposal or a read
	// to complete before answering "etcdserver: request timed out". Default
	// etcd's 5 s + 2 × ElectionTimeout.
	RequestTimeout time.Duration
	// WatchProgressNotifyInterval is --watch-progress-notify-interval:
	// the period of progress notifications to watches created with
	// ProgressNotify. Zero or less means the default, 10 min; less than
	// 100 ms is raised to 100 ms, as etcd does.
	WatchProgressNotifyInterval time.Duration
	// TraceServed makes the member trace every Range answer and watch
	// response it sends (etcdtrace.ServedRange, etcdtrace.ServedWatch),
	// as a request log would record them: an observation for the checks,
	// off by default because it costs a trace event per request. The
	// disaster-recovery operator turns it on for the members of the
	// cluster it restores, whose every answer restored-reads judges.
	TraceServed bool
	// Ablations are the run's ablation switches (off in the zero value);
	// the member hands them to its Raft core and its MVCC store unchanged.
	Ablations ablation.Set
}

// withDefaults fills zero fields.
func (c Config) withDefaults(h *sim.Host) Config {
	c.Name = defaults.HostName(c.Name, h)
	defaults.Positive(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	defaults.Positive(&c.ElectionTimeout, DefaultElectionTimeout)
	defaults.Positive(&c.SnapshotCount, DefaultSnapshotCount)
	defaults.Positive(&c.RequestTimeout, DefaultRequestTimeout(c.ElectionTimeout))
	defaults.Positive(&c.WatchProgressNotifyInterval, DefaultWatchProgressNotifyInterval)
	c.WatchProgressNotifyInterval = max(c.WatchProgressNotifyInterval, MinWatchProgressNotifyInterval)
	return c
}

// DefaultRequestTimeout is etcd's ReqTimeout for an election timeout: 5 s
// for queueing, computation and disk, plus two election timeouts for a
// possible leader election.
func DefaultRequestTimeout(electionTimeout time.Duration) time.Duration {
	return 5*time.Second + 2*electionTimeout
}

// electionTick converts the election timeout into heartbeat ticks.
func (c Config) electionTick() int {
	t := int(c.ElectionTimeout / c.HeartbeatInterval)
	if t < 2 {
		t = 2
	}
	return t
}
