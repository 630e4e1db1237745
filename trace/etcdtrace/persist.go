package etcdtrace

// Persist is emitted by a member when log entries or a snapshot it wrote
// have become durable: the fsync of a Ready that carried them completed,
// just before the member sends that Ready's messages (its append and
// snapshot acknowledgements; etcd's raft Ready contract: a Ready's
// entries are saved before its messages go out, go.etcd.io/raft/v3
// node.go, Ready). Runs are the durable entries, grouped by term in log
// order; they replace whatever the log held at their indexes and after
// (raft truncates a conflicting suffix). A snapshot (SnapIndex, SnapTerm;
// 0 when none) replaces the whole log before the runs.
//
// A member also emits one at every boot (Boot set): the log it loaded
// from its disk, which a torn write may have lengthened beyond what was
// synced. Checks rebuild from these events what each member holds
// durably, and so whether a commit rests on a majority of durable
// copies.
//
//trace:kind KindPersist etcd.persist
type Persist struct {
	Member    string    `json:"member" trace:"member"`
	Boot      bool      `json:"boot,omitempty" trace:"boot,flag"`
	SnapIndex uint64    `json:"snap_index,omitempty" trace:"snap,omitempty"`
	SnapTerm  uint64    `json:"snap_term,omitempty" trace:"snap-term,omitempty"`
	Runs      []TermRun `json:"runs,omitempty" trace:""`
}

// TermRun is a run of consecutive log entries of one term, From to To
// inclusive. Its text form is `5..7@2`.
//
//trace:item
type TermRun struct {
	From uint64 `json:"from" trace:""`
	To   uint64 `json:"to" trace:".."`
	Term uint64 `json:"term" trace:"@"`
}
