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
	// RestoreLastByName (scenarios, the recovery operator's fetch step)
	// picks the backup whose object name sorts last (`ls | tail -1`)
	// instead of the one with the highest revision: names start with the
	// member the job saved from, so the pick is often an older backup,
	// and the recovery loses more than the newest backup would have.
	RestoreLastByName = declareAfter(RestoreWithoutBump, Ablation{Name: "restore-last-by-name", Mechanism: "the operator restores the backup whose name sorts last instead of the newest (highest revision): the names start with the member saved from, so an older backup is often restored",
		Check: "no-lost-acknowledged-writes-beyond-RPO", Scenario: "etcd-disaster-recovery"})
)

// declareAfter is declare for a switch that must come after prev in the
// registry's (documentation) order.
func declareAfter(prev Switch, a Ablation) Switch {
	_ = prev
	return declare(a)
}
