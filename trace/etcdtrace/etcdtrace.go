// Package etcdtrace defines the typed trace events that etcd members and
// their clients add to a world's trace. They are the contract between the
// simulated etcd (which emits them) and the checks and metrics (which read
// them): a check never looks inside a member, only at these events.
//
// Every type implements sim.Data. Its text form is what the trace hash
// covers, so it prints every field that matters for determinism. The trace
// tags of the fields define that form; zz_trace.go is generated from them.
package etcdtrace

import "strings"

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

// RaftState is emitted by a member whenever its Raft term, role, leader or
// commit index changes, and once at every boot.
//
//trace:kind KindRaftState raft.state notrim
type RaftState struct {
	Member string `json:"member" trace:"member"`
	ID     uint64 `json:"id" trace:"-"`
	// Incarnation is the member host's boot count: commit indexes only
	// move forward within one incarnation.
	Incarnation uint64 `json:"incarnation" trace:"inc"`
	Term        uint64 `json:"term" trace:"term"`
	Role        string `json:"role" trace:"role"` // follower, pre-candidate, candidate or leader
	Lead        uint64 `json:"lead" trace:"lead"` // 0 when unknown
	Commit      uint64 `json:"commit" trace:"commit"`
	// LogHash hashes (index, term, data) of every log entry up to Commit.
	LogHash uint64 `json:"log_hash" trace:"loghash,hex"`
}

// The types of a Change.
const (
	ChangePut    = "put"
	ChangeDelete = "delete"
)

// Change is one key change at a revision, as etcd's mvcc records it. For a
// delete, Value is empty, CreateRev and Version are 0 and ModRev is the
// revision of the deletion. Its text form is `put "key"="value"@mod/create/version`.
//
//trace:item
type Change struct {
	Type      string `json:"type" trace:""` // ChangePut or ChangeDelete
	Key       string `json:"key" trace:" ,quote"`
	Value     string `json:"value,omitempty" trace:"=,quote,cut=MaxTextValue,if=Type==ChangePut"`
	ModRev    int64  `json:"mod_rev" trace:"@"`
	CreateRev int64  `json:"create_rev,omitempty" trace:"/"`
	Version   int64  `json:"version,omitempty" trace:"/"`
}

// ErrCompactedText is etcd's message for a read, compaction or watch that
// needs a revision older than the compact revision (etcd server/storage/mvcc
// ErrCompacted). A Return's Err carries it, so the checks recognize a
// compacted read by it without importing the store.
const ErrCompactedText = "mvcc: required revision has been compacted"

// MaxTextValue is how much of a value a Change's text form shows; a longer
// one (an API object's JSON) is cut there and followed by its length and
// FNV-1a hash, as in "...(1234 bytes fnv=9f3a...)", so that the trace hash
// still covers all of it. The JSONL trace carries it whole.
const MaxTextValue = 64

// Apply is emitted when a member applies a committed Raft entry to its
// store. Rev is the store revision after the entry; Changes are the key
// changes it made (none for a read-only or failed transaction, or a
// compaction). Compact is the revision a compaction entry compacted to.
//
//trace:kind KindApply etcd.apply
type Apply struct {
	Member    string   `json:"member" trace:"member"`
	Index     uint64   `json:"index" trace:"index"`
	Term      uint64   `json:"term" trace:"term"`
	EntryHash uint64   `json:"entry_hash" trace:"entry,hex"` // FNV-1a of the entry's data
	Rev       int64    `json:"rev" trace:"rev"`
	Compact   int64    `json:"compact,omitempty" trace:"compact,omitempty"`
	Changes   []Change `json:"changes,omitempty" trace:""`
}

// KVHash is a member's store fingerprint, emitted by every live member when
// a scenario asks for it (at the end of a run).
//
//trace:kind KindKVHash etcd.kvhash notrim
type KVHash struct {
	Member     string `json:"member" trace:"member"`
	Applied    uint64 `json:"applied" trace:"applied"`
	Rev        int64  `json:"rev" trace:"rev"`
	CompactRev int64  `json:"compact_rev" trace:"compact"`
	Hash       uint64 `json:"hash" trace:"hash,hex"`
}

// OpKind is the kind of a KV client operation.
type OpKind string

// The KV operations a client records.
const (
	// OpGet is a Range of one key (End empty) or of [Key, End), at the
	// current revision (Rev 0: linearizable) or at the past revision Rev
	// (a historical read).
	OpGet    OpKind = "get"
	OpPut    OpKind = "put"    // Put of a unique value
	OpCAS    OpKind = "cas"    // Txn: if value(key) == Expect then Put(Value); ExpectAbsent compares version == 0 instead
	OpDelete OpKind = "delete" // DeleteRange of one key
	// OpTxn is a multi-op Txn: if every compare of Compares holds, the ops
	// of Ops not marked Else run, else those marked Else, all at one
	// revision (puts of unique values, deletes and range reads).
	OpTxn OpKind = "txn"
	// OpList is a watcher's linearizable Range of its whole key range, to
	// (re)start its watch after it: the historical-reads check judges its
	// answer; linearizability leaves it out, because it spans every key.
	OpList OpKind = "list"
)

// Writes reports whether an operation of this kind asks to write: every
// kind but get and list (a txn or a cas counts as a write even when its
// compares send it down a branch without one).
func (k OpKind) Writes() bool { return k != OpGet && k != OpList }

// The targets of a Compare.
const (
	CmpValue   = "value"   // the key's value equals Value
	CmpVersion = "version" // the key's version equals Version (0: absent)
	CmpMod     = "mod"     // the key's mod revision equals ModRev (0: absent)
)

// Compare is one compare of an OpTxn call, always an equality, on a key's
// value, version or mod revision (as etcd's Compare with result EQUAL).
// Its text form is `if "key".mod=12`.
//
//trace:item
type Compare struct {
	Key     string `json:"key" trace:"if ,quote"`
	Target  string `json:"target" trace:"."` // CmpValue, CmpVersion or CmpMod
	Value   string `json:"value,omitempty" trace:"=,quote,cut=MaxTextValue,if=Target==CmpValue"`
	Version int64  `json:"version,omitempty" trace:"=,if=Target==CmpVersion"`
	ModRev  int64  `json:"mod_rev,omitempty" trace:"=,if=Target==CmpMod"`
}

// The types of a TxnOp.
const (
	TxnPut    = "put"    // put Key=Value
	TxnDelete = "delete" // delete Key
	TxnRange  = "range"  // read Key, or [Key, End)
)

// TxnOp is one operation of an OpTxn call: a put of a unique value, a
// delete of one key, or a read of one key or of [Key, End). Else marks an
// operation of the failure branch. Its text form is `put "k1"="v"`,
// `range "k0".."k2"` or, in the failure branch, `else:range "k0"`.
//
//trace:item
type TxnOp struct {
	Else  bool   `json:"else,omitempty" trace:"else:,flag"`
	Type  string `json:"type" trace:""` // TxnPut, TxnDelete or TxnRange
	Key   string `json:"key" trace:" ,quote"`
	End   string `json:"end,omitempty" trace:"..,quote,omitempty"`
	Value string `json:"value,omitempty" trace:"=,quote,cut=MaxTextValue,if=Type==TxnPut"`
}

// ReadKV is one key a read answered: for a txn, Op is the position of the
// range operation in the branch that ran (0 for a plain range read). Its
// text form is `#1"k1"="v"@12/3/2` (mod/create/version).
//
//trace:item
type ReadKV struct {
	Op        int    `json:"op,omitempty" trace:"#"`
	Key       string `json:"key" trace:",quote"`
	Value     string `json:"value,omitempty" trace:"=,quote,cut=MaxTextValue"`
	ModRev    int64  `json:"mod_rev" trace:"@"`
	CreateRev int64  `json:"create_rev" trace:"/"`
	Version   int64  `json:"version" trace:"/"`
}

// Call is emitted when a client invokes an operation. Op identifies the
// call; its Return carries the same Client and Op.
//
//trace:kind KindCall kv.call
type Call struct {
	Client       string `json:"client" trace:"client"`
	Op           uint64 `json:"op" trace:"op"`
	Kind         OpKind `json:"kind" trace:"kind"`
	Key          string `json:"key" trace:"key"`
	End          string `json:"end,omitempty" trace:"end,omitempty"` // get, list: the range end ("" reads Key alone)
	Rev          int64  `json:"rev,omitempty" trace:"at,omitempty"`  // get: the revision to read at (0: the current one)
	Value        string `json:"value,omitempty" trace:"value,omitempty"`
	Expect       string `json:"expect,omitempty" trace:"expect,if=Kind==OpCAS,if=!ExpectAbsent"`
	ExpectAbsent bool   `json:"expect_absent,omitempty" trace:"expect=absent,flag,if=Kind==OpCAS"`
	// Compares and Ops are a txn's (OpTxn).
	Compares []Compare `json:"compares,omitempty" trace:""`
	Ops      []TxnOp   `json:"ops,omitempty" trace:""`
}

// Outcome says how a call ended.
type Outcome string

// The outcomes of a call.
const (
	// OutcomeOK: the server answered; the fields of Return hold its answer.
	OutcomeOK Outcome = "ok"
	// OutcomeFail: the server answered with an error that means the
	// operation did not happen (e.g. no leader, or a refused request).
	OutcomeFail Outcome = "fail"
	// OutcomeUnknown: no answer came (timeout, connection lost); the
	// operation may or may not have taken effect.
	OutcomeUnknown Outcome = "unknown"
)

// Return is emitted when a call ends.
//
//trace:kind KindReturn kv.return
type Return struct {
	Client    string  `json:"client" trace:"client"`
	Op        uint64  `json:"op" trace:"op"`
	Outcome   Outcome `json:"outcome" trace:"outcome"`
	Found     bool    `json:"found,omitempty" trace:"-"`                              // get: the key existed
	Value     string  `json:"value,omitempty" trace:"value,if=Found"`                 // get: its value
	Version   int64   `json:"version,omitempty" trace:"version,if=Found,omitempty"`   // get: its version (puts since creation); 0 when not recorded
	ModRev    int64   `json:"mod_rev,omitempty" trace:"mod,if=Found,omitempty"`       // get: its mod revision; 0 when not recorded
	CreateRev int64   `json:"create_rev,omitempty" trace:"create,if=Found,omitempty"` // get: its create revision; 0 when not recorded
	Succeeded bool    `json:"succeeded,omitempty" trace:"succeeded,flag"`             // cas, txn: the compares held; delete: a key was deleted
	Rev       int64   `json:"rev,omitempty" trace:"rev,omitempty"`                    // header revision of the answer
	Member    string  `json:"member,omitempty" trace:"member,omitempty"`              // which member answered
	Err       string  `json:"err,omitempty" trace:"err,omitempty"`
	// KVs are what a range get, a list or a txn's range operations read,
	// in key order (a txn's grouped by operation).
	KVs []ReadKV `json:"kvs,omitempty" trace:""`
}

// WatchOpen is emitted when a watcher asks a member for a watch on
// [Key, End) (End empty: the single key Key) starting at StartRev. Stream
// numbers the watcher's successive watches, so that responses can be told
// apart after a reconnect.
//
//trace:kind KindWatchOpen watch.open notrim
type WatchOpen struct {
	Watcher  string `json:"watcher" trace:"watcher"`
	Stream   uint64 `json:"stream" trace:"stream"`
	Member   string `json:"member" trace:"member"`
	Key      string `json:"key" trace:"key"`
	End      string `json:"end,omitempty" trace:"end"`
	StartRev int64  `json:"start_rev" trace:"start"`
}

// WatchResp is emitted when a watcher receives a watch response. A progress
// notification has no events and Progress set. A cancellation for a
// compacted start revision has Canceled and CompactRev set.
//
//trace:kind KindWatchResp watch.resp
type WatchResp struct {
	Watcher    string   `json:"watcher" trace:"watcher"`
	Stream     uint64   `json:"stream" trace:"stream"`
	Member     string   `json:"member" trace:"member"`
	Rev        int64    `json:"rev" trace:"rev"` // header revision
	Progress   bool     `json:"progress,omitempty" trace:"progress,flag"`
	Canceled   bool     `json:"canceled,omitempty" trace:"-"`
	CompactRev int64    `json:"compact_rev,omitempty" trace:"canceled-compact,if=Canceled"`
	Events     []Change `json:"events,omitempty" trace:""`
}

// SnapshotSave is emitted by a member when it serves a snapshot (etcd's
// Maintenance.Snapshot, which `etcdctl snapshot save` calls): the copy of
// its store at revision Rev, with Keys live keys and the StateHash of
// their latest versions. MemberID and ClusterID are the member's and its
// cluster's IDs, which a restore will replace.
//
//trace:kind KindSnapshotSave etcd.snapshot notrim
type SnapshotSave struct {
	Member    string `json:"member" trace:"member"`
	MemberID  uint64 `json:"member_id" trace:"-"`
	ClusterID uint64 `json:"cluster_id" trace:"cluster,hex"`
	Rev       int64  `json:"rev" trace:"rev"`
	Keys      int    `json:"keys" trace:"keys"`
	Hash      uint64 `json:"hash" trace:"hash,hex"`
}

// BackupStored is emitted by a backup store when it has made a snapshot
// object durable under Name: the object's own status (`snapshot status`
// over what arrived), and the member that took it.
//
//trace:kind KindBackupStored backup.stored notrim
type BackupStored struct {
	Store  string `json:"store" trace:"store"`
	Name   string `json:"name" trace:"name"`
	Member string `json:"member" trace:"member"`
	Rev    int64  `json:"rev" trace:"rev"`
	Keys   int    `json:"keys" trace:"keys"`
	Hash   uint64 `json:"hash" trace:"hash,hex"`
}

// Membership is emitted by a member each time it applies a membership
// change (a conf change entry): what it asked for (Change: add-voter,
// add-learner, promote or remove; refused when the member's checks
// rejected it at apply time, which leaves the configuration as it was), the
// member it concerns (NodeID and Node, its name), and the configuration
// that results: the voters' and learners' names, sorted by member ID and
// comma-separated (Names splits them).
//
//trace:kind KindMembership etcd.member
type Membership struct {
	Member   string `json:"member" trace:"member"`
	Index    uint64 `json:"index" trace:"index"`
	Change   string `json:"change" trace:"change"`
	NodeID   uint64 `json:"node_id" trace:"id,hex"`
	Node     string `json:"node" trace:"node"`
	Voters   string `json:"voters" trace:"voters"`
	Learners string `json:"learners,omitempty" trace:"learners,omitempty"`
}

// The changes of a Membership event.
const (
	MemberAddVoter   = "add-voter"
	MemberAddLearner = "add-learner"
	MemberPromote    = "promote"
	MemberRemove     = "remove"
	MemberRefused    = "refused"
)

// Names splits a Membership event's Voters or Learners.
func Names(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// MemberCall is emitted by an etcd client when one of its member calls
// (etcdctl member add, remove, promote) returns: the client, the call
// (Op: add-voter, add-learner, remove or promote), the member it names,
// and the error, empty when it succeeded.
//
//trace:kind KindMemberCall etcd.member.call
type MemberCall struct {
	Client string `json:"client" trace:"client"`
	Op     string `json:"op" trace:"op"`
	NodeID uint64 `json:"node_id" trace:"id,hex"`
	Err    string `json:"err,omitempty" trace:"err,omitempty"`
}

// MemberCheck is emitted by the leader each time it judges a member call
// (add, remove, promote) before proposing it: etcd's
// membership.ValidateConfigurationChange and its strict reconfiguration
// checks (--strict-reconfig-check, on by default: server.go mayAddMember,
// mayRemoveMember, mayPromoteMember and isLearnerReady). Op is the call
// (add-voter, add-learner, remove or promote), NodeID and Node the member
// it names (Node empty when the leader does not know it); Voters and
// Learners are the leader's applied membership, the configuration the
// checks count (comma-separated names, as Membership's); Match is, for a
// promote, the learner's match index in the leader's progress tracker,
// the one input of the checks the trace does not otherwise show. Err is
// the refusal, empty when the change passed and the leader proposes it.
// The reconfig-safety check judges each from the trace's view of the
// world: the Raft messages the leader received, the logs made durable.
//
//trace:kind KindMemberCheck etcd.member.check
type MemberCheck struct {
	Member   string `json:"member" trace:"member"`
	Op       string `json:"op" trace:"op"`
	NodeID   uint64 `json:"node_id" trace:"id,hex"`
	Node     string `json:"node,omitempty" trace:"node,omitempty"`
	Voters   string `json:"voters" trace:"voters"`
	Learners string `json:"learners,omitempty" trace:"learners,omitempty"`
	Match    uint64 `json:"match,omitempty" trace:"match,omitempty"`
	Err      string `json:"err,omitempty" trace:"err,omitempty"`
}

// PeerPort is the port etcd members exchange Raft messages on: a member
// counts a peer as connected while it receives that peer's messages there
// (nodes/etcd listens on it; the checks read its deliveries).
const PeerPort = "raft"

// The refusals of the strict reconfiguration checks and of the learner
// limit, as a MemberCheck's Err and a MemberCall's carry them: etcd's
// messages (server/etcdserver/errors/errors.go, api/membership/errors.go).
// nodes/etcd's errors use them, so that the checks recognize a refusal by
// its text without importing the member.
const (
	// ErrNotEnoughStartedText: the change would leave fewer started
	// voters than a quorum.
	ErrNotEnoughStartedText = "etcdserver: re-configuration failed due to not enough started members"
	// ErrUnhealthyText: the leader is not connected to enough voters.
	ErrUnhealthyText = "etcdserver: unhealthy cluster"
	// ErrLearnerNotReadyText: the learner is not in sync with the leader.
	ErrLearnerNotReadyText = "etcdserver: can only promote a learner member which is in sync with leader"
	// ErrTooManyLearnersText: the cluster has its one learner already.
	ErrTooManyLearnersText = "etcdserver: too many learner members in cluster"
)
