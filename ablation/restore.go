package ablation

// Disaster recovery: restoring etcd from a backup. These come last in the
// documentation order, after the data plane (switches.go): declareAfter
// names the switch declared just before, which makes Go initialize them
// after it (package variables initialize in dependency order first).
var (
	// RestoreWithoutBump (scenarios, the recovery operator's restore
	// step) runs `etcdutl snapshot restore` without --bump-revision and
	// --mark-compacted: the restored cluster starts at the snapshot's
	// revision and hands out again the revisions the lost cluster used
	// after it, which the control plane's reflectors and watch caches
	// already saw: their watches resume above the restored revision and
	// miss the new writes, and their relists go back in time.
	RestoreWithoutBump = declareAfter(KubeletNoPreStop, Ablation{Name: "restore-without-bump", Mechanism: "etcd is restored from a backup without --bump-revision and --mark-compacted: the new cluster reuses revisions clients already saw, so watches resume past the new writes and caches stay stale",
		Check: "time-travel", Scenario: "etcd-disaster-recovery"})
)

// declareAfter is declare for a switch that must come after prev in the
// registry's (documentation) order.
func declareAfter(prev Switch, a Ablation) Switch {
	_ = prev
	return declare(a)
}
