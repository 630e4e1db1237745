package ablation

// Membership change (nodes/raft and nodes/etcd). The switches are declared
// after every switch of switches.go (declareAfter), so that the existing
// switches keep their numbers and documentation order.

var (
	// ConfChangeUnguarded (nodes/raft, stepLeader's maybeAcceptConfChange)
	// lets a leader accept a conf change while an earlier one is not yet
	// applied, instead of replacing it with an empty entry as
	// go.etcd.io/raft/v3 does (pendingConfIndex). Two single-server changes
	// in flight can together change two voters, so that an old and a new
	// majority need not intersect (thesis §4.1).
	ConfChangeUnguarded = declareAfter(KubeletNoPreStop, Ablation{Name: "raft-conf-change-unguarded"}, true)
	// RejoinWipedMember (scenarios, the etcd-replace-member operator)
	// restarts a member whose disk was wiped under its old ID, with its
	// empty disk, instead of removing it and adding a new member with a
	// new ID (etcd's documented procedure: a member that lost its data
	// directory must be removed and re-added). The member then votes and
	// acknowledges as a voter that lost the entries it acknowledged.
	RejoinWipedMember = declareAfter(ConfChangeUnguarded, Ablation{Name: "rejoin-wiped-member", Mechanism: "a member whose disk was wiped restarts under its old ID with an empty disk, instead of being removed and replaced by a new member with a new ID", Check: "membership-safety", Scenario: "etcd-replace-member"}, false)
)

// declareAfter declares a after the switch prev (the reference orders the
// package's variable initialization); internal marks a switch that only Go
// code turns on.
func declareAfter(prev Switch, a Ablation, internal bool) Switch {
	_ = prev
	if internal {
		return declareInternal(a.Name)
	}
	return declare(a)
}
