package ablation

// Membership change (nodes/raft and nodes/etcd). The switches are declared
// after every other switch (declareAfter, after restore.go's last), so
// that the existing switches keep their numbers and documentation order.

var (
	// ConfChangeUnguarded (nodes/raft, stepLeader's maybeAcceptConfChange)
	// lets a leader accept a conf change while an earlier one is not yet
	// applied, instead of replacing it with an empty entry as
	// go.etcd.io/raft/v3 does (pendingConfIndex). Two single-server changes
	// in flight can together change two voters, so that an old and a new
	// majority need not intersect (thesis §4.1).
	ConfChangeUnguarded = declareInternalAfter(RestoreLastByName, "raft-conf-change-unguarded")
	// RejoinWipedMember (scenarios, the etcd-replace-member operator)
	// restarts a member whose disk was wiped under its old ID, with its
	// empty disk, instead of removing it and adding a new member with a
	// new ID (etcd's documented procedure: a member that lost its data
	// directory must be removed and re-added). The member then votes and
	// acknowledges as a voter that lost the entries it acknowledged: in
	// etcd-replace-member it makes a quorum with members that lack
	// committed writes, which elects a leader without them.
	RejoinWipedMember = declareAfter(ConfChangeUnguarded, Ablation{Name: "rejoin-wiped-member", Mechanism: "a member whose disk was wiped restarts under its old ID with an empty disk, instead of being removed and replaced by a new member with a new ID", Check: "raft-safety", Scenario: "etcd-replace-member", AlsoCaughtBy: []string{"linearizability", "membership-safety"}})
)

// declareInternalAfter is declareInternal for a switch that must come
// after prev in the registry's order.
func declareInternalAfter(prev Switch, name string) Switch {
	_ = prev
	return declareInternal(name)
}
