package ablation

// Disaster recovery: restoring etcd from a backup.
var (
	// RestoreWithoutBump (scenarios, the recovery operator's restore
	// step) runs `etcdutl snapshot restore` without --bump-revision and
	// --mark-compacted: the restored cluster starts at the snapshot's
	// revision and hands out again the revisions the lost cluster used
	// after it, which the control plane's reflectors and watch caches
	// already saw: their watches resume above the restored revision and
	// miss the new writes, and their relists go back in time.
	RestoreWithoutBump = declare(Ablation{Name: "restore-without-bump", Mechanism: "etcd is restored from a backup without --bump-revision and --mark-compacted: the new cluster reuses revisions clients already saw, so watches resume past the new writes and caches stay stale",
		Check: "time-travel", Scenario: "etcd-disaster-recovery"})
)
