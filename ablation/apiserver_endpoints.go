package ablation

// The API servers' etcd endpoints under a membership change. Declared after
// the membership switches (membership.go).

var (
	// APIServerStaticEtcdServers (scenarios, the etcd-migrate-under-api
	// operator) never edits the API servers' --etcd-servers while the
	// members move to new hosts. kube-apiserver's etcd client knows only
	// the endpoints it was started with (it never syncs them from etcd's
	// member list), so once the old members are removed and their hosts
	// powered off, the API servers reach no member: every request that
	// needs etcd fails for good. The disaster-recovery operator
	// (etcd-disaster-recovery) leaves them too, naming the lost members
	// instead of the fresh hosts the backup was restored on.
	APIServerStaticEtcdServers = declareAfter(RejoinWipedMember, Ablation{Name: "apiserver-static-etcd-servers",
		Mechanism: "the operator migrates every etcd member to a new host but never edits the API servers' --etcd-servers, which kube-apiserver never updates by itself: once the old members are gone, the API servers reach no member",
		Check:     "api-recovers", Scenario: "etcd-migrate-under-api", AlsoCaughtBy: []string{"compaction-progress", "patch-merge"}})
)
