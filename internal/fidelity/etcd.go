package fidelity

import (
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/kvload"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
)

// etcdSrc and raftSrc prefix the sources in etcd and its Raft.
const (
	etcdSrc = "etcd-io/etcd v3.7.3 "
	raftSrc = etcdSrc + "server/etcdserver/bootstrap.go raftConfig"
)

func etcdDefaults() []Entry {
	const l = "etcd"
	return []Entry{
		{l, "Heartbeat interval (Raft tick)", etcd.DefaultHeartbeatInterval, "100 ms",
			etcdSrc + "server/embed/config.go NewConfig (TickMs: 100, --heartbeat-interval)", "nodes/etcd DefaultHeartbeatInterval", ""},
		{l, "Election timeout", etcd.DefaultElectionTimeout, "1 s",
			etcdSrc + "server/embed/config.go NewConfig (ElectionMs: 1000, --election-timeout)", "nodes/etcd DefaultElectionTimeout", ""},
		{l, "Raft election timeout in ticks", raft.DefaultElectionTick, "10",
			raftSrc + " (ElectionTick: ElectionMs / TickMs)", "nodes/raft DefaultElectionTick", "nodes/raft TestConfigDefaults"},
		{l, "Raft heartbeat in ticks", raft.DefaultHeartbeatTick, "1",
			raftSrc + " (HeartbeatTick: 1)", "nodes/raft DefaultHeartbeatTick", "nodes/raft TestConfigDefaults"},
		{l, "Raft PreVote", etcd.PreVote, "true",
			etcdSrc + "server/embed/config.go NewConfig (PreVote: true, --pre-vote)", "nodes/etcd PreVote", ""},
		{l, "Raft CheckQuorum", etcd.CheckQuorum, "true",
			raftSrc + " (CheckQuorum: true)", "nodes/etcd CheckQuorum", ""},
		{l, "Snapshot count", etcd.DefaultSnapshotCount, "10000",
			etcdSrc + "server/etcdserver/server.go DefaultSnapshotCount (--snapshot-count)", "nodes/etcd DefaultSnapshotCount", ""},
		{l, "Server request timeout", etcd.DefaultRequestTimeout(etcd.DefaultElectionTimeout), "7 s",
			etcdSrc + "server/config/config.go ServerConfig.ReqTimeout (5 s + 2 × election timeout)", "nodes/etcd DefaultRequestTimeout", ""},
		{l, "Max operations in a txn", mvcc.DefaultMaxTxnOps, "128",
			etcdSrc + "server/embed/config.go DefaultMaxTxnOps (--max-txn-ops)", "nodes/etcd/mvcc DefaultMaxTxnOps", "nodes/etcd/mvcc TestTxnRequestChecks"},
		{l, "Client command timeout", etcd.DefaultClientTimeout, "5 s",
			"etcd-io/etcd etcdctl --command-timeout default (the defining constant was not confirmed)", "nodes/etcd DefaultClientTimeout", ""},
		{l, "Watch progress notify interval", etcd.DefaultWatchProgressNotifyInterval, "10 min",
			etcdSrc + "server/etcdserver/api/v3rpc/watch.go progressReportInterval (--watch-progress-notify-interval, 0 keeps it)", "nodes/etcd DefaultWatchProgressNotifyInterval", "nodes/etcd TestWatchProgressNotifyIntervalDefaults"},
		{l, "Least watch progress notify interval", etcd.MinWatchProgressNotifyInterval, "100 ms",
			etcdSrc + "server/etcdserver/api/v3rpc/watch.go minWatchProgressInterval", "nodes/etcd MinWatchProgressNotifyInterval", "nodes/etcd TestWatchProgressNotifyIntervalDefaults"},
		{l, "Compaction interval of the etcd workload", kvload.DefaultCompactionInterval, "5 min",
			"kubernetes/kubernetes staging/src/k8s.io/apiserver --etcd-compaction-interval (kube-apiserver's compactor, which the workload imitates)", "nodes/etcd/kvload DefaultCompactionInterval", ""},
	}
}
